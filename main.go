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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
