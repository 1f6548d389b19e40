package deliver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	"arbiter/internal/safetext"
	"arbiter/model"
	"arbiter/store"
)

// Options tune a deliverer; the zero value is a good one.
type Options struct {
	// Worker names the deliverer in the field's claims (default: host,
	// process id and a random part).
	Worker string
	// Client sends the requests (default: a 10 s timeout, redirects not
	// followed).
	Client *http.Client
	// Open is the command that opens the field, for slack messages'
	// one-line command (default "arbiter").
	Open string
	// Poll is how often Run asks a field that cannot say it changed
	// whether it did (default 50 ms; the question is cheap).
	Poll time.Duration
	// Batch is how many deliveries one claim takes, and how many are sent
	// at once (default 16).
	Batch int
	// Lease is how long a claim holds (default 1 minute, well over the
	// client's timeout): a deliverer killed mid-send leaves its claims,
	// which others take once they run out.
	Lease time.Duration
	// Log gets one line per try (nil: quiet). URLs are shown without
	// their path's secret part; secrets never.
	Log io.Writer
	// Now is the clock (default time.Now).
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Worker == "" {
		host, _ := os.Hostname()
		o.Worker = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), model.NewHookID()[5:])
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if o.Poll <= 0 {
		o.Poll = 50 * time.Millisecond
	}
	if o.Batch <= 0 {
		o.Batch = 16
	}
	if o.Lease <= 0 {
		o.Lease = time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Report counts what a run of Once did.
type Report struct {
	Delivered int `json:"delivered"`
	Retrying  int `json:"retrying"`
	Dead      int `json:"dead"`
}

// Once sends every delivery due now, claiming them in batches until none
// is left, and returns what came of them. A delivery that fails is due
// again later (Run, or the next Once, sends it then). It returns ctx's
// error if ctx ends first; what was sent by then is recorded.
func Once(ctx context.Context, st store.Field, opts Options) (Report, error) {
	opts = opts.withDefaults()
	var rep Report
	for ctx.Err() == nil {
		// A read first: a field with nothing due is not written to (every
		// commit wakes a deliverer; most queue no delivery).
		var next *time.Time
		if err := read(ctx, st, func(tx deliveryTx) (err error) { next, err = tx.DeliveryNext(); return err }); err != nil {
			return rep, err
		}
		if next == nil || next.After(opts.Now()) {
			return rep, nil
		}
		var batch []model.Delivery
		err := write(ctx, st, func(tx deliveryTx) (err error) {
			batch, err = tx.DeliveryClaim(opts.Worker, opts.Now(), opts.Lease, opts.Batch)
			return err
		})
		if err != nil || len(batch) == 0 {
			return rep, err
		}
		waiting := waitingFor(ctx, st, batch, opts)
		tried := make([]model.Delivery, len(batch))
		var wg sync.WaitGroup
		for i, d := range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tried[i] = try(ctx, d, waiting, st.Name(), opts)
			}()
		}
		wg.Wait()
		// Recorded even when ctx has ended: what was sent is not sent again
		// for want of a record.
		err = write(context.WithoutCancel(ctx), st, func(tx deliveryTx) error {
			for _, d := range tried {
				if err := tx.DeliveryRecord(d, opts.Worker); err != nil && !store.IsStale(err) {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return rep, err
		}
		for _, d := range tried {
			switch d.State {
			case model.DeliveryDelivered:
				rep.Delivered++
			case model.DeliveryDead:
				rep.Dead++
			default:
				rep.Retrying++
			}
		}
	}
	return rep, ctx.Err()
}

// Run sends deliveries until ctx ends: what is due at once, then each as
// it becomes due — a new notice as soon as the field says it changed (at
// once on a field that can say so, else within Poll, which asks the field
// only whether it changed), a retry at its time. It returns nil when ctx
// ends, or the field's error.
func Run(ctx context.Context, st store.Field, opts Options) error {
	opts = opts.withDefaults()
	notifier, _ := st.(store.Notifier)
	seen, err := st.Changed(ctx)
	if err != nil {
		return done(ctx, err)
	}
	for {
		if _, err := Once(ctx, st, opts); err != nil {
			return done(ctx, err)
		}
		var next *time.Time
		if err := read(ctx, st, func(tx deliveryTx) (err error) { next, err = tx.DeliveryNext(); return err }); err != nil {
			return done(ctx, err)
		}
		due := time.Now().Add(time.Hour)
		if next != nil {
			due = time.Now().Add(next.Sub(opts.Now()))
		}
		// Wait until the next delivery is due or the field changes.
		for ctx.Err() == nil && time.Now().Before(due) {
			if notifier != nil {
				wctx, cancel := context.WithDeadline(ctx, due)
				now, err := notifier.WaitChange(wctx, seen)
				cancel()
				if err == nil && now != seen {
					seen = now
					break
				}
				continue
			}
			select {
			case <-ctx.Done():
			case <-time.After(min(opts.Poll, time.Until(due))):
			}
			if now, err := st.Changed(ctx); err == nil && now != seen {
				seen = now
				break
			}
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

func done(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// waitingFor reads, for the slack deliveries of batch, who each
// conflict waits for and until when.
func waitingFor(ctx context.Context, st store.Field, batch []model.Delivery, opts Options) map[string]*Waiting {
	out := map[string]*Waiting{}
	_ = read(ctx, st, func(tx deliveryTx) error {
		for _, d := range batch {
			id := d.Notice.ConflictID
			if d.Hook.Format != model.FormatSlack || id == nil || out[*id] != nil {
				continue
			}
			if c, err := tx.Conflict(*id); err == nil {
				w := &Waiting{Status: c.Status}
				if c.Route != nil {
					w.Owner, w.Deadline = c.Route.Owner, c.Route.Deadline
				}
				out[*id] = w
			}
		}
		return nil
	})
	return out
}

// try sends d once and returns it as the try leaves it.
func try(ctx context.Context, d model.Delivery, waiting map[string]*Waiting, field string, opts Options) model.Delivery {
	now := opts.Now()
	var body []byte
	if d.Hook.Format == model.FormatSlack {
		var w *Waiting
		if d.Notice.ConflictID != nil {
			w = waiting[*d.Notice.ConflictID]
		}
		body = SlackBody(d.Notice, w, opts.Open, now)
	} else {
		body = StandardBody(d.Notice, field)
	}
	status, err := post(ctx, d, body, now, opts.Client)
	d.Attempts++
	end := opts.Now()
	switch {
	case err == nil && status/100 == 2:
		d.State, d.DeliveredAt, d.LastError = model.DeliveryDelivered, &end, ""
	case err == nil && !retryable(status):
		d.State, d.LastError = model.DeliveryDead, fmt.Sprintf("%d %s: not retried", status, http.StatusText(status))
	default:
		d.LastError = fmt.Sprintf("%d %s", status, http.StatusText(status))
		if err != nil {
			d.LastError = err.Error()
		}
		if d.Attempts >= MaxAttempts {
			d.State = model.DeliveryDead
			d.LastError += fmt.Sprintf(" (gave up after %d tries)", d.Attempts)
		} else {
			d.NextAt = end.Add(jitter(RetryWait(d.Attempts)))
		}
	}
	if opts.Log != nil {
		fmt.Fprintf(opts.Log, "%s %s  %s → %s  try %d: %s\n", end.UTC().Format(time.RFC3339), safetext.Line(d.ID),
			safetext.Line(d.Hook.ID), RedactURL(d.Hook.URL), d.Attempts, outcome(d))
	}
	return d
}

func outcome(d model.Delivery) string {
	switch d.State {
	case model.DeliveryDelivered:
		return "delivered"
	case model.DeliveryDead:
		return "dead: " + safetext.Line(d.LastError)
	}
	return fmt.Sprintf("%s; again at %s", safetext.Line(d.LastError), d.NextAt.UTC().Format("15:04:05"))
}

// post sends body to d's hook, signed, and returns the answer's status.
func post(ctx context.Context, d model.Delivery, body []byte, now time.Time, client *http.Client) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.Hook.URL, bytes.NewReader(body))
	if err != nil {
		return 0, errors.New("the hook's URL does not make a request")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "arbiter-deliver")
	if d.Hook.Format == model.FormatStandard {
		sig, err := Sign(d.Hook.Secret, d.ID, now, body)
		if err != nil {
			return 0, err
		}
		req.Header.Set("webhook-id", d.ID)
		req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
		req.Header.Set("webhook-signature", sig)
	}
	resp, err := client.Do(req)
	if err != nil {
		// The URL may hold a secret (a Slack webhook's path): say what
		// failed without it.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode, nil
}

// RedactURL is a hook's URL as output and logs show it: its scheme, host
// and the first characters of its path, never its query or the rest of
// the path (a Slack webhook's path is its secret).
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(not a URL)"
	}
	p := u.EscapedPath()
	if len(p) > 10 {
		p = p[:10] + "…"
	}
	return safetext.Line(u.Scheme + "://" + u.Host + p)
}
