package cli

import (
	"context"
	"errors"
	"io"
)

// errInterrupted is a command ended by an interrupt (ctrl+c, SIGTERM)
// before it wrote anything: exit 130, as a shell reports a command a
// SIGINT ended.
var errInterrupted = errors.New("interrupted: nothing was written")

// exitInterrupted is the exit code of a command an interrupt ended.
const exitInterrupted = 130

// maxPayload bounds what a command reads from standard input or a file
// given as its payload.
const maxPayload = 64 << 20

// readAll reads r to its end, or until ctx ends: a read from a terminal
// or a pipe nobody writes to would otherwise outlast an interrupt. The
// read left behind ends with the process.
func readAll(ctx context.Context, r io.Reader) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, maxPayload+1))
		done <- result{data, err}
	}()
	select {
	case <-ctx.Done():
		return nil, errInterrupted
	case res := <-done:
		if res.err == nil && len(res.data) > maxPayload {
			res.err = errors.New("the payload is larger than 64 MiB")
		}
		return res.data, res.err
	}
}
