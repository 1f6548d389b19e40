package cli

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"arbiter/door/mcpserver"
	"arbiter/door/mcpserver/mcptest"
	"arbiter/internal/pgtest"
	"arbiter/model"
)

// A field file deleted or replaced under a running arbiter: every
// process refuses to read or write it, loudly (FIELD_GONE), and serve's
// /healthz says 503. Nothing is accepted that a restart would lose.

const goneWords = "is no longer at its path: it was deleted or replaced; nothing was written"

// removeField deletes a SQLite field's file and its companions.
func removeField(t *testing.T, db string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(db + suffix); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// replaceField puts another field where db was, as a restore from a
// backup under a running server would.
func replaceField(t *testing.T, db string) {
	t.Helper()
	other := filepath.Join(t.TempDir(), "other.db")
	ok(t, "init", "--db", other, "--demo")
	removeField(t, db)
	if err := os.Rename(other, db); err != nil {
		t.Fatal(err)
	}
}

func healthz(t *testing.T, addr string) int {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestServeRefusesAgentsAndIsUnhealthyOnceTheFieldFileIsGone(t *testing.T) {
	for _, how := range []string{"deleted", "replaced", "made read-only"} {
		t.Run(strings.ReplaceAll(how, " ", "-"), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "demo.db")
			ok(t, "init", "--db", db, "--demo")
			token := strings.TrimSpace(ok(t, "--db", db, "--as", "ops-maya", "tokens", "issue", "ana-quill"))
			srv := serveField(t, db, "--http", "127.0.0.1:0")
			if code := healthz(t, srv.httpAddr); code != http.StatusOK {
				t.Fatalf("/healthz of a field in place: %d", code)
			}
			c := mcpOverHTTP(t, "http://"+srv.httpAddr+"/mcp", token)
			mcptest.Result[model.RecordResult](c, mcpserver.ToolRecord, jsonMap(t, recordPayload("p99 is 40 ms", 0.9, "")))
			switch how {
			case "deleted":
				removeField(t, db)
			case "replaced":
				replaceField(t, db)
			case "made read-only":
				if err := os.Chmod(db, 0o444); err != nil {
					t.Fatal(err)
				}
			}
			if code := healthz(t, srv.httpAddr); code != http.StatusServiceUnavailable {
				t.Fatalf("/healthz with the field file %s: %d, want 503", how, code)
			}
			until(t, "the log saying why /healthz is 503", func() bool { return strings.Contains(srv.logText(), "healthz: 503") })
			if how == "made read-only" {
				return // the open file still takes writes; a restart would open it read-only
			}
			// The token cannot be checked: the agent is told to try
			// later, the log says why.
			req, err := http.NewRequest(http.MethodPost, "http://"+srv.httpAddr+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "the field does not answer") ||
				strings.Contains(string(body), db) {
				t.Fatalf("an MCP request after the field file was %s: %d %s", how, resp.StatusCode, body)
			}
			until(t, "the log saying why the request was refused", func() bool {
				return strings.Contains(srv.logText(), "503, the field does not answer: FIELD_GONE")
			})
			if strings.Contains(srv.logText(), token) {
				t.Fatal("the log shows the token")
			}
			if _, err := os.Stat(db); how == "deleted" && !os.IsNotExist(err) {
				t.Errorf("something was made at the deleted field's path: %v", err)
			}
		})
	}
}

func TestServeIsUnhealthyWhilePostgreSQLIsDown(t *testing.T) {
	direct := pgtest.Field(t)
	ok(t, "init", "--db", direct, "--demo")
	proxy, through := newPGProxy(t, direct)
	viaProxy := pgtest.WithParam(through, "sslmode", "disable")
	srv := serveField(t, viaProxy, "--http", "127.0.0.1:0")
	if code := healthz(t, srv.httpAddr); code != http.StatusOK {
		t.Fatalf("/healthz with the server up: %d\n%s", code, srv.logText())
	}
	proxy.cut()
	if code := healthz(t, srv.httpAddr); code != http.StatusServiceUnavailable {
		t.Fatalf("/healthz with the server down: %d, want 503", code)
	}
}

func TestMCPOverStdioRefusesWritesOnceTheFieldFileIsGone(t *testing.T) {
	db := newField(t)
	ana := startMCP(t, db, "ana", mcptest.Legacy)
	mcptest.Result[model.RecordResult](ana.Client, mcpserver.ToolRecord, jsonMap(t, recordPayload("p99 is 40 ms", 0.9, "")))
	removeField(t, db)
	e := mcptest.Refusal(ana.Client, mcpserver.ToolRecord, jsonMap(t, recordPayload("p99 is 90 ms", 0.6, "")))
	if e.Code != model.CodeFieldGone || !strings.Contains(e.Message, goneWords) {
		t.Fatalf("a record after the field file was deleted: %+v", e)
	}
}

// A deliverer retrying a notice when the field file goes stops at its
// next write, saying why, instead of recording its tries in a file
// nobody will open again.
func TestDeliverStopsLoudlyOnceTheFieldFileIsGone(t *testing.T) {
	db := fieldWithConflict(t)
	ok(t, "--db", db, "--as", "op", "hooks", "add", "--for", "ana", "--url", "http://"+freeAddr(t)+"/hook", "--allow-private")
	cmd := exec.Command(bin, "--db", db, "deliver")
	cmd.Env = cleanEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	ok(t, "--db", db, "--as", "ana", "merge", "conflict-001", "--strategy", "dismiss", "--rationale", "different hosts")
	until(t, "a refused try", func() bool {
		for _, d := range listDeliveries(t, db) {
			if d.Attempts > 0 {
				return true
			}
		}
		return false
	})
	removeField(t, db)
	select {
	case <-exited:
	case <-time.After(time.Minute):
		t.Fatal("arbiter deliver goes on after its field file was deleted")
	}
	if code := cmd.ProcessState.ExitCode(); code != 3 || !strings.Contains(stderr.String(), "FIELD_GONE") || !strings.Contains(stderr.String(), goneWords) {
		t.Fatalf("arbiter deliver exited %d: %s", code, stderr.String())
	}
}

// A decision typed while the field file was in place and accepted after
// it went is not written, and the screen says so; the screen then says
// the file is gone, and a decision started after that is refused at once
// with the reason.
func TestTheScreenSaysNotWrittenOnceTheFieldFileIsGone(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	ok(t, "init", "--db", db, "--demo")
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config")}
	op := newTmux(t, 150, 40, env, "--db", db, "--as", "ops-maya")
	op.waitForFlat("▸ conflict-008")
	op.send("B")
	op.waitForFlat("Keep B conflict-008") // its plan read from the field
	op.typeText("Production numbers win.")
	op.waitForFlat("› Production numbers win.")
	removeField(t, db)
	op.send("Enter")
	// Whichever the field answers first, holding the decision or its dry
	// run: not written, and why, until a key is pressed.
	op.waitForFlat("Not written", "conflict-008: the field file", goneWords)
	op.waitForFlat("FIELD FILE GONE")
	op.send("A")
	disabled := "Deciding is disabled: the field file " + db + " " + goneWords
	op.waitForFlat(disabled)
	// The conflict cannot be read either: the screen says why, whole, and
	// a decision key there says it too rather than waiting for the read.
	op.send("Enter")
	op.waitForFlat("the field file " + db + " " + goneWords + " (restart arbiter on the field, restored from a backup if it was deleted)")
	op.waitGone("Deciding is disabled")
	op.send("d")
	op.waitForFlat(disabled)
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("something was made at the deleted field's path: %v", err)
	}
}
