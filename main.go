// Command arbiter is a review desk for an Akashik field: it lists the
// conflicts agents could not settle, shows both sides, and records the
// decisions of the people who settle them.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"arbiter/internal/cli"
)

func main() {
	// The first interrupt ends the command's context, which lets it stop
	// cleanly; from then on the signals have their usual effect, so a
	// second ctrl+c ends any command at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
