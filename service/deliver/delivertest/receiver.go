// Package delivertest gives the tests of hooks what real receivers are:
// a webhook receiver in a process of its own, answering as a plan says
// (slowly, never, 429 with Retry-After, 410 ...), and a DNS server whose
// answers the test changes. Tests of service/deliver and door/cli use
// it.
package delivertest

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
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The environment that starts a test binary as a receiver (Main).
const (
	envListen = "ARBITER_TEST_HOOK_RECEIVER"
	envPlan   = "ARBITER_TEST_HOOK_PLAN"
	envLog    = "ARBITER_TEST_HOOK_LOG"
	envSecret = "ARBITER_TEST_HOOK_SECRET_FILE"
)

// Main runs this process as a receiver, and exits, if it was started as
// one (Start); otherwise it returns at once. Call it first in TestMain.
func Main() {
	if addr := os.Getenv(envListen); addr != "" {
		os.Exit(serve(addr, strings.Fields(os.Getenv(envPlan)), os.Getenv(envLog), os.Getenv(envSecret)))
	}
}

// A plan is the answers a receiver gives, one per request in the order
// they come, then 200 to the rest; an answer ending in "..." is given to
// every request from then on. An answer is a status ("503"), a status
// and a Retry-After ("429:30" or "503:Wed, 21 Oct 2037 07:28:00 GMT" with
// the spaces as "_"), "hang" (never answer: the connection stays open
// until the sender gives up), or "wait=5s" (a 200 after that long).
type Plan []string

// Request is one request a receiver got: when it arrived, its
// webhook-id and notice id, and whether its signature verified with the
// secret (false when no secret was given).
type Request struct {
	At       time.Time `json:"at"`
	ID       string    `json:"id"`
	Notice   int64     `json:"notice"`
	Verified bool      `json:"verified"`
	Answer   string    `json:"answer"`
}

// Receiver is a webhook receiver running in a process of its own.
type Receiver struct {
	// URL is where it listens, with the path /hook.
	URL        string
	Addr       string
	log        string
	secretFile string
	cmd        *exec.Cmd
}

// Start starts a receiver answering as plan says: the test binary
// (os.Args[0], whose TestMain calls Main) started again. It returns once
// the receiver listens; the test ends it.
func Start(t testing.TB, plan ...string) *Receiver {
	t.Helper()
	dir := t.TempDir()
	r := &Receiver{log: dir + "/requests.jsonl", secretFile: dir + "/secret"}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envListen+"=127.0.0.1:0", envPlan+"="+strings.Join(plan, " "), envLog+"="+r.log,
		envSecret+"="+r.secretFile)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.cmd = cmd
	t.Cleanup(r.Stop)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening ") {
		t.Fatalf("the receiver did not start: %q (%v)", line, err)
	}
	r.Addr = strings.TrimSpace(strings.TrimPrefix(line, "listening "))
	r.URL = "http://" + r.Addr + "/hook"
	return r
}

// Port is the port the receiver listens on.
func (r *Receiver) Port() string {
	_, port, _ := net.SplitHostPort(r.Addr)
	return port
}

// Verify makes the receiver check each request's signature with secret
// from now on.
func (r *Receiver) Verify(t testing.TB, secret string) {
	t.Helper()
	if err := os.WriteFile(r.secretFile, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Stop kills the receiver, if it still runs.
func (r *Receiver) Stop() {
	if r.cmd.ProcessState == nil {
		r.cmd.Process.Kill()
		r.cmd.Wait()
	}
}

// Requests reads what the receiver got so far, in the order it came.
func (r *Receiver) Requests(t testing.TB) []Request {
	t.Helper()
	b, err := os.ReadFile(r.log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []Request
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var req Request
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			continue // a line being written
		}
		out = append(out, req)
	}
	return out
}

// IDs counts the requests per webhook-id.
func IDs(reqs []Request) map[string]int {
	out := map[string]int{}
	for _, r := range reqs {
		out[r.ID]++
	}
	return out
}

func serve(addr string, plan []string, logPath, secretFile string) int {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	log, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("listening %s\n", l.Addr())
	var mu sync.Mutex
	err = http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var msg struct {
			Data struct {
				NoticeID int64 `json:"notice_id"`
			}
		}
		json.Unmarshal(body, &msg)
		secret, _ := os.ReadFile(secretFile)
		mu.Lock()
		answer := "200"
		if len(plan) > 0 {
			answer = plan[0]
			if !strings.HasSuffix(answer, "...") {
				plan = plan[1:]
			}
		}
		line, _ := json.Marshal(Request{At: time.Now(), ID: req.Header.Get("webhook-id"), Notice: msg.Data.NoticeID,
			Verified: len(secret) > 0 && Verify(string(secret), req.Header, body, time.Now()), Answer: answer})
		log.Write(append(line, '\n'))
		mu.Unlock()
		answerWith(w, req, strings.TrimSuffix(answer, "..."))
	}))
	fmt.Fprintln(os.Stderr, err)
	return 1
}

func answerWith(w http.ResponseWriter, req *http.Request, answer string) {
	switch {
	case answer == "hang":
		<-req.Context().Done()
		return
	case strings.HasPrefix(answer, "wait="):
		d, _ := time.ParseDuration(strings.TrimPrefix(answer, "wait="))
		select {
		case <-req.Context().Done():
			return
		case <-time.After(d):
		}
		w.WriteHeader(http.StatusOK)
		return
	}
	code, after, _ := strings.Cut(answer, ":")
	status, err := strconv.Atoi(code)
	if err != nil {
		status = http.StatusInternalServerError
	}
	if after != "" {
		w.Header().Set("Retry-After", strings.ReplaceAll(after, "_", " "))
	}
	w.WriteHeader(status)
}

// Verify checks a Standard Webhooks request as the specification
// (standardwebhooks.com, "Verifying webhooks") says, written from it and
// not from the code that signs: HMAC-SHA256 keyed by the base64 after
// whsec_ over "id.timestamp.body", "v1," and base64, one of the
// space-separated signatures, the timestamp within five minutes of now.
func Verify(secret string, h http.Header, body []byte, now time.Time) bool {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if id == "" || err != nil || now.Sub(time.Unix(sec, 0)).Abs() > 5*time.Minute || !strings.HasPrefix(secret, "whsec_") {
		return false
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + string(body)))
	want := mac.Sum(nil)
	for _, s := range strings.Fields(sigs) {
		version, b64, ok := strings.Cut(s, ",")
		got, err := base64.StdEncoding.DecodeString(b64)
		if ok && version == "v1" && err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}
