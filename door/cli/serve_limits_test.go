package cli

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"arbiter/door/mcpserver"
	"arbiter/door/mcpserver/mcptest"
)

// The limits of `arbiter serve --http` as a real process, against real
// sockets: what idle, trickling or uninitialized clients can hold, and
// that each refusal is a line of the log.

// initializeAs sends an initialize with token and returns the status and
// the session id.
func initializeAs(t *testing.T, url, token string) (int, string) {
	t.Helper()
	resp, _ := rawMCP(t, http.MethodPost, url, map[string]string{"Authorization": "Bearer " + token}, initializeLegacy)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
}

// Every session counts from its initialize, initialized or not, against
// caps that hold under 40 initializes at once, per agent and in all; a
// session never initialized is closed after 10 s; revoking a token ends
// its sessions, initialized or not. Before, only initialized sessions
// were counted (40 initializes with --max-mcp 3 made 40 sessions), one
// agent could take every place, and an uninitialized session outlived its
// token.
func TestServeCountsEveryMCPSessionFromInitialize(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	ok(t, "init", "--db", db, "--demo")
	ana := strings.TrimSpace(ok(t, "--db", db, "--as", "ops-maya", "tokens", "issue", "ana-quill"))
	wren := strings.TrimSpace(ok(t, "--db", db, "--as", "ops-maya", "tokens", "issue", "data-wren"))
	srv := serveField(t, db, "--http", "127.0.0.1:0", "--max-mcp", "3", "--max-mcp-per-agent", "2")
	url := "http://" + srv.httpAddr + "/mcp"

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		sessions []string
		refused  int
	)
	for range 40 {
		wg.Go(func() {
			code, id := initializeAs(t, url, ana)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case code == http.StatusOK && id != "":
				sessions = append(sessions, id)
			case code == http.StatusServiceUnavailable:
				refused++
			default:
				t.Errorf("an initialize: %d", code)
			}
		})
	}
	wg.Wait()
	if len(sessions) != 2 || refused != 38 {
		t.Fatalf("40 initializes of one agent with --max-mcp-per-agent 2: %d sessions, %d refused", len(sessions), refused)
	}
	if code, _ := initializeAs(t, url, wren); code != http.StatusOK {
		t.Fatalf("another agent, while one holds 2 of 3: %d", code)
	}
	if code, _ := initializeAs(t, url, wren); code != http.StatusServiceUnavailable {
		t.Fatalf("a fourth session with --max-mcp 3: %d", code)
	}
	until(t, "the refusals in the log", func() bool {
		log := srv.logText()
		return strings.Contains(log, `refused POST "ana-quill" from 127.0.0.1:`) && strings.Contains(log, "--max-mcp-per-agent") &&
			strings.Contains(log, `refused POST "data-wren" from 127.0.0.1:`) && strings.Contains(log, "(--max-mcp)")
	})

	// Never initialized: closed after 10 s, and the places are free again.
	start := time.Now()
	until(t, "the uninitialized sessions closed", func() bool {
		resp, _ := rawMCP(t, http.MethodPost, url, map[string]string{"Authorization": "Bearer " + ana, "Mcp-Session-Id": sessions[0],
			"Mcp-Protocol-Version": mcptest.Legacy}, `{"jsonrpc":"2.0","id":7,"method":"ping"}`)
		return resp.StatusCode == http.StatusNotFound
	})
	t.Logf("an uninitialized session closed %v after the test began waiting", time.Since(start).Round(100*time.Millisecond))
	until(t, "the places of the closed sessions", func() bool { c, _ := initializeAs(t, url, ana); return c == http.StatusOK })

	// A revoked token: its sessions end, initialized (listening on a
	// stream) or not.
	_, listening := initializeAs(t, url, ana)
	in := map[string]string{"Authorization": "Bearer " + ana, "Mcp-Session-Id": listening, "Mcp-Protocol-Version": mcptest.Legacy}
	rawMCP(t, http.MethodPost, url, in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range in {
		req.Header.Set(k, v)
	}
	stream, err := http.DefaultClient.Do(req)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("the listening stream: %v %v", stream, err)
	}
	ended := make(chan time.Time, 1)
	go func() {
		io.Copy(io.Discard, stream.Body)
		ended <- time.Now()
	}()
	ok(t, "--db", db, "--as", "ops-maya", "tokens", "revoke", "ana-quill")
	revoked := time.Now()
	select {
	case at := <-ended:
		t.Logf("the revoked token's stream ended %v after the revoke returned", at.Sub(revoked).Round(10*time.Millisecond))
	case <-time.After(time.Minute):
		t.Fatal("the revoked token's stream still open after a minute")
	}
	until(t, "both of the revoked token's sessions closed", func() bool {
		return strings.Count(srv.logText(), `mcp: session of "ana-quill" from 127.0.0.1:`) >= 4 &&
			strings.Count(srv.logText(), "closed as its token was revoked") == 2
	})
	if strings.Contains(srv.logText(), ana) || strings.Contains(srv.logText(), wren) {
		t.Error("a token reached the log")
	}
}

// A flood of refusals is a line a second once its first 20 are written,
// and the lines held back are counted in the log.
func TestServeHoldsBackAFloodOfRefusalsInTheLog(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	ok(t, "init", "--db", db, "--demo")
	srv := serveField(t, db, "--http", "127.0.0.1:0")
	url := "http://" + srv.httpAddr + "/mcp"
	for range 300 {
		rawMCP(t, http.MethodPost, url, map[string]string{"Authorization": "Bearer arb_wrong"}, initializeLegacy)
	}
	until(t, "the count of lines held back", func() bool { return strings.Contains(srv.logText(), "held back") })
	if n := strings.Count(srv.logText(), "refused POST"); n < 20 || n > 60 {
		t.Errorf("300 refusals made %d lines:\n%s", n, srv.logText())
	}
}

// openFiles is how many files process pid holds open.
func openFiles(t *testing.T, pid int) int {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Skip("no /proc")
	}
	return len(fds)
}

// dialFrom opens a connection to addr from the loopback address ip.
func dialFrom(ip, addr string) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 30 * time.Second}
	return d.Dial("tcp", addr)
}

// 2,000 idle or trickling sockets from other addresses cost the server
// nothing that matters: it answers /healthz and an agent as they are
// open, holds no more than its cap from one address (answering the rest
// 503), answers a POST without a token at once even as its body
// trickles, and closes the idle ones (a request's headers have 10 s, an
// idle keep-alive connection 60 s). Before, nothing timed out, nothing
// was capped, a trickling POST without a token got no answer, and about
// 1,000 idle sockets exhausted the files the process may open.
func TestServeHoldsIdleAndTricklingSocketsCheaply(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	ok(t, "init", "--db", db, "--demo")
	token := strings.TrimSpace(ok(t, "--db", db, "--as", "ops-maya", "tokens", "issue", "ana-quill"))
	srv := serveField(t, db, "--http", "127.0.0.1:0")
	pid := srv.cmd.Process.Pid
	base := openFiles(t, pid)
	if c, err := dialFrom("127.0.0.2", srv.httpAddr); err != nil {
		t.Skipf("cannot connect from 127.0.0.2: %v", err)
	} else {
		c.Close()
	}

	// A keep-alive connection left idle after a request.
	keep, err := net.Dial("tcp", srv.httpAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer keep.Close()
	fmt.Fprintf(keep, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	kr := bufio.NewReader(keep)
	if resp, err := http.ReadResponse(kr, nil); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz on a keep-alive connection: %v %v", resp, err)
	} else {
		io.Copy(io.Discard, resp.Body)
	}
	keepClosed := make(chan time.Time, 1)
	go func() {
		kr.ReadByte() // returns when the server closes it
		keepClosed <- time.Now()
	}()
	keptAt := time.Now()

	// A POST without a token whose body trickles: 401 at once.
	trickle, err := net.Dial("tcp", srv.httpAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer trickle.Close()
	fmt.Fprintf(trickle, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"")
	trickle.SetReadDeadline(time.Now().Add(30 * time.Second))
	if line, err := bufio.NewReader(trickle).ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 401") {
		t.Fatalf("a trickling POST without a token: %q %v", line, err)
	}

	// 2,000 sockets from eight addresses, 250 each (the cap is 256):
	// half send nothing, half the start of a request's headers.
	var socks []net.Conn
	defer func() {
		for _, c := range socks {
			c.Close()
		}
	}()
	for i := range 2000 {
		c, err := dialFrom(fmt.Sprintf("127.0.0.%d", 2+i/250), srv.httpAddr)
		if err != nil {
			t.Fatalf("socket %d: %v", i, err)
		}
		if i%2 == 1 {
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: x\r\nX-Trickle: ")
		}
		socks = append(socks, c)
	}
	until(t, "the server holding 2,000 sockets", func() bool { return openFiles(t, pid) >= base+2000 })
	// As they are open: /healthz and an agent are answered.
	resp, _ := rawMCP(t, http.MethodGet, "http://"+srv.httpAddr+"/healthz", nil, "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz beside 2,000 idle sockets: %s", resp.Status)
	}
	agent := mcpOverHTTP(t, "http://"+srv.httpAddr+"/mcp", token)
	if r := agent.Call(mcpserver.ToolInbox, map[string]any{}); r.IsError {
		t.Fatalf("an agent beside 2,000 idle sockets: %s", mcptest.Text(r))
	}

	// One address more than its cap: 256 held, the rest answered 503.
	var more []net.Conn
	for range 300 {
		c, err := dialFrom("127.0.0.10", srv.httpAddr)
		if err != nil {
			t.Fatal(err)
		}
		socks = append(socks, c)
		more = append(more, c)
	}
	var (
		busy  int
		count sync.Mutex
		reads sync.WaitGroup
	)
	by := time.Now().Add(5 * time.Second) // well within the headers' 10 s
	for _, c := range more {
		reads.Go(func() {
			c.SetReadDeadline(by)
			if line, _ := bufio.NewReader(c).ReadString('\n'); strings.HasPrefix(line, "HTTP/1.1 503") {
				count.Lock()
				busy++
				count.Unlock()
			}
		})
	}
	reads.Wait()
	if busy != 300-256 {
		t.Errorf("300 connections from one address: %d answered 503, want %d", busy, 300-256)
	}
	until(t, "the refused connections in the log", func() bool {
		return strings.Contains(srv.logText(), "refused a connection from 127.0.0.10:") && strings.Contains(srv.logText(), "--max-conns-per-addr")
	})

	// The server lets go of them: headers have 10 s.
	until(t, "the idle sockets closed", func() bool { return openFiles(t, pid) < base+100 })
	select {
	case at := <-keepClosed:
		t.Logf("the idle keep-alive connection was closed after %v", at.Sub(keptAt).Round(time.Second))
	case <-time.After(2 * time.Minute):
		t.Fatal("an idle keep-alive connection still open after two minutes")
	}
	if r := agent.Call(mcpserver.ToolInbox, map[string]any{}); r.IsError {
		t.Fatalf("the agent after: %s", mcptest.Text(r))
	}
}

// Under a low limit of open files the cap on connections is fitted to it:
// sockets beyond it are answered 503 at once, the server never runs out
// of files (no "too many open files"), and it answers /healthz again once
// the idle sockets' time is up. Before, 1,000 idle sockets exhausted the
// files and /healthz went unanswered for as long as they were held.
func TestServeFitsItsConnectionsToTheFilesItMayOpen(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc")
	}
	db := filepath.Join(t.TempDir(), "demo.db")
	ok(t, "init", "--db", db, "--demo")
	args := []string{"--http", "127.0.0.1:0"}
	srv := serveCmd(t, exec.Command("sh", append([]string{"-c", `ulimit -n 512 && exec "$0" "$@"`, bin, "--db", db, "serve"}, args...)...), args)
	if c, err := dialFrom("127.0.0.2", srv.httpAddr); err != nil {
		t.Skipf("cannot connect from 127.0.0.2: %v", err)
	} else {
		c.Close()
	}
	until(t, "the cap fitted to the files in the log", func() bool { return strings.Contains(srv.logText(), "to fit the 512 files") })
	var socks []net.Conn
	defer func() {
		for _, c := range socks {
			c.Close()
		}
	}()
	for i := range 600 {
		c, err := dialFrom(fmt.Sprintf("127.0.0.%d", 2+i/200), srv.httpAddr)
		if err != nil {
			t.Fatalf("socket %d: %v", i, err)
		}
		socks = append(socks, c)
	}
	var (
		busy  int
		count sync.Mutex
		reads sync.WaitGroup
	)
	by := time.Now().Add(5 * time.Second)
	for _, c := range socks {
		reads.Go(func() {
			c.SetReadDeadline(by)
			if line, _ := bufio.NewReader(c).ReadString('\n'); strings.HasPrefix(line, "HTTP/1.1 503") {
				count.Lock()
				busy++
				count.Unlock()
			}
		})
	}
	reads.Wait()
	if busy == 0 {
		t.Error("600 sockets under a limit of 512 files: none answered 503")
	}
	until(t, "/healthz once the idle sockets' time is up", func() bool {
		resp, err := (&http.Client{Timeout: 5 * time.Second}).Get("http://" + srv.httpAddr + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	if strings.Contains(srv.logText(), "too many open files") {
		t.Errorf("the server ran out of files:\n%s", srv.logText())
	}
	t.Logf("%d of 600 sockets answered 503", busy)
}
