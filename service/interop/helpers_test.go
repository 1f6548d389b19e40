package interop_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"arbiter/internal/akashiklog"
	"arbiter/model"
	"arbiter/service/interop"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store/field"
)

// line is one event of an SDK log as the SDK writes it, built as raw JSON
// so the tests pin the wire format rather than this module's encoder.
type line map[string]any

var clock = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func event(typ, id string, lamport int64, agent any) line {
	return line{"v": 1, "event_id": id, "type": typ, "lamport": lamport, "agent": agent,
		"wall_time": clock.UnixMilli() + lamport*1000}
}

func register(id string, lamport int64, agent, role string) line {
	e := event("REGISTER", id, lamport, agent)
	e["entry_id"], e["role"], e["capabilities"] = agent, role, []string{"record"}
	return e
}

// rec is a RECORD of entry (JSON text) by agent ("" for the null agent).
func rec(id string, lamport int64, agent, entryID, entry string) line {
	var a any
	if agent != "" {
		a = agent
	}
	e := event("RECORD", id, lamport, a)
	e["entry_id"], e["entry"], e["intent"] = entryID, json.RawMessage(entry), "measure the checkout latency"
	return e
}

func status(id string, lamport int64, agent, entryID, to string) line {
	e := event("STATUS_CHANGE", id, lamport, agent)
	e["entry_id"], e["new_status"], e["intent"] = entryID, to, "the entry changed its standing"
	return e
}

func (l line) with(k string, v any) line {
	l[k] = v
	return l
}

// writeLog writes the events one per line in the order given, with seq
// numbered in file order, and returns the path; tail is appended raw (a
// torn line, say).
func writeLog(t *testing.T, dir string, tail string, events ...line) string {
	t.Helper()
	var b strings.Builder
	for i, e := range events {
		if _, ok := e["seq"]; !ok {
			e["seq"] = i + 1
		}
		j, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	b.WriteString(tail)
	path := filepath.Join(dir, "field.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readLog(t *testing.T, path string) *akashiklog.Log {
	t.Helper()
	log, err := akashiklog.ReadFile(path)
	if err != nil {
		t.Fatalf("read the log: %v", err)
	}
	return log
}

// newField is an empty field at level 3 with one human operator.
func newField(t *testing.T) *rt.Field {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "field.db")
	st, err := field.Create(ctx, path, rt.Policy())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &rt.Field{Path: path, Store: st, Svc: review.New(st)}
	if _, err := f.Svc.Register(ctx, model.Agent{ID: operator, Role: "operator", Kind: model.KindHuman,
		Authority: model.AuthorityHumanOperator}); err != nil {
		t.Fatal(err)
	}
	return f
}

const operator = "maya"

func importLog(t *testing.T, f *rt.Field, path string) interop.ImportReport {
	t.Helper()
	rep, err := interop.ImportAkashik(context.Background(), f.Store, readLog(t, path), clock)
	if err != nil {
		t.Fatalf("import %s: %v", path, err)
	}
	return rep
}

func conflicts(t *testing.T, f *rt.Field) []model.ConflictSummary {
	t.Helper()
	cs, err := f.Svc.List(context.Background(), model.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func agent(t *testing.T, f *rt.Field, id string) model.Agent {
	t.Helper()
	a, err := f.Svc.Agent(context.Background(), id)
	if err != nil {
		t.Fatalf("agent %s: %v", id, err)
	}
	return a
}
