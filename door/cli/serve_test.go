package cli

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"arbiter/door/mcpserver/mcptest"
	"arbiter/internal/pgtest"
	"arbiter/model"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// served is `arbiter serve` running as a real process, its stderr read
// line by line.
type served struct {
	t         testing.TB
	cmd       *exec.Cmd
	sshAddr   string
	httpAddr  string
	mu        sync.Mutex
	log       []string
	done      chan struct{}
	exitCode  int
	exitAfter time.Duration
	stopAt    time.Time
}

var listenLine = regexp.MustCompile(`over (SSH on |MCP at http://)(127\.0\.0\.1:\d+)`)

// serveField starts arbiter serve on db with args and waits until it
// listens on what args ask for.
func serveField(t testing.TB, db string, args ...string) *served {
	t.Helper()
	return serveCmd(t, exec.Command(bin, append([]string{"--db", db, "serve"}, args...)...), args)
}

// serveCmd starts cmd, an arbiter serve given args, and waits until it
// listens on what args ask for.
func serveCmd(t testing.TB, cmd *exec.Cmd, args []string) *served {
	t.Helper()
	s := &served{t: t, done: make(chan struct{}), cmd: cmd}
	s.cmd.Env = cleanEnv()
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	want := strings.Count(strings.Join(args, " "), "--ssh") + strings.Count(strings.Join(args, " "), "--http")
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.log = append(s.log, line)
			if m := listenLine.FindStringSubmatch(line); m != nil {
				if m[1] == "SSH on " {
					s.sshAddr = m[2]
				} else {
					s.httpAddr = m[2]
				}
				if want--; want == 0 {
					close(ready)
				}
			}
			s.mu.Unlock()
		}
		err := s.cmd.Wait()
		s.exitCode = s.cmd.ProcessState.ExitCode()
		if !s.stopAt.IsZero() {
			s.exitAfter = time.Since(s.stopAt)
		}
		_ = err
		close(s.done)
	}()
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		<-s.done
	})
	select {
	case <-ready:
	case <-s.done:
		t.Fatalf("arbiter serve exited %d:\n%s", s.exitCode, s.logText())
	case <-time.After(30 * time.Second):
		t.Fatalf("arbiter serve never listened:\n%s", s.logText())
	}
	return s
}

func (s *served) logText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.log, "\n")
}

// stop sends SIGTERM and waits for the process to exit.
func (s *served) stop() {
	s.t.Helper()
	s.stopAt = time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.t.Fatal(err)
	}
	select {
	case <-s.done:
	case <-time.After(60 * time.Second):
		s.t.Fatalf("arbiter serve did not stop after SIGTERM:\n%s", s.logText())
	}
}

// sshKey makes a key pair in dir and returns the private key's file.
func sshKey(t *testing.T, dir, name string) string {
	t.Helper()
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("no OpenSSH client")
	}
	key := filepath.Join(dir, name)
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	return key
}

// sshArgs are the OpenSSH client's options for logging in to addr with
// key, trusting the host key on first use and remembering it in
// knownHosts.
func sshArgs(addr, key, knownHosts string, extra ...string) []string {
	host, port, _ := strings.Cut(addr, ":")
	args := []string{"-F", "/dev/null", "-o", "StrictHostKeyChecking=accept-new", "-o", "UserKnownHostsFile=" + knownHosts,
		"-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none", "-o", "BatchMode=yes", "-o", "HostKeyAlias=arbiter-serve-test", "-p", port}
	if key != "" {
		args = append(args, "-i", key)
	}
	return append(append(args, extra...), host)
}

// tmuxSSH logs in with the real OpenSSH client in a real terminal.
func tmuxSSH(t *testing.T, w, h int, args []string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	s := &tmuxSession{t: t, name: filepath.Join(t.TempDir(), "tmux.sock")}
	s.run("new-session", "-d", "-x", itoa(w), "-y", itoa(h), "env TERM=xterm-256color ssh -t "+strings.Join(args, " ")+"; sleep 600")
	t.Cleanup(func() { s.run("kill-server") })
	return s
}

// People log in by key with the real OpenSSH client and decide; what one
// decides shows in the other's screen; everything but a key-opened
// screen is refused; a stop tells them; the host key is kept.
func TestServeOverSSHWithTheRealClient(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "demo.db")
	ok(t, "init", "--db", db, "--demo")
	maya, priya, stranger := sshKey(t, dir, "maya"), sshKey(t, dir, "priya"), sshKey(t, dir, "stranger")
	ok(t, "--db", db, "--as", "ops-maya", "keys", "add", "ops-maya", maya+".pub")
	ok(t, "--db", db, "--as", "ops-maya", "keys", "add", "lead-priya", priya+".pub")
	known, hostKey := filepath.Join(dir, "known_hosts"), filepath.Join(dir, "host_key")
	srv := serveField(t, db, "--ssh", "127.0.0.1:0", "--host-key", hostKey)

	refused := func(what string, args []string, want string) {
		t.Helper()
		out, err := exec.Command("ssh", args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("%s: %v, %q; want a refusal saying %q", what, err, out, want)
		}
	}
	refused("an unknown key", append(sshArgs(srv.sshAddr, stranger, known), "true"), "Permission denied (publickey)")
	refused("no key: password and keyboard-interactive", append(sshArgs(srv.sshAddr, "", known,
		"-o", "PubkeyAuthentication=no", "-o", "PreferredAuthentications=password,keyboard-interactive"), "true"), "Permission denied (publickey)")
	// A command is answered in one line on stderr, with exit status 1.
	for _, extra := range [][]string{nil, {"-tt", "-q"}} {
		cmd := exec.Command("ssh", append(sshArgs(srv.sshAddr, maya, known, extra...), "cat", "/etc/passwd")...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(stderr.String(), "\r", "")), "\n")
		if cmd.ProcessState.ExitCode() != 1 || stdout.Len() != 0 || len(lines) != 1 ||
			!strings.HasPrefix(lines[0], "arbiter serves only the review screen") || !strings.Contains(lines[0], "ssh -t -p ") {
			t.Errorf("a command (ssh %v): %v, exit %d, stdout %q, stderr %q; want one line saying arbiter serves only the screen",
				extra, err, cmd.ProcessState.ExitCode(), stdout.String(), stderr.String())
		}
	}
	refused("a subsystem", append(sshArgs(srv.sshAddr, maya, known, "-s"), "sftp"), "subsystem request failed")
	refused("a port forward", sshArgs(srv.sshAddr, maya, known, "-W", "127.0.0.1:22"), "open failed")
	if !strings.Contains(srv.logText(), "refused key SHA256:") {
		t.Errorf("the refusal of an unknown key is not logged:\n%s", srv.logText())
	}

	lead := tmuxSSH(t, 150, 40, sshArgs(srv.sshAddr, priya, known))
	lead.waitFor("as lead-priya", "escalated 5")
	op := tmuxSSH(t, 150, 40, sshArgs(srv.sshAddr, maya, known))
	op.waitFor("as ops-maya", "▸ conflict-008", "escalated 5")
	op.send("Enter")
	op.waitFor("A mem-023", "B mem-026")
	op.send("d")
	op.waitFor("Decide conflict-008")
	op.send("Down")
	op.waitFor("▸ confidence_weighted")
	op.send("Tab", "Tab")
	op.typeText("Fourteen nightly runs outweigh a one-day re-run.")
	op.send("C-s")
	op.waitFor("Write this decision?")
	op.send("y")
	op.waitFor("Written.")
	lead.waitFor("escalated 4") // the other session sees it, live
	if d := showJSON(t, db, "conflict-008"); d.Conflict.Status != model.StatusResolved || d.Conflict.Resolution.ResolvedBy != "ops-maya" {
		t.Fatalf("after the decision over SSH: %+v", d.Conflict)
	}

	// A window change reaches the screen.
	lead.run("resize-window", "-x", "120", "-y", "36")
	lead.waitFor("arbiter")

	// A vote still in its undo window when the server stops is written.
	voteBOn016(lead)
	lead.waitFor("written in")
	srv.stop()
	if srv.exitCode != 0 {
		t.Errorf("serve exited %d after SIGTERM:\n%s", srv.exitCode, srv.logText())
	}
	t.Logf("serve stopped %v after SIGTERM with two screens open", srv.exitAfter)
	lead.waitFor("arbiter is stopping")
	if d := showJSON(t, db, "conflict-016"); len(d.Ballots) != 1 || d.Ballots[0].VoterID != "lead-priya" {
		t.Errorf("the vote in its undo window at the stop: ballots %+v", d.Ballots)
	}

	// The host key is kept: the client that trusted it trusts the next run.
	key1, _ := os.ReadFile(hostKey)
	again := serveField(t, db, "--ssh", "127.0.0.1:0", "--host-key", hostKey)
	key2, _ := os.ReadFile(hostKey)
	if len(key1) == 0 || string(key1) != string(key2) {
		t.Fatal("the host key changed between runs")
	}
	strict := append([]string{"-o", "StrictHostKeyChecking=yes"}, append(sshArgs(again.sshAddr, stranger, known), "true")...)
	out, _ := exec.Command("ssh", strict...).CombinedOutput()
	if strings.Contains(string(out), "Host key verification failed") || !strings.Contains(string(out), "Permission denied") {
		t.Errorf("the second run's host key: %s", out)
	}
}

// Agents over HTTP: /healthz, a token's session, SIGTERM with sessions
// open ends the process with 0; the token never reaches the log.
func TestServeOverHTTPStopsCleanlyAndNeverLogsTokens(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "demo.db")
	ok(t, "init", "--db", db, "--demo")
	token := strings.TrimSpace(ok(t, "--db", db, "--as", "ops-maya", "tokens", "issue", "ana-quill"))
	if !strings.HasPrefix(token, "arb_") {
		t.Fatalf("tokens issue printed %q", token)
	}
	listed := ok(t, "--db", db, "tokens", "list")
	if strings.Contains(listed, token) || !strings.Contains(listed, token[:12]) {
		t.Errorf("tokens list shows %q", listed)
	}
	srv := serveField(t, db, "--http", "127.0.0.1:0")
	resp, err := http.Get("http://" + srv.httpAddr + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %v %v", resp, err)
	}
	resp.Body.Close()
	c := mcpOverHTTP(t, "http://"+srv.httpAddr+"/mcp", token)
	if res := c.Call("inbox", map[string]any{}); res.IsError {
		t.Fatalf("inbox over HTTP refused")
	}
	req, _ := http.NewRequest(http.MethodPost, "http://"+srv.httpAddr+"/mcp", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+token+"x")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token: %v %v", resp, err)
	}
	srv.stop()
	if srv.exitCode != 0 {
		t.Errorf("serve exited %d after SIGTERM:\n%s", srv.exitCode, srv.logText())
	}
	t.Logf("serve stopped %v after SIGTERM with an MCP session open", srv.exitAfter)
	if strings.Contains(srv.logText(), token) || strings.Contains(srv.logText(), token[12:]) {
		t.Errorf("the token reached the log:\n%s", srv.logText())
	}
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func mcpOverHTTP(t *testing.T, url, token string) *mcptest.Client {
	t.Helper()
	return mcptest.Connect(t, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: httpClient(token)},
		mcptest.Options{ProtocolVersion: mcptest.Legacy})
}

func httpClient(token string) *http.Client { return &http.Client{Transport: bearer{token}} }

// keys and tokens on the command line: who may, what is refused, and the
// token shown once.
func TestKeysAndTokensCommands(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "demo.db")
	ok(t, "init", "--db", db, "--demo")
	key := sshKey(t, dir, "priya")
	wantLine(t, "a lead adds a key", arbiter(t, "--db", db, "--as", "lead-kenji", "keys", "add", "lead-priya", key+".pub"),
		3, []string{"NOT_PERMITTED", "only a human operator"})
	wantLine(t, "a key for an agent", arbiter(t, "--db", db, "--as", "ops-maya", "keys", "add", "ana-quill", key+".pub"),
		2, []string{"ana-quill is an agent", "tokens issue"})
	wantLine(t, "not a key", arbiter(t, "--db", db, "--as", "ops-maya", "keys", "add", "lead-priya", db),
		2, []string{"holds no public key"})
	out := ok(t, "--db", db, "--as", "ops-maya", "keys", "add", "lead-priya", key+".pub")
	if !strings.Contains(out, "lead-priya may log in over SSH with SHA256:") {
		t.Errorf("keys add: %q", out)
	}
	wantLine(t, "the same key again", arbiter(t, "--db", db, "--as", "ops-maya", "keys", "add", "ops-maya", key+".pub"),
		2, []string{"already lead-priya's"})
	if list := ok(t, "--db", db, "keys", "list"); !strings.Contains(list, "lead-priya") || !strings.Contains(list, "priya") {
		t.Errorf("keys list: %q", list)
	}

	wantLine(t, "a token for a person", arbiter(t, "--db", db, "--as", "ops-maya", "tokens", "issue", "lead-priya"),
		2, []string{"lead-priya is a person", "keys add"})
	r := arbiter(t, "--db", db, "--as", "ops-maya", "tokens", "issue", "ana-quill")
	token := strings.TrimSpace(r.stdout)
	if r.code != 0 || !strings.HasPrefix(token, "arb_") || strings.Contains(r.stderr, token) || !strings.Contains(r.stderr, token[:12]) {
		t.Fatalf("tokens issue: %d %q %q", r.code, r.stdout, r.stderr)
	}
	// A whole token given to revoke is cut to its prefix: never echoed.
	r = arbiter(t, "--db", db, "--as", "ops-maya", "tokens", "revoke", token)
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, token) || !strings.Contains(r.stdout, "revoked 1 token") {
		t.Errorf("tokens revoke TOKEN: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if list := ok(t, "--db", db, "tokens", "list"); !strings.Contains(list, "No tokens") {
		t.Errorf("tokens list after revoke: %q", list)
	}
	wantLine(t, "serve without an address", arbiter(t, "--db", db, "serve"), 2, []string{"--ssh ADDR, --http ADDR"})
}

// One session more than --max-ssh is told so and closed; a session left
// idle for --idle-timeout is closed.
func TestServeCapsSessionsAndClosesIdleOnes(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "demo.db")
	ok(t, "init", "--db", db, "--demo")
	priya := sshKey(t, dir, "priya")
	ok(t, "--db", db, "--as", "ops-maya", "keys", "add", "lead-priya", priya+".pub")
	known := filepath.Join(dir, "known_hosts")
	srv := serveField(t, db, "--ssh", "127.0.0.1:0", "--host-key", filepath.Join(dir, "host_key"), "--max-ssh", "1", "--idle-timeout", "3s")
	first := tmuxSSH(t, 120, 30, sshArgs(srv.sshAddr, priya, known))
	first.waitFor("as lead-priya")
	second := tmuxSSH(t, 120, 30, sshArgs(srv.sshAddr, priya, known))
	second.waitFor("too many sessions are open")
	// Nobody types: the first session is closed, and then a new one fits.
	first.waitFor("closed")
	third := tmuxSSH(t, 120, 30, sshArgs(srv.sshAddr, priya, known))
	third.waitFor("as lead-priya")
}

// The official TypeScript SDK's client, an agent's MCP client nobody here
// wrote, against arbiter serve: tools listed, a record as the token's
// agent, a refusal, search, paging, a private inbox, prompts refused.
// ARBITER_TEST_MCP_TS names a directory whose node_modules holds
// @modelcontextprotocol/sdk (npm install @modelcontextprotocol/sdk);
// without it the test is skipped.
func TestServeWithTheTypeScriptSDK(t *testing.T) {
	modules := os.Getenv("ARBITER_TEST_MCP_TS")
	node, err := exec.LookPath("node")
	if modules == "" || err != nil {
		t.Skip("set ARBITER_TEST_MCP_TS to a directory with node_modules/@modelcontextprotocol/sdk, and have node")
	}
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(modules, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "mcp-ts-client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "client.mjs"), script, 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "demo.db")
	ok(t, "init", "--db", db, "--demo")
	token := strings.TrimSpace(ok(t, "--db", db, "--as", "ops-maya", "tokens", "issue", "ana-quill"))
	srv := serveField(t, db, "--http", "127.0.0.1:0")
	cmd := exec.Command(node, "client.mjs", "http://"+srv.httpAddr+"/mcp", token)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the TypeScript client: %v\n%s", err, out)
	}
	total := showCount(t, db)
	for _, want := range []string{
		"tools conflict,conflicts,inbox,merge,record,search,unit,vote",
		"refusal true CONFLICT_NOT_FOUND",
		"search mem-",
		":ana-quill",
		"paged " + strconv.Itoa(total),
		"inbox private",
		"prompts -32601",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the TypeScript client did not say %q:\n%s", want, out)
		}
	}
}

// showCount is how many conflicts the field holds.
func showCount(t *testing.T, db string) int {
	t.Helper()
	var rows []model.ConflictSummary
	if err := json.Unmarshal([]byte(ok(t, "--db", db, "list", "--status", "all", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

// arbiter serve sends the field's notices to their hooks while it runs,
// as arbiter deliver would: a decision's notice reaches a real receiver,
// signed, and its slack-free body names the conflict.
func TestServeDeliversNoticesToHooks(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "demo.db")
	ok(t, "init", "--db", db, "--demo")
	type hit struct{ id, body string }
	hits := make(chan hit, 16)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		hits <- hit{r.Header.Get("webhook-id"), string(body)}
	}))
	defer recv.Close()
	ok(t, "--db", db, "--as", "ops-maya", "hooks", "add", "--for", "ana-quill", "--url", recv.URL+"/hook", "--allow-private")
	srv := serveField(t, db, "--http", "127.0.0.1:0")
	defer srv.stop()
	ok(t, "--db", db, "--as", "ops-maya", "merge", "conflict-008", "--strategy", "dismiss", "--rationale", "two payment classes")
	select {
	case h := <-hits:
		if h.id == "" || !strings.Contains(h.body, "conflict-008") || !strings.Contains(h.body, "two payment classes") {
			t.Fatalf("the hook got webhook-id %q and body %s", h.id, h.body)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no notice reached the hook while serve ran:\n%s", srv.logText())
	}
	ds := listDeliveries(t, db)
	if len(ds) == 0 {
		t.Fatal("no delivery recorded")
	}
}

// Behind a pooler without listen_db the field cannot tell of changes:
// serve says once that screens and agents hear of them within 2 s.
func TestServeSaysItPollsBehindAPooler(t *testing.T) {
	direct := pgtest.Field(t)
	pooled := pgtest.Pooler(t, direct)
	ok(t, "init", "--db", direct, "--demo")
	srv := serveField(t, pooled, "--http", "127.0.0.1:0")
	until(t, "the polling line", func() bool { return strings.Contains(srv.logText(), "within 2 s, not at once") })
	srv.stop()
	if srv.exitCode != 0 {
		t.Errorf("serve exited %d:\n%s", srv.exitCode, srv.logText())
	}
}
