package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// stmts keeps the store's statements prepared. SQLite parses and plans a
// statement every time it is prepared, and the driver prepares each query
// it is given: a MERGE runs some thirty statements, and preparing them was
// 40 % of its CPU. A statement prepared here is prepared once on each of
// the pool's connections (database/sql keeps them per connection) and
// reused by every transaction after.
//
// A query met for the first time is prepared on the pool in the
// background, and run unprepared meanwhile: preparing it on the pool from
// inside a transaction would wait for a second connection while holding
// one, and as many concurrent readers as the pool has connections, each
// meeting a new query (a filter typed a letter at a time), waited for
// each other for ever.
type stmts struct {
	mu        sync.Mutex
	m         map[string]*sql.Stmt
	preparing map[string]bool
	closed    bool
	wg        sync.WaitGroup
}

// stmt returns query prepared on the field's connections, or nil while it
// is being prepared.
func (s *Store) stmt(query string) *sql.Stmt {
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	if st := s.stmts.m[query]; st != nil || s.stmts.closed || s.stmts.preparing[query] {
		return st
	}
	if s.stmts.preparing == nil {
		s.stmts.preparing = map[string]bool{}
	}
	s.stmts.preparing[query] = true
	s.stmts.wg.Add(1)
	go func() {
		defer s.stmts.wg.Done()
		st, err := s.db.PrepareContext(context.Background(), query)
		s.stmts.mu.Lock()
		defer s.stmts.mu.Unlock()
		delete(s.stmts.preparing, query)
		switch {
		case err != nil:
		case s.stmts.closed:
			st.Close()
		default:
			if s.stmts.m == nil {
				s.stmts.m = map[string]*sql.Stmt{}
			}
			s.stmts.m[query] = st
		}
	}()
	return nil
}

// closeStmts waits for the statements being prepared and closes them all.
func (s *Store) closeStmts() {
	s.stmts.mu.Lock()
	s.stmts.closed = true
	s.stmts.mu.Unlock()
	s.stmts.wg.Wait()
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	for _, st := range s.stmts.m {
		st.Close()
	}
	s.stmts.m = nil
}

// prepared is query as a statement of t's transaction, prepared once per
// connection; nil while it is not prepared yet (the caller then runs the
// query itself).
func (t *Tx) prepared(query string) *sql.Stmt {
	if t.s == nil {
		return nil
	}
	st := t.s.stmt(query)
	if st == nil {
		return nil
	}
	return t.tx.StmtContext(t.ctx, st)
}
