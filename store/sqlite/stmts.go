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
type stmts struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// stmt returns query prepared on the field's connections.
func (s *Store) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	s.stmts.mu.Lock()
	st := s.stmts.m[query]
	s.stmts.mu.Unlock()
	if st != nil {
		return st, nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	if old := s.stmts.m[query]; old != nil {
		st.Close()
		return old, nil
	}
	if s.stmts.m == nil {
		s.stmts.m = map[string]*sql.Stmt{}
	}
	s.stmts.m[query] = st
	return st, nil
}

func (s *Store) closeStmts() {
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	for _, st := range s.stmts.m {
		st.Close()
	}
	s.stmts.m = nil
}

// prepared is query as a statement of t's transaction, prepared once per
// connection; nil if it cannot be prepared (the caller then runs the
// query itself, and reports its error).
func (t *Tx) prepared(query string) *sql.Stmt {
	if t.s == nil {
		return nil
	}
	st, err := t.s.stmt(t.ctx, query)
	if err != nil {
		return nil
	}
	return t.tx.StmtContext(t.ctx, st)
}
