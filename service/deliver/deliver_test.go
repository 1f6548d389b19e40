package deliver_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/deliver"
	"arbiter/service/deliver/delivertest"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/field"
)

// The tests run on SQLite, then again on PostgreSQL (reviewtest.Main).
// A test binary started by delivertest.Start is a receiver instead.
func TestMain(m *testing.M) {
	delivertest.Main()
	os.Exit(rt.Main(m))
}

// verify checks a Standard Webhooks request as the specification
// (standardwebhooks.com, "Verifying webhooks") says, written from it and
// not from the code that signs: the signed content is
// "{webhook-id}.{webhook-timestamp}.{body}", the key the base64 after
// whsec_, the signature "v1," and the base64 HMAC-SHA256, one of the
// space-separated signatures in the header, the timestamp within five
// minutes.
func verify(secret string, h http.Header, body []byte, now time.Time) bool {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return false
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || now.Sub(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return false
	}
	key, err := base64.StdEncoding.DecodeString(secret[len("whsec_"):])
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

func TestSignaturesVerifyByTheSpecification(t *testing.T) {
	secret := deliver.NewSecret()
	body := []byte(`{"type":"conflict.resolved"}`)
	now := time.Now()
	sig, err := deliver.Sign(secret, "msg_1", now, body)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set("webhook-id", "msg_1")
	h.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	h.Set("webhook-signature", "v1,bm90IGl0 "+sig)
	if !verify(secret, h, body, now) {
		t.Fatalf("signature %s does not verify", sig)
	}
	for name, change := range map[string]func(){
		"another body":   func() { body = []byte(`{"type":"conflict.reopened"}`) },
		"another id":     func() { h.Set("webhook-id", "msg_2") },
		"another secret": func() { secret = deliver.NewSecret() },
	} {
		b, s, hh := body, secret, h.Clone()
		change()
		if verify(secret, h, body, now) {
			t.Errorf("%s still verifies", name)
		}
		body, secret, h = b, s, hh
	}
	// The specification's own example: its secret, id, timestamp and body
	// give its signature.
	const (
		specSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
		specID     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
		specBody   = `{"test": 2432232314}`
		specSig    = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	)
	got, err := deliver.Sign(specSecret, specID, time.Unix(1614265330, 0), []byte(specBody))
	if err != nil || got != specSig {
		t.Errorf("the specification's example signs as %q (%v), want %q", got, err, specSig)
	}
}

func TestTheRetryScheduleDoublesFromASecond(t *testing.T) {
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second}
	for i, w := range want {
		if got := deliver.RetryWait(i + 1); got != w {
			t.Errorf("after try %d: wait %v, want %v", i+1, got, w)
		}
	}
	if got := deliver.RetryWait(deliver.MaxAttempts); got != deliver.MaxRetryWait {
		t.Errorf("the last wait is %v, want the cap %v", got, deliver.MaxRetryWait)
	}
	var total time.Duration
	for n := 1; n < deliver.MaxAttempts; n++ {
		total += deliver.RetryWait(n)
	}
	if total < 4*time.Hour || total > 5*time.Hour {
		t.Errorf("first to last try spans %v, documented as about 4 hours and a quarter", total)
	}
}

func checkURL(ctx context.Context, u string, allowPrivate bool) error {
	return deliver.CheckHook(ctx, model.Hook{URL: u, Format: deliver.FormatStandard, AllowPrivate: allowPrivate}, nil)
}

func TestURLsAreCheckedWhenAHookIsAdded(t *testing.T) {
	ctx := context.Background()
	for _, u := range []string{"ftp://example.com/x", "not a url", "https:///nohost", "http://user:pw@example.com/",
		"http://127.0.0.1:8080/", "http://10.1.2.3/", "http://[::1]/", "http://169.254.169.254/latest", "http://localhost/"} {
		if err := checkURL(ctx, u, false); err == nil {
			t.Errorf("%s is accepted", u)
		}
	}
	if err := checkURL(ctx, "http://127.0.0.1:8080/h", true); err != nil {
		t.Errorf("--allow-private refuses loopback: %v", err)
	}
	if err := checkURL(ctx, "https://93.184.215.14/hook", false); err != nil {
		t.Errorf("a public address is refused: %v", err)
	}
	if err := deliver.CheckHook(ctx, model.Hook{URL: "https://93.184.215.14/hook", Format: "teams"}, nil); err == nil {
		t.Error("a format no channel has is accepted")
	}
	if got := deliver.RedactURL("https://hooks.slack.com/services/T000/B000/XXXXSECRET?x=1"); strings.Contains(got, "SECRET") || strings.Contains(got, "x=1") {
		t.Errorf("the URL is shown as %q", got)
	}
}

func TestSlackMessagesSayWhatWaitsForWhomAndHowToOpenIt(t *testing.T) {
	c := "conflict-012"
	due := time.Date(2026, 11, 24, 4, 27, 0, 0, time.UTC)
	n := model.Notification{AgentID: "lead-kenji", Event: model.EventConflictEscalated, ConflictID: &c, RequiresAction: true,
		Summary: "conflict-012 escalated <@here> \x1b[31mby ana"}
	body := deliver.SlackBody(n, &deliver.Waiting{Status: model.StatusEscalated, Owner: "lead-kenji", Deadline: &due},
		"ssh ops@arbiter.example -t arbiter", due.Add(-time.Hour))
	var msg struct {
		Text   string `json:"text"`
		Blocks []json.RawMessage
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		t.Fatal(err)
	}
	var all string
	for _, b := range msg.Blocks {
		all += string(b)
	}
	all = strings.ReplaceAll(all, `\u0026`, "&") + msg.Text
	for _, want := range []string{"conflict-012 waits for lead-kenji", "due 2026-11-24 04:27 UTC (in 1h)",
		"ssh ops@arbiter.example -t arbiter --as lead-kenji show conflict-012", "&lt;@here&gt;"} {
		if !strings.Contains(all, want) {
			t.Errorf("the message does not say %q: %s", want, body)
		}
	}
	if strings.Contains(all, "\\u001b") || strings.Contains(all, "<@here>") || len(msg.Blocks) != 2 {
		t.Errorf("the message carries control text or a mention: %s", body)
	}
}

// receiver is a real HTTP server that answers with the statuses of
// plan, one per request, then 200; it keeps what it got.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	plan   []int
	got    []http.Header
	bodies [][]byte
	secret string
	bad    int
	// now is the clock a signature's timestamp is checked against
	// (default the wall clock).
	now func() time.Time
}

func newReceiver(t *testing.T, plan ...int) *receiver {
	r := &receiver{plan: plan}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		now := time.Now()
		if r.now != nil {
			now = r.now()
		}
		if r.secret != "" && !verify(r.secret, req.Header, body, now) {
			r.bad++
		}
		r.got, r.bodies = append(r.got, req.Header.Clone()), append(r.bodies, body)
		status := http.StatusOK
		if len(r.plan) > 0 {
			status, r.plan = r.plan[0], r.plan[1:]
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.Close)
	return r
}

// hookedField is a field of the review tests' cast with a standard hook
// for senior-2 (an author of every contradiction) to url, and a clock the
// test moves.
func hookedField(t *testing.T, url string) (*rt.Field, *review.Service, model.Hook, *time.Time) {
	f := rt.New(t, rt.Policy())
	now := time.Now().UTC()
	svc := review.New(f.Store).WithClock(func() time.Time { return now })
	h, err := svc.HookAdd(context.Background(), rt.Operator, model.Hook{ID: model.NewHookID(), AgentID: rt.Senior2, URL: url,
		Format: deliver.FormatStandard, Secret: deliver.NewSecret(), AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	return f, svc, h, &now
}

func deliveries(t *testing.T, st store.Field) []model.Delivery {
	var out []model.Delivery
	if err := st.Read(context.Background(), func(tx store.Tx) (err error) { out, err = tx.Deliveries(model.DeliveryQuery{}); return err }); err != nil {
		t.Fatal(err)
	}
	return out
}

// A 5xx is tried again with the same webhook-id at its time, and
// arrives; a receiver verifies every try.
func TestAFailedTryIsRetriedWithTheSameIDAndArrives(t *testing.T) {
	r := newReceiver(t, http.StatusServiceUnavailable, http.StatusTooManyRequests)
	f, _, h, _ := hookedField(t, r.URL)
	r.secret = h.Secret
	f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{}) // senior-2 is told of the conflict
	ds := deliveries(t, f.Store)
	if len(ds) != 1 || ds[0].Notice.Event != model.EventConflictDetected {
		t.Fatalf("deliveries after a detection: %+v", ds)
	}
	clock := time.Now()
	opts := deliver.Options{Now: func() time.Time { return clock }}
	r.mu.Lock()
	r.now = opts.Now
	r.mu.Unlock()
	ctx := context.Background()
	for try, want := range []deliver.Report{{Retrying: 1}, {}, {Retrying: 1}, {Delivered: 1}} {
		if try == 1 {
			// Not due yet: the wait after the first try is about a second.
			clock = clock.Add(700 * time.Millisecond)
		} else if try > 1 {
			clock = clock.Add(time.Hour)
		}
		rep, err := deliver.Once(ctx, f.Store, opts)
		if err != nil || rep != want {
			t.Fatalf("try %d: %+v (%v), want %+v", try, rep, err, want)
		}
	}
	if len(r.got) != 3 || r.bad != 0 {
		t.Fatalf("the receiver got %d requests, %d not verified", len(r.got), r.bad)
	}
	for _, g := range r.got {
		if g.Get("webhook-id") != ds[0].ID {
			t.Errorf("a try came as %s, want the delivery's id %s on every try", g.Get("webhook-id"), ds[0].ID)
		}
	}
	var body struct {
		Type string
		Data deliver.Notice
	}
	if err := json.Unmarshal(r.bodies[2], &body); err != nil || body.Type != model.EventConflictDetected ||
		body.Data.For != rt.Senior2 || body.Data.ID != ds[0].NotificationID || body.Data.Summary == "" {
		t.Fatalf("body %s (%v)", r.bodies[2], err)
	}
	d := deliveries(t, f.Store)[0]
	if d.State != model.DeliveryDelivered || d.Attempts != 3 || d.DeliveredAt == nil {
		t.Fatalf("after delivery: %+v", d)
	}
}

// A 4xx other than 408 and 429 is not tried again: the delivery is dead,
// and retry queues it again.
func TestARefusalIsDeadUntilRetried(t *testing.T) {
	r := newReceiver(t, http.StatusNotFound)
	f, svc, _, _ := hookedField(t, r.URL)
	f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	ctx := context.Background()
	if rep, err := deliver.Once(ctx, f.Store, deliver.Options{}); err != nil || rep.Dead != 1 {
		t.Fatalf("%+v (%v), want one dead", rep, err)
	}
	if d := deliveries(t, f.Store)[0]; d.State != model.DeliveryDead || !strings.Contains(d.LastError, "404") {
		t.Fatalf("after a 404: %+v", d)
	}
	if _, err := svc.DeliveryRetry(ctx, rt.Senior1, ""); !model.HasCode(err, model.CodeNotPermitted) {
		t.Fatalf("an agent queued deliveries again: %v", err)
	}
	if n, err := svc.DeliveryRetry(ctx, rt.Operator, ""); err != nil || n != 1 {
		t.Fatalf("retry: %d (%v)", n, err)
	}
	if rep, err := deliver.Once(ctx, f.Store, deliver.Options{}); err != nil || rep.Delivered != 1 {
		t.Fatalf("%+v (%v), want it delivered", rep, err)
	}
}

// A notice of a decision that fails leaves no delivery: the outbox is
// written with the notice, or not at all.
func TestADecisionRolledBackQueuesNothing(t *testing.T) {
	r := newReceiver(t)
	f, _, _, _ := hookedField(t, r.URL)
	p := f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	before := len(deliveries(t, f.Store))
	rt.FailInserts(t, f, "events")
	w := p.A
	_, err := f.Svc.Merge(context.Background(), rt.Senior1, model.MergeRequest{ConflictID: p.Conflict, Strategy: model.Authority,
		Resolution: model.MergeResolution{WinnerID: &w, Rationale: "A"}})
	if err == nil {
		t.Fatal("the decision went through")
	}
	if got := len(deliveries(t, f.Store)); got != before {
		t.Fatalf("%d deliveries after a failed decision, %d before", got, before)
	}
}

// Three deliverers on their own connections to one field send each
// delivery once: none is sent by two.
func TestSeveralDeliverersSendEachDeliveryOnce(t *testing.T) {
	r := newReceiver(t)
	f, _, h, _ := hookedField(t, r.URL)
	r.secret = h.Secret
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 3 {
		st, err := field.Open(ctx, f.Path, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := deliver.Run(ctx, st, deliver.Options{}); err != nil {
				t.Error(err)
			}
		}()
	}
	const n = 20
	for range n {
		f.Contradict(t, model.ConflictFactual, rt.Side{}, rt.Side{})
	}
	done := 0
	if !testwait.Until(testwait.Deadline, func() bool {
		done = 0
		for _, d := range deliveries(t, f.Store) {
			if d.State == model.DeliveryDelivered {
				done++
			}
		}
		return done == n
	}) {
		t.Fatalf("%d of %d delivered after %s", done, n, testwait.Deadline)
	}
	cancel()
	wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]int{}
	for _, g := range r.got {
		seen[g.Get("webhook-id")]++
	}
	if len(seen) != n || len(r.got) != n || r.bad != 0 {
		t.Fatalf("%d requests for %d deliveries (%d ids, %d not verified), want each once", len(r.got), n, len(seen), r.bad)
	}
}

// A notice carries its rationale whole; a Slack message, whose section
// holds at most 3,000 characters, cuts it at a word and says so.
func TestASlackMessageCutsALongNoticeAtAWord(t *testing.T) {
	c := "conflict-012"
	n := model.Notification{AgentID: "lead-kenji", Event: model.EventConflictResolved, ConflictID: &c,
		Summary: "conflict-012 resolved by ops-maya (authority). Why: " + strings.Repeat("the nightly runs outweigh the re-run ", 300)}
	body := deliver.SlackBody(n, nil, "arbiter", time.Now())
	var msg struct {
		Blocks []struct {
			Text struct {
				Text string `json:"text"`
			} `json:"text"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		t.Fatal(err)
	}
	section := msg.Blocks[0].Text.Text
	kept, cut := strings.CutSuffix(section, " … (cut)")
	words := strings.Fields(kept)
	if got := len([]rune(section)); got > 3000 || !cut || !slices.Contains([]string{"the", "nightly", "runs", "outweigh", "re-run"}, words[len(words)-1]) {
		t.Errorf("the section holds %d characters, ending %q; want at most 3,000, cut after a word", got, section[max(0, len(section)-40):])
	}
}
