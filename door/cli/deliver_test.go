package cli

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"arbiter/internal/pgtest"
	"arbiter/internal/testwait"
	"arbiter/model"
)

// receiverEnv starts the test binary as a Standard Webhooks receiver
// listening on its value (TestMain): it verifies each request by the
// specification with the secret in receiverSecretEnv and appends "ID
// NOTICE ok|bad" to the file in receiverLogEnv.
const (
	receiverEnv       = "ARBITER_TEST_RECEIVER"
	receiverSecretEnv = "ARBITER_TEST_RECEIVER_SECRET"
	receiverLogEnv    = "ARBITER_TEST_RECEIVER_LOG"
)

func runReceiver(addr string) int {
	secret, logPath := os.Getenv(receiverSecretEnv), os.Getenv(receiverLogEnv)
	log, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var mu sync.Mutex
	err = http.ListenAndServe(addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			Data struct {
				NoticeID int64 `json:"notice_id"`
			}
		}
		verdict := "bad"
		if specVerify(secret, r.Header, body) && json.Unmarshal(body, &msg) == nil {
			verdict = "ok"
		}
		mu.Lock()
		fmt.Fprintf(log, "%s %d %s\n", r.Header.Get("webhook-id"), msg.Data.NoticeID, verdict)
		mu.Unlock()
	}))
	fmt.Fprintln(os.Stderr, err)
	return 1
}

// specVerify is the Standard Webhooks verification, written from the
// specification: HMAC-SHA256 keyed by the base64 after whsec_ over
// "id.timestamp.body", "v1," and base64, within five minutes.
func specVerify(secret string, h http.Header, body []byte) bool {
	ts, err := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
	if err != nil || time.Since(time.Unix(ts, 0)).Abs() > 5*time.Minute || !strings.HasPrefix(secret, "whsec_") {
		return false
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.%s", h.Get("webhook-id"), ts, body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, s := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(s), []byte(want)) {
			return true
		}
	}
	return false
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// start starts a process that the test kills with SIGKILL at the end if
// it is still running.
func start(t *testing.T, env []string, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(cleanEnv(), env...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd
}

func kill9(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
}

// received reads the receiver's log: webhook-id → notice id, and how
// many requests did not verify.
func received(t *testing.T, path string) (map[string]int64, int) {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return map[string]int64{}, 0
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, bad := map[string]int64{}, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.Fields(sc.Text())
		if len(parts) != 3 || parts[2] != "ok" {
			bad++
			continue
		}
		n, _ := strconv.ParseInt(parts[1], 10, 64)
		got[parts[0]] = n
	}
	return got, bad
}

func listDeliveries(t *testing.T, db string) []model.Delivery {
	t.Helper()
	var ds []model.Delivery
	if err := json.Unmarshal([]byte(ok(t, "--db", db, "deliveries", "--json", "--limit", "0")), &ds); err != nil {
		t.Fatal(err)
	}
	return ds
}

// until waits for cond (testwait.For: a guard against hanging, not a
// measure of speed).
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testwait.For(t, what, cond)
}

// A receiver down, then up, and deliverers killed with SIGKILL at any
// moment: every notice to the hook's person arrives, signed, each
// delivery under one webhook-id however often it was tried.
// On a SQLite file and on PostgreSQL.
func TestEveryNoticeArrivesThroughAnOutageAndKilledDeliverers(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { noticesArrive(t, filepath.Join(t.TempDir(), "field.db")) })
	t.Run("postgres", func(t *testing.T) { noticesArrive(t, pgtest.Field(t)) })
}

// noticesArrive is newField and fieldWithConflict on the field db,
// then the outage, the killed deliverers, and what arrived.
func noticesArrive(t *testing.T, db string) {
	ok(t, "init", "--db", db, "--quorum", "2", "--recusal=false")
	ok(t, "--db", db, "register", "--id", "ana", "--role", "analyst", "--authority", "6")
	ok(t, "--db", db, "register", "--id", "bob", "--role", "analyst")
	ok(t, "--db", db, "register", "--id", "op", "--role", "operator", "--kind", "human", "--authority", "10")
	record(t, db, "ana", recordPayload("p99 is 40 ms", 0.9, ""))
	record(t, db, "bob", recordPayload("p99 is 90 ms", 0.6, "mem-001"))
	earlier := map[int64]bool{} // notices from before the hook: not delivered
	for _, n := range listInbox(t, db, "ana") {
		earlier[n.ID] = true
	}
	addr := freeAddr(t)
	out := ok(t, "--db", db, "--as", "op", "hooks", "add", "--for", "ana", "--url", "http://"+addr+"/hook", "--allow-private")
	i := strings.LastIndex(out, "whsec_")
	secret := strings.Fields(out[i:])[0]
	logPath := filepath.Join(t.TempDir(), "received.log")
	notices := func(n int) {
		for k := 0; k < n; k++ {
			id := strings.Fields(record(t, db, "ana", recordPayload(fmt.Sprintf("p95 is %d ms", 30+k), 0.8, "")))[1]
			record(t, db, "bob", recordPayload(fmt.Sprintf("p95 is %d ms", 90+k), 0.5, id)) // ana is told of the conflict
		}
	}
	deliverer := func() *exec.Cmd { return start(t, nil, bin, "--db", db, "deliver", "--lease", "2s") }

	// The receiver is down: the deliverer's tries are refused; it is
	// killed while it retries.
	a := deliverer()
	notices(3)
	until(t, "a refused try", func() bool {
		for _, d := range listDeliveries(t, db) {
			if d.Attempts > 0 {
				return true
			}
		}
		return false
	})
	kill9(t, a)

	// The receiver comes up; another deliverer starts, more notices come,
	// and it is killed as soon as something arrived.
	start(t, []string{receiverEnv + "=" + addr, receiverSecretEnv + "=" + secret, receiverLogEnv + "=" + logPath}, os.Args[0])
	b := deliverer()
	notices(3)
	until(t, "a first delivery", func() bool { got, _ := received(t, logPath); return len(got) > 0 })
	kill9(t, b)
	ok(t, "--db", db, "merge", "--as", "ana", "conflict-001", "--strategy", "dismiss", "--rationale", "different hosts")

	// A third one finishes the work.
	deliverer()
	var ds []model.Delivery
	until(t, "every delivery delivered", func() bool {
		ds = listDeliveries(t, db)
		for _, d := range ds {
			if d.State != model.DeliveryDelivered {
				return false
			}
		}
		return true
	})
	got, bad := received(t, logPath)
	if bad > 0 {
		t.Errorf("%d requests did not verify", bad)
	}
	want := map[int64]bool{}
	for _, n := range listInbox(t, db, "ana") {
		if !earlier[n.ID] {
			want[n.ID] = true
		}
	}
	if len(ds) != len(want) || len(ds) < 7 {
		t.Fatalf("%d deliveries for %d notices to ana, want one each (and at least 7)", len(ds), len(want))
	}
	retried := false
	for _, d := range ds {
		retried = retried || d.Attempts > 1
		if n, ok := got[d.ID]; !ok || n != d.NotificationID || !want[n] {
			t.Errorf("delivery %s of notice %d: the receiver got %v (%d)", d.ID, d.NotificationID, ok, n)
		}
	}
	if !retried {
		t.Error("no delivery was tried more than once: the outage was not seen")
	}
}

func listInbox(t *testing.T, db, agent string) []model.Notification {
	t.Helper()
	var ns []model.Notification
	if err := json.Unmarshal([]byte(ok(t, "--db", db, "--as", agent, "inbox", "--json")), &ns); err != nil {
		t.Fatal(err)
	}
	return ns
}

func TestHooksAreAddedByAnOperatorAndShowTheirSecretOnce(t *testing.T) {
	db := newField(t)
	srv := freeAddr(t)
	url := "http://" + srv + "/h"
	r := arbiter(t, "--db", db, "--as", "op", "hooks", "add", "--for", "ana", "--url", url)
	wantLine(t, "hooks add", r, 2, []string{"--allow-private"}, "whsec_")
	r = arbiter(t, "--db", db, "--as", "op", "hooks", "add", "--for", "ana", "--url", "ftp://example.com/x")
	wantExit(t, r, 2)
	r = arbiter(t, "--db", db, "--as", "ana", "hooks", "add", "--for", "ana", "--url", url, "--allow-private")
	wantLine(t, "hooks add", r, 3, []string{"human operator"}, "whsec_")
	r = arbiter(t, "--db", db, "--as", "op", "hooks", "add", "--for", "nobody", "--url", url, "--allow-private")
	wantExit(t, r, 3)
	r = arbiter(t, "--db", db, "--as", "op", "hooks", "add", "--for", "ana", "--url", url, "--allow-private", "--events", "conflict.nope")
	wantLine(t, "hooks add --events", r, 2, []string{"conflict.nope"}, "whsec_")
	r = arbiter(t, "--db", db, "--as", "op", "hooks", "add", "--for", "ana", "--url", url, "--allow-private", "--format", "teams")
	wantLine(t, "hooks add --format", r, 2, []string{"standard or slack"}, "whsec_")
	wantExit(t, arbiter(t, "--db", db, "--as", "op", "deliveries", "retry"), 2)
	wantExit(t, arbiter(t, "--db", db, "--as", "op", "deliveries", "retry", "msg_x", "--all"), 2)
	wantLine(t, "deliveries retry", arbiter(t, "--db", db, "--as", "op", "deliveries", "retry", "msg_x"), 2, []string{"no dead delivery"})
	if got := ok(t, "--db", db, "--as", "op", "deliveries", "retry", "--all"); !strings.Contains(got, "0 queued again") {
		t.Errorf("retry --all with nothing dead: %q", got)
	}
	out := ok(t, "--db", db, "--as", "op", "hooks", "add", "--for", "ana", "--url", url, "--allow-private", "--format", "slack",
		"--events", "conflict.escalated,conflict.reminder")
	secret := strings.Fields(out[strings.LastIndex(out, "whsec_"):])[0]
	list := ok(t, "--db", db, "hooks", "list")
	asJSON := ok(t, "--db", db, "hooks", "list", "--json")
	for _, o := range []string{list, asJSON} {
		if strings.Contains(o, secret) || !strings.Contains(o, secret[:10]) || !strings.Contains(o, "conflict.reminder") {
			t.Errorf("hooks list shows the secret, or not its prefix or events:\n%s", o)
		}
	}
	var hooks []struct{ ID string }
	if err := json.Unmarshal([]byte(asJSON), &hooks); err != nil || len(hooks) != 1 {
		t.Fatalf("hooks list --json: %s (%v)", asJSON, err)
	}
	ok(t, "--db", db, "--as", "op", "hooks", "remove", hooks[0].ID)
	wantExit(t, arbiter(t, "--db", db, "--as", "op", "hooks", "remove", hooks[0].ID), 2)
	if strings.Contains(ok(t, "--db", db, "hooks", "list"), hooks[0].ID) {
		t.Error("a removed hook is listed")
	}
}
