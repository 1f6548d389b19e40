package cli

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"arbiter/door/mcpserver"
	"arbiter/door/mcpserver/mcptest"
	"arbiter/model"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// agentServer is `arbiter mcp` for one agent in a subprocess, with the
// SDK's client on its stdin and stdout.
type agentServer struct {
	*mcptest.Client
	cmd    *exec.Cmd
	stderr *bytes.Buffer
}

// hangUpWait is how long the client lets the server take to exit after
// closing its stdin before sending SIGTERM: long, so that a server that
// only a signal stops is told apart from one that exits by itself.
const hangUpWait = time.Minute

func startMCP(t *testing.T, db, as, protocol string) *agentServer {
	t.Helper()
	cmd := exec.Command(bin, "mcp", "--db", db, "--as", as)
	cmd.Env = cleanEnv()
	s := &agentServer{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = s.stderr
	s.Client = mcptest.Connect(t, &mcp.CommandTransport{Command: cmd, TerminateDuration: hangUpWait},
		mcptest.Options{ProtocolVersion: protocol})
	return s
}

// hangUp closes the session (and so the server's stdin) and checks that the
// server exits by itself, with status 0.
func (s *agentServer) hangUp(t *testing.T) {
	t.Helper()
	start := time.Now()
	s.Session.Close()
	took := time.Since(start)
	st := s.cmd.ProcessState
	switch {
	case st == nil:
		t.Fatal("the server is still running after its stdin closed")
	case took >= hangUpWait:
		t.Errorf("the server exited only after SIGTERM (%s after its stdin closed)", took.Round(time.Millisecond))
	case st.Sys().(syscall.WaitStatus).Signaled() || st.ExitCode() != 0:
		t.Errorf("the server exited with %s after its stdin closed\nstderr: %s", st, s.stderr)
	}
}

func TestMCPServersInSubprocessesCarryAConflictFromRecordToTheOperatorsDecision(t *testing.T) {
	db := newField(t)
	// ana asks for the protocol of today's common clients
	// (resources/subscribe), bob for the SDK's latest
	// (subscriptions/listen).
	ana, bob := startMCP(t, db, "ana", mcptest.Legacy), startMCP(t, db, "bob", "")
	ana.Subscribe(mcpserver.InboxURI)
	bob.Subscribe(mcpserver.InboxURI)

	ra := mcptest.Result[model.RecordResult](ana.Client, mcpserver.ToolRecord, jsonMap(t, recordPayload("p99 is 40 ms", 0.9, "")))
	rb := mcptest.Result[model.RecordResult](bob.Client, mcpserver.ToolRecord, jsonMap(t, recordPayload("p99 is 90 ms", 0.6, ra.UnitID)))
	if len(rb.Conflicts) != 1 || rb.Conflicts[0].UnitA != ra.UnitID || rb.Conflicts[0].UnitB != rb.UnitID {
		t.Fatalf("bob's record opened %+v, want one conflict with ana's %s", rb.Conflicts, ra.UnitID)
	}
	id := rb.Conflicts[0].ID
	ana.WaitUpdated(mcpserver.InboxURI)
	bob.WaitUpdated(mcpserver.InboxURI)

	seen := mcptest.Result[struct {
		Yours     int                     `json:"yours"`
		Conflicts []model.ConflictSummary `json:"conflicts"`
	}](bob.Client, mcpserver.ToolConflicts, map[string]any{})
	if seen.Yours != 1 || seen.Conflicts[0].ID != id || seen.Conflicts[0].AgentA != "ana" {
		t.Fatalf("bob's conflicts: %+v, want %s against ana first", seen, id)
	}
	d := mcptest.Result[model.ConflictDetail](bob.Client, mcpserver.ToolConflict, map[string]any{"conflict_id": id})
	bob.Subscribe(mcpserver.ConflictURI(id))
	esc := mcptest.Result[model.MergeResponse](bob.Client, mcpserver.ToolMerge, map[string]any{"conflict_id": id,
		"strategy": "human_escalation", "resolution": map[string]any{"rationale": "lab and production disagree"},
		"expected_version": d.Conflict.Version})
	if esc.Status != model.StatusEscalated || !slices.Contains(esc.SideEffects.NotifiedAgents, "op") {
		t.Fatalf("escalation: %+v, want escalated with the operator op notified", esc)
	}
	ana.WaitUpdated(mcpserver.InboxURI)
	bob.WaitUpdated(mcpserver.InboxURI)
	bob.WaitUpdated(mcpserver.ConflictURI(id))
	since := mcptest.Result[struct {
		NextSinceID int64 `json:"next_since_id"`
	}](ana.Client, mcpserver.ToolInbox, map[string]any{}).NextSinceID

	// The operator decides on the command line.
	out := ok(t, "--db", db, "--as", "op", "merge", id, "--strategy", "confidence_weighted", "--winner", "A",
		"--rationale", "the lab run controls for warm caches", "--expect-version", "2")
	if !strings.Contains(out, "resolved "+id) {
		t.Fatalf("arbiter merge: %s", out)
	}
	ana.WaitUpdated(mcpserver.InboxURI)
	bob.WaitUpdated(mcpserver.InboxURI)
	bob.WaitUpdated(mcpserver.ConflictURI(id))

	for _, s := range []*agentServer{ana, bob} {
		box := mcptest.Result[struct {
			Notifications []model.Notification `json:"notifications"`
		}](s.Client, mcpserver.ToolInbox, map[string]any{"since_id": since})
		var resolved *model.Notification
		for i, n := range box.Notifications {
			if n.Event == model.EventConflictResolved && n.ConflictID != nil && *n.ConflictID == id {
				resolved = &box.Notifications[i]
			}
		}
		if resolved == nil {
			t.Fatalf("no conflict.resolved for %s in the inbox: %+v", id, box.Notifications)
		}
	}
	var now model.ConflictDetail
	bob.Read(mcpserver.ConflictURI(id), &now)
	if r := now.Conflict.Resolution; r == nil || r.ResolvedBy != "op" || r.WinnerID == nil || *r.WinnerID != ra.UnitID {
		t.Fatalf("bob reads %s as %+v, want resolved by op for %s", id, now.Conflict, ra.UnitID)
	}

	ana.hangUp(t)
	bob.hangUp(t)
	if got := ana.stderr.String(); !strings.Contains(got, "serving") || strings.Count(got, "\n") != 1 {
		t.Errorf("ana's server's stderr: %q, want one notice", got)
	}
}

func TestMCPNeedsARegisteredAgent(t *testing.T) {
	db := newField(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
		exit int
	}{
		{"without --as", []string{"mcp", "--db", db}, "--as", 2}, // a missing setting, as for every command
		{"with an unknown agent", []string{"mcp", "--db", db, "--as", "zed"}, `"zed" is not a registered agent`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := arbiter(t, tc.args...)
			wantExit(t, r, tc.exit)
			if r.stdout != "" {
				t.Errorf("stdout = %q, want nothing: it belongs to the protocol", r.stdout)
			}
			if !strings.Contains(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("stderr = %q, want one line naming %s", r.stderr, tc.want)
			}
		})
	}
}

// jsonMap decodes a JSON object, such as a RECORD payload, for a tool's
// arguments.
func jsonMap(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}
