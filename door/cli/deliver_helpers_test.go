package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"arbiter/internal/pgtest"
	"arbiter/model"
)

// bothEngines runs fn on a new field on a SQLite file and on PostgreSQL.
func bothEngines(t *testing.T, fn func(t *testing.T, db string)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, filepath.Join(t.TempDir(), "field.db")) })
	t.Run("postgres", func(t *testing.T) { fn(t, pgtest.Field(t)) })
}

// hookedField creates the field db with ana, bob and op (a human
// operator), and returns it.
func hookedField(t *testing.T, db string) string {
	t.Helper()
	ok(t, "init", "--db", db, "--quorum", "2", "--recusal=false")
	ok(t, "--db", db, "register", "--id", "ana", "--role", "analyst", "--authority", "6")
	ok(t, "--db", db, "register", "--id", "bob", "--role", "analyst")
	ok(t, "--db", db, "register", "--id", "op", "--role", "operator", "--kind", "human", "--authority", "10")
	return db
}

// addHook adds a standard hook for agent to url (private addresses
// allowed: the receivers listen on 127.0.0.1) and returns its id and
// secret.
func addHook(t *testing.T, db, agent, url string) (string, string) {
	t.Helper()
	out := ok(t, "--db", db, "--as", "op", "hooks", "add", "--for", agent, "--url", url, "--allow-private")
	return strings.Fields(out)[0], strings.Fields(out[strings.LastIndex(out, "whsec_"):])[0]
}

var conflicts atomic.Int64

// conflict records two contradicting units, by ana and by bob: ana is
// told of the conflict (one notice, conflict.detected).
func conflict(t *testing.T, db string) {
	t.Helper()
	k := conflicts.Add(1)
	id := strings.Fields(record(t, db, "ana", recordPayload(fmt.Sprintf("p95 is %d ms", 30+k), 0.8, "")))[1]
	record(t, db, "bob", recordPayload(fmt.Sprintf("p95 is %d ms", 90+k), 0.5, id))
}

// hookDeliveries lists the deliveries to hook (all for "").
func hookDeliveries(t *testing.T, db, hook string) []model.Delivery {
	t.Helper()
	var out []model.Delivery
	for _, d := range listDeliveries(t, db) {
		if hook == "" || d.HookID == hook {
			out = append(out, d)
		}
	}
	return out
}

func allDelivered(ds []model.Delivery) bool {
	for _, d := range ds {
		if d.State != model.DeliveryDelivered {
			return false
		}
	}
	return len(ds) > 0
}

// proc is an arbiter process the test watches: its stderr in a file, and
// whether it has exited.
type proc struct {
	cmd    *exec.Cmd
	stderr string
	exited chan struct{}
}

// startArbiter starts the binary with args; the test kills it at the end
// if it still runs.
func startArbiter(t *testing.T, args ...string) *proc {
	t.Helper()
	return startArbiterEnv(t, nil, args...)
}

// startArbiterEnv is startArbiter with extra environment variables.
func startArbiterEnv(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{stderr: filepath.Join(t.TempDir(), "stderr"), exited: make(chan struct{})}
	f, err := os.Create(p.stderr)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(cleanEnv(), env...)
	p.cmd.Stderr = f
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.cmd.Wait()
		f.Close()
		close(p.exited)
	}()
	t.Cleanup(func() {
		if !p.done() {
			p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

func (p *proc) done() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

func (p *proc) errors(t *testing.T) string {
	b, _ := os.ReadFile(p.stderr)
	return string(b)
}

// alive fails the test if p has exited.
func (p *proc) alive(t *testing.T, what string) {
	t.Helper()
	if p.done() {
		t.Fatalf("%s exited (%v):\n%s", what, p.cmd.ProcessState, p.errors(t))
	}
}

func (p *proc) kill9(t *testing.T) {
	t.Helper()
	p.cmd.Process.Kill()
	<-p.exited
}

// deliveriesJSON is deliveries --json decoded loosely, to see a field's
// keys as they are.
func deliveriesJSON(t *testing.T, db string) []map[string]any {
	t.Helper()
	var out []map[string]any
	if err := json.Unmarshal([]byte(ok(t, "--db", db, "deliveries", "--json", "--limit", "0")), &out); err != nil {
		t.Fatal(err)
	}
	return out
}
