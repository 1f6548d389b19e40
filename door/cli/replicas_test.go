package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"arbiter/door/mcpserver"
	"arbiter/door/mcpserver/mcptest"
	"arbiter/internal/pgtest"
	"arbiter/internal/testwait"
	"arbiter/model"
)

// Two `arbiter serve` replicas on one PostgreSQL schema, as behind a TCP
// load balancer (docs/serve.md, "Several replicas"): a decision made
// through one reaches a screen and a subscribed agent on the other; a
// deadline's fallback executes once and each notice is delivered once
// though both sweep and deliver; one is killed with SIGKILL and the other
// serves on; an agent that reconnects to it reads its inbox on from its
// cursor, nothing lost or repeated.

// hookCounter is a webhook receiver that counts the requests of each
// webhook-id.
type hookCounter struct {
	mu   sync.Mutex
	seen map[string]int
}

func (h *hookCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen[r.Header.Get("webhook-id")]++
}

func (h *hookCounter) counts() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]int{}
	for k, v := range h.seen {
		out[k] = v
	}
	return out
}

// allDeliveredOnce waits until every delivery of the field is delivered,
// and checks that each reached the receiver exactly once.
func allDeliveredOnce(t *testing.T, db string, recv *hookCounter, want int) {
	t.Helper()
	var ds []model.Delivery
	until(t, "every delivery delivered", func() bool {
		ds = listDeliveries(t, db)
		if len(ds) < want {
			return false
		}
		for _, d := range ds {
			if d.State != model.DeliveryDelivered {
				return false
			}
		}
		return true
	})
	got := recv.counts()
	for _, d := range ds {
		if got[d.ID] != 1 {
			t.Errorf("delivery %s reached the receiver %d times", d.ID, got[d.ID])
		}
	}
	if len(got) != len(ds) {
		t.Errorf("the receiver got %d webhook-ids for %d deliveries: %v", len(got), len(ds), got)
	}
}

// screenShows polls a tmux session's screen until it shows text, and
// says how long that took; false if it never did.
func screenShows(s *tmuxSession, text string) (time.Duration, bool) {
	start := time.Now()
	shows := testwait.Until(testwait.Deadline, func() bool {
		out, err := exec.Command("tmux", "-S", s.name, "capture-pane", "-p").Output()
		return err == nil && strings.Contains(string(out), text)
	})
	return time.Since(start), shows
}

func inboxSince(t *testing.T, c *mcptest.Client, since int64) (ns []model.Notification, next int64) {
	t.Helper()
	var out struct {
		Notifications []model.Notification `json:"notifications"`
		NextSinceID   int64                `json:"next_since_id"`
	}
	res := c.Call(mcpserver.ToolInbox, map[string]any{"since_id": since, "limit": 1000})
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError || json.Unmarshal(b, &out) != nil {
		t.Fatalf("inbox since %d: %s", since, mcptest.Text(res))
	}
	return out.Notifications, out.NextSinceID
}

func TestTwoReplicasOnOnePostgreSQLField(t *testing.T) {
	db := pgtest.Field(t)
	ok(t, "init", "--db", db, "--demo")
	dir := t.TempDir()
	priya, maya := sshKey(t, dir, "priya"), sshKey(t, dir, "maya")
	ok(t, "--db", db, "--as", "ops-maya", "keys", "add", "lead-priya", priya+".pub")
	ok(t, "--db", db, "--as", "ops-maya", "keys", "add", "ops-maya", maya+".pub")
	tokens := map[string]string{}
	for _, agent := range []string{"sec-vega", "res-iris", "ana-quill"} {
		tokens[agent] = strings.TrimSpace(ok(t, "--db", db, "--as", "ops-maya", "tokens", "issue", agent))
	}
	recv := &hookCounter{seen: map[string]int{}}
	hook := httptest.NewServer(recv)
	defer hook.Close()
	ok(t, "--db", db, "--as", "ops-maya", "hooks", "add", "--for", "res-iris", "--url", hook.URL+"/hook", "--allow-private")

	// One host key for both, as behind one address: a client that
	// trusted one trusts the other.
	hostKey := filepath.Join(dir, "host_key")
	a := serveField(t, db, "--ssh", "127.0.0.1:0", "--http", "127.0.0.1:0", "--host-key", hostKey)
	b := serveField(t, db, "--ssh", "127.0.0.1:0", "--http", "127.0.0.1:0", "--host-key", hostKey)
	lead := tmuxSSH(t, 150, 40, sshArgs(b.sshAddr, priya, filepath.Join(dir, "known_hosts")))
	lead.waitForFlat("as lead-priya", "escalated 5")
	iris := mcpOverHTTP(t, "http://"+b.httpAddr+"/mcp", tokens["res-iris"])
	iris.Subscribe(mcpserver.InboxURI)
	ana := mcpOverHTTP(t, "http://"+a.httpAddr+"/mcp", tokens["ana-quill"])
	firstRead, cursor := inboxSince(t, ana, 0)

	// A decision through A reaches B's screen and B's subscribed agent.
	vega := mcpOverHTTP(t, "http://"+a.httpAddr+"/mcp", tokens["sec-vega"])
	mcptest.Result[model.MergeResponse](vega, mcpserver.ToolMerge, map[string]any{"conflict_id": "conflict-017",
		"strategy": "human_escalation", "resolution": map[string]any{"rationale": "the two rates count different things"}})
	decided := time.Now()
	iris.WaitUpdated(mcpserver.InboxURI)
	toAgent := time.Since(decided)
	if _, shown := screenShows(lead, "escalated 6"); !shown {
		t.Fatalf("B's screen never showed the escalation made through A:\n%s", lead.screen())
	}
	toScreen := time.Since(decided)
	t.Logf("a decision through replica A reached an agent subscribed on B in %v, a screen on B within %v (tmux polled every 20 ms)",
		toAgent.Round(time.Millisecond), toScreen.Round(time.Millisecond))
	irisSaw, _ := inboxSince(t, iris, 0)
	if n := irisSaw[len(irisSaw)-1]; n.ConflictID == nil || *n.ConflictID != "conflict-017" || n.Event != model.EventConflictEscalated {
		t.Errorf("res-iris's newest notice on B: %+v", n)
	}

	// A deadline passes with both replicas sweeping: its fallback
	// executes once, and its notices are written once.
	ok(t, "--db", db, "--as", "ana-quill", "merge", "conflict-018", "--strategy", "human_escalation",
		"--rationale", "the pen test slot needs a person", "--deadline", "2s", "--fallback", "dismiss")
	until(t, "conflict-018's fallback", func() bool {
		c := showJSON(t, db, "conflict-018").Conflict
		return c.Status == model.StatusResolved && c.Resolution.ResolvedBy == model.FallbackAgent
	})
	time.Sleep(6 * time.Second) // the point: both replicas sweep again after the fallback
	d := showJSON(t, db, "conflict-018")
	fallbacks := 0
	for _, e := range d.Events {
		if e.AgentID == model.FallbackAgent {
			fallbacks++
		}
	}
	told := 0 // plan-juno, an author, is told of the fallback's decision
	for _, n := range listInbox(t, db, "plan-juno") {
		if (n.Event == model.EventConflictResolved || n.Event == model.EventConflictTimeout) && n.ConflictID != nil && *n.ConflictID == "conflict-018" {
			told++
		}
	}
	if fallbacks != 1 || told != 1 {
		t.Errorf("conflict-018's fallback: %d events by fallback, %d notices of it to plan-juno; want 1 and 1", fallbacks, told)
	}
	allDeliveredOnce(t, db, recv, 1)

	// A is killed with a decision in its undo window on a screen it
	// serves; B serves on, and its sweep writes that decision.
	op := tmuxSSH(t, 150, 40, sshArgs(a.sshAddr, maya, filepath.Join(dir, "known_hosts")))
	op.waitForFlat("as ops-maya", "▸ conflict-008")
	keepBOn010(op)
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-a.done
	until(t, "conflict-010, held on A's screen, written by B's sweep", func() bool {
		c := showJSON(t, db, "conflict-010").Conflict
		return c.Status == model.StatusResolved && c.Resolution.ResolvedBy == "ops-maya"
	})
	if !strings.Contains(b.logText(), "wrote ops-maya's decision held when their screen ended (conflict-010: last_write_wins") {
		t.Errorf("B's log does not say it wrote the decision held on A:\n%s", b.logText())
	}
	ok(t, "--db", db, "--as", "ops-maya", "merge", "conflict-017", "--strategy", "dismiss", "--rationale", "both rates hold, for different things")
	if _, shown := screenShows(lead, "escalated 4"); !shown {
		t.Fatalf("B's screen after A was killed:\n%s", lead.screen())
	}
	if code := healthz(t, b.httpAddr); code != http.StatusOK {
		t.Errorf("B's /healthz after A was killed: %d", code)
	}
	allDeliveredOnce(t, db, recv, 2)

	// ana, who read her inbox through A, reads on from her cursor
	// through B: nothing lost, nothing twice.
	again := mcpOverHTTP(t, "http://"+b.httpAddr+"/mcp", tokens["ana-quill"])
	after, _ := inboxSince(t, again, cursor)
	seen := map[int64]int{}
	for _, n := range append(firstRead, after...) {
		seen[n.ID]++
	}
	all := listInbox(t, db, "ana-quill")
	for _, n := range all {
		if seen[n.ID] != 1 {
			t.Errorf("notice %d (%s) read %d times across the cursor", n.ID, n.Event, seen[n.ID])
		}
	}
	if len(seen) != len(all) || len(after) == 0 {
		t.Errorf("ana read %d notices before the kill and %d after, of %d", len(firstRead), len(after), len(all))
	}
}
