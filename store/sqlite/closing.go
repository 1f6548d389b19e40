package sqlite

import (
	"errors"
	"sync"
)

// running keeps a field's Close from pulling the line of writers and
// the connections from under the transactions still running (a screen's
// command finishing after the screen ended): Close waits for them, and a
// transaction begun after Close is refused with errClosed.
type running struct {
	mu     sync.Mutex
	closed bool
	txs    sync.WaitGroup
}

var errClosed = errors.New("the field is closed")

// enter counts a transaction in, unless the field is closed; it never
// waits, so a transaction may run inside another.
func (r *running) enter() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.txs.Add(1)
	return true
}

func (r *running) leave() { r.txs.Done() }

// close refuses new transactions and waits for the running ones.
func (r *running) close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.txs.Wait()
}
