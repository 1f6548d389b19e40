package mcpserver_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"arbiter/door/mcpserver"
	"arbiter/door/mcpserver/mcptest"
	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/fieldgen"
	"arbiter/service/review"
	"arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/field"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// endpoint serves the field at path over Streamable HTTP on a real socket,
// as `arbiter serve --http` does, with a store of its own; the rules it
// returns are another process's, for issuing tokens.
func endpoint(t *testing.T, path string) (url string, h *mcpserver.HTTP) {
	t.Helper()
	return endpointIdle(t, path, 0)
}

func endpointIdle(t *testing.T, path string, idle time.Duration) (url string, h *mcpserver.HTTP) {
	t.Helper()
	st, err := field.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h = mcpserver.NewHTTP(review.New(st), mcpserver.HTTPOptions{Options: mcpserver.Options{Poll: 20 * time.Millisecond},
		RevokeCheck: 50 * time.Millisecond, IdleTimeout: idle})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		h.Close()
		srv.Close()
		st.Close()
	})
	return srv.URL + "/mcp", h
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// overHTTP connects the SDK's client to url with token.
func overHTTP(t *testing.T, url, token string) *mcptest.Client {
	t.Helper()
	return mcptest.Connect(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{token}},
		DisableStandaloneSSE: false}, mcptest.Options{ProtocolVersion: mcptest.Legacy})
}

func issue(t *testing.T, svc *review.Service, as, agent string) string {
	t.Helper()
	token, rec, err := svc.TokenIssue(context.Background(), as, agent)
	if err != nil {
		t.Fatalf("issue a token for %s: %v", agent, err)
	}
	if !strings.HasPrefix(token, rec.Prefix) || rec.Hash == token || strings.Contains(rec.Hash, token) {
		t.Fatalf("the record %+v gives the token away", rec)
	}
	return token
}

// post sends one JSON-RPC message as a client would, with the token and
// session given, and returns the response.
func post(t *testing.T, url, token, session, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", mcptest.Legacy)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"0"}}}`

// The token is the identity: what its holder records is its agent's; the
// tools take no other name, and a session begun with one agent's token
// refuses another's.
func TestHTTPTokenRecordsAsItsAgentAndOnlyIt(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	url, _ := endpoint(t, f.Path)
	c := overHTTP(t, url, issue(t, f.Svc, reviewtest.Operator, ana))
	res := mcptest.Result[model.RecordResult](c, mcpserver.ToolRecord, finding("p99 is 180 ms in production", 0.8, ""))
	if u := f.Unit(t, res.UnitID); u.Source.AgentID != ana {
		t.Fatalf("recorded by %s over ana's token", u.Source.AgentID)
	}
	args := finding("as bob", 0.8, "")
	args["agent_id"] = bob
	if no := c.Call(mcpserver.ToolRecord, args); !no.IsError {
		t.Fatalf("a record naming another agent was taken: %s", mcptest.Text(no))
	}

	// bob's token on ana's session: refused before anything runs.
	resp := post(t, url, issue(t, f.Svc, reviewtest.Operator, bob), c.Session.ID(),
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"record","arguments":{"type":"finding","content":"x","intent":{"purpose":"p"},"confidence":{"score":0.5,"reasoning":"r"}}}}`)
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("bob's token on ana's session: %s, want 403", resp.Status)
	}
	if n := unitsBy(t, f, bob); n != 0 {
		t.Errorf("bob has %d units", n)
	}
}

func unitsBy(t *testing.T, f *reviewtest.Field, agent string) (n int) {
	t.Helper()
	f.Read(t, func(tx store.Tx) error {
		return tx.UnitEach(func(_ int64, u model.Unit) error {
			if u.Source.AgentID == agent {
				n++
			}
			return nil
		})
	})
	return n
}

// No token, a wrong one, a revoked one: 401 with a Bearer challenge; a
// revoked token stops at once, its open session too.
func TestHTTPRefusesAWrongOrRevokedToken(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	url, h := endpoint(t, f.Path)
	token := issue(t, f.Svc, reviewtest.Operator, ana)
	for name, tok := range map[string]string{
		"no token":      "",
		"a wrong token": review.TokenPrefix + strings.Repeat("a", 26),
		"not ours":      "hunter2",
		"a cut token":   token[:len(token)-1],
	} {
		resp := post(t, url, tok, "", initialize)
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: %s, WWW-Authenticate %q; want 401 with a Bearer challenge", name, resp.Status, resp.Header.Get("WWW-Authenticate"))
		}
	}

	c := overHTTP(t, url, token)
	c.Call(mcpserver.ToolInbox, map[string]any{})
	if h.Sessions() != 1 {
		t.Fatalf("%d sessions open, want 1", h.Sessions())
	}
	if _, err := f.Svc.TokenRevoke(context.Background(), reviewtest.Operator, ana); err != nil {
		t.Fatal(err)
	}
	_, err := c.Session.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpserver.ToolInbox, Arguments: map[string]any{}})
	if err == nil {
		t.Fatal("a revoked token still calls tools")
	}
	if resp := post(t, url, token, "", initialize); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a new session with a revoked token: %s", resp.Status)
	}
	testwait.Until(mcptest.Wait, func() bool { return h.Sessions() == 0 })
	if n := h.Sessions(); n != 0 {
		t.Errorf("%d sessions still open on a revoked token", n)
	}
}

// A notice reaches its agent over HTTP: bob contradicts ana's unit, ana's
// subscribed client hears of her inbox.
func TestHTTPInboxNoticeReachesItsAgent(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	url, _ := endpoint(t, f.Path)
	a := overHTTP(t, url, issue(t, f.Svc, reviewtest.Operator, ana))
	b := overHTTP(t, url, issue(t, f.Svc, reviewtest.Operator, bob))
	unit := mcptest.Result[model.RecordResult](a, mcpserver.ToolRecord, finding("the cache is warm", 0.8, "")).UnitID
	a.Subscribe(mcpserver.InboxURI)
	b.Call(mcpserver.ToolRecord, finding("the cache is cold", 0.6, unit))
	a.WaitUpdated(mcpserver.InboxURI)
	var inbox struct {
		Notifications []model.Notification `json:"notifications"`
	}
	a.Read(mcpserver.InboxURI, &inbox)
	if len(inbox.Notifications) == 0 || inbox.Notifications[len(inbox.Notifications)-1].AgentID != ana {
		t.Fatalf("ana's inbox: %+v", inbox.Notifications)
	}
}

// Paging with the cursor reaches every conflict of a field of 2,000, each
// once; search finds a unit by a word of its text, on a page of its own.
func TestHTTPPagingReachesEveryConflictAndSearchFindsAUnit(t *testing.T) {
	path := reviewtest.NewName(t)
	if _, err := fieldgen.Build(context.Background(), path, fieldgen.Options{Units: 4500, Conflicts: 2000, Open: 120, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	st, err := field.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := review.New(st)
	url, _ := endpoint(t, path)
	c := overHTTP(t, url, issue(t, svc, fieldgen.Operator, genAgent))

	seen := map[string]bool{}
	cursor, pages := "", 0
	for {
		args := map[string]any{"status": []string{"all"}, "limit": 500}
		if cursor != "" {
			args["cursor"] = cursor
		}
		page := mcptest.Result[struct {
			Conflicts  []model.ConflictSummary `json:"conflicts"`
			More       bool                    `json:"more"`
			NextCursor string                  `json:"next_cursor"`
		}](c, mcpserver.ToolConflicts, args)
		pages++
		for _, r := range page.Conflicts {
			if seen[r.ID] {
				t.Fatalf("%s on two pages", r.ID)
			}
			seen[r.ID] = true
		}
		if !page.More {
			break
		}
		if page.NextCursor == "" || len(page.Conflicts) != 500 {
			t.Fatalf("page %d: %d rows, more with cursor %q", pages, len(page.Conflicts), page.NextCursor)
		}
		cursor = page.NextCursor
	}
	if len(seen) != 2000 || pages != 4 {
		t.Fatalf("%d conflicts in %d pages, want 2000 in 4", len(seen), pages)
	}
	if no := mcptest.Refusal(c, mcpserver.ToolConflicts, map[string]any{"cursor": "not-a-cursor"}); no.Code != model.CodeInvalidRequest {
		t.Errorf("a made-up cursor: %+v", no)
	}

	rec := mcptest.Result[model.RecordResult](c, mcpserver.ToolRecord, finding("Zanzibar replicas lag behind the primary", 0.7, ""))
	type hits struct {
		Units []struct {
			ID      string `json:"id"`
			AgentID string `json:"agent_id"`
			Content string `json:"content"`
		} `json:"units"`
		More       bool   `json:"more"`
		NextCursor string `json:"next_cursor"`
	}
	found := mcptest.Result[hits](c, mcpserver.ToolSearch, map[string]any{"words": "zanzib REPLICAS"})
	if len(found.Units) != 1 || found.Units[0].ID != rec.UnitID || found.Units[0].AgentID != genAgent {
		t.Fatalf("search found %+v, want %s", found.Units, rec.UnitID)
	}
	// A common word pages like the conflicts.
	first := mcptest.Result[hits](c, mcpserver.ToolSearch, map[string]any{"words": "the", "limit": 3})
	next := mcptest.Result[hits](c, mcpserver.ToolSearch, map[string]any{"words": "the", "limit": 3, "cursor": first.NextCursor})
	if !first.More || len(first.Units) != 3 || len(next.Units) == 0 || next.Units[0].ID == first.Units[2].ID {
		t.Errorf("search pages: %+v then %+v", first, next)
	}
}

// genAgent is an agent of a generated field.
const genAgent = "ana-quill"

// Behind a TLS proxy on the same machine, requests reach the loopback
// address under the public host name: they are served, token permitting.
func TestHTTPServesARequestForwardedUnderAnotherHostName(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	url, _ := endpoint(t, f.Path)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initialize))
	req.Host = "arbiter.example.com"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+issue(t, f.Svc, reviewtest.Operator, ana))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("a forwarded initialize: %s", resp.Status)
	}
}

// Whatever the limit, pages reach every conflict once, in the order of
// one page of all: the caller's first, then the others; a page may end
// anywhere, on the last of the caller's rows too.
func TestConflictsPagesAtEveryLimit(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	for range 3 {
		f.Contradict(t, model.ConflictFactual, reviewtest.Side{By: ana}, reviewtest.Side{By: bob})
		f.Contradict(t, model.ConflictFactual, reviewtest.Side{By: reviewtest.Scout}, reviewtest.Side{By: reviewtest.Senior1})
	}
	c := mcptest.Serve(t, f.Path, ana, mcptest.Options{})
	type page struct {
		Yours      int                     `json:"yours"`
		Conflicts  []model.ConflictSummary `json:"conflicts"`
		More       bool                    `json:"more"`
		NextCursor string                  `json:"next_cursor"`
	}
	ids := func(rows []model.ConflictSummary) (out []string) {
		for _, r := range rows {
			out = append(out, r.ID)
		}
		return out
	}
	all := mcptest.Result[page](c, mcpserver.ToolConflicts, map[string]any{"status": []string{"all"}, "limit": 500})
	want := strings.Join(ids(all.Conflicts), " ")
	if len(all.Conflicts) != 6 || all.Yours != 3 {
		t.Fatalf("one page of all: %d rows, %d yours", len(all.Conflicts), all.Yours)
	}
	for limit := 1; limit <= 7; limit++ {
		var got []string
		args := map[string]any{"status": []string{"all"}, "limit": limit}
		for range 10 {
			p := mcptest.Result[page](c, mcpserver.ToolConflicts, args)
			got = append(got, ids(p.Conflicts)...)
			if !p.More {
				break
			}
			args["cursor"] = p.NextCursor
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("limit %d: %s; want %s", limit, g, want)
		}
	}
}

// A session that makes no request for the idle timeout is closed, unless
// its client listens on a stream: an agent waiting for its notices is not
// idle.
func TestHTTPClosesIdleSessionsButNotListeningOnes(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	url, h := endpointIdle(t, f.Path, 300*time.Millisecond)
	listening := overHTTP(t, url, issue(t, f.Svc, reviewtest.Operator, ana)) // the SDK's client keeps a GET stream open
	listening.Subscribe(mcpserver.InboxURI)
	token := issue(t, f.Svc, reviewtest.Operator, bob)
	resp := post(t, url, token, "", initialize)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %s", resp.Status)
	}
	io.Copy(io.Discard, resp.Body) // the answer comes after the stream's first event
	resp.Body.Close()
	if resp := post(t, url, token, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode >= 300 {
		t.Fatalf("initialized: %s", resp.Status)
	}
	testwait.Until(mcptest.Wait, func() bool { return h.Sessions() == 2 })
	testwait.Until(mcptest.Wait, func() bool { return h.Sessions() == 1 })
	if n := h.Sessions(); n != 1 {
		t.Fatalf("%d sessions open, want the listening one alone", n)
	}
	if resp := post(t, url, token, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the idle session after its timeout: %s, want 404", resp.Status)
	}
	// The listening client, idle as long, still hears of its inbox.
	unit := mcptest.Result[model.RecordResult](listening, mcpserver.ToolRecord, finding("still here", 0.8, "")).UnitID
	if _, err := f.Svc.Record(context.Background(), bob, model.RecordRequest{Type: model.TypeFinding, Content: "no",
		Intent: model.Intent{Purpose: "p"}, Confidence: model.Confidence{Score: new(0.5), Reasoning: "r"},
		Relations: []model.Relation{{Type: model.RelContradicts, TargetID: unit}}}); err != nil {
		t.Fatal(err)
	}
	listening.WaitUpdated(mcpserver.InboxURI)
}
