// Command arbiter is a review desk for an Akashik field: it lists the
// conflicts agents could not settle, shows both sides, and records the
// decisions of the people who settle them.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"arbiter/door/cli"
)

func main() {
	// A hang-up (the terminal closed) ends the command as SIGTERM does,
	// so that the review screen writes what it holds first; unless it is
	// ignored (nohup), which it stays. The first signal ends the command's
	// context, which lets it stop cleanly; from then on the signals have
	// their usual effect, so a second ctrl+c ends any command at once.
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	ctx, stop := signal.NotifyContext(context.Background(), sigs...)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
