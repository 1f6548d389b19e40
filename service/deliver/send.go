package deliver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"arbiter/internal/safetext"
	"arbiter/model"
)

// sent is one try as it came back: the delivery as the try left it,
// whether the receiver said the hook is gone (410), and whether the
// deliverer's end cut it short (then it is no try: it is not recorded,
// and its claim is released).
type sent struct {
	d    model.Delivery
	gone bool
	cut  bool
}

// newClient is the HTTP client of hooks that allowPrivate (or not): it
// connects only where dialControl lets it, through no proxy (the address
// checked must be the one connected to), follows no redirect, and gives
// a whole try timeout.
func newClient(allowPrivate bool, resolver *net.Resolver, timeout time.Duration, perHost int) *http.Client {
	d := &net.Dialer{Timeout: min(timeout, 10*time.Second), KeepAlive: 30 * time.Second, Resolver: resolver,
		Control: dialControl(allowPrivate)}
	t := &http.Transport{Proxy: nil, DialContext: d.DialContext, ForceAttemptHTTP2: true,
		TLSHandshakeTimeout: 10 * time.Second, MaxIdleConns: 100, MaxIdleConnsPerHost: perHost, IdleConnTimeout: 90 * time.Second}
	return &http.Client{Transport: t, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// send tries d once and returns it as the try leaves it.
func (e *engine) send(ctx context.Context, d model.Delivery) sent {
	now := e.opts.Now()
	var status int
	var retryAfter time.Duration
	var err error
	if ch, ok := ChannelOf(d.Hook.Format); ok {
		status, retryAfter, err = e.post(ctx, ch, d, now)
	} else {
		err = fmt.Errorf("this arbiter has no %q channel", d.Hook.Format)
	}
	if err != nil && ctx.Err() != nil {
		return sent{d: d, cut: true}
	}
	d.Attempts++
	end := e.opts.Now()
	s := sent{d: d}
	switch {
	case err == nil && status/100 == 2:
		s.d.State, s.d.DeliveredAt, s.d.LastError = model.DeliveryDelivered, &end, ""
	case err == nil && status == http.StatusGone:
		s.d.State, s.gone = model.DeliveryDead, true
		s.d.LastError = "410 Gone: the receiver says the hook is gone; it is disabled"
	case err == nil && !retryable(status):
		s.d.State, s.d.LastError = model.DeliveryDead, fmt.Sprintf("%d %s: not retried", status, http.StatusText(status))
	default:
		s.d.LastError = fmt.Sprintf("%d %s", status, http.StatusText(status))
		if err != nil {
			s.d.LastError = err.Error()
		} else if retryAfter > 0 {
			s.d.LastError += fmt.Sprintf(" (Retry-After %s)", retryAfter.Round(time.Second))
		}
		if s.d.Attempts >= MaxAttempts {
			s.d.State = model.DeliveryDead
			s.d.LastError += fmt.Sprintf(" (gave up after %d tries)", s.d.Attempts)
		} else {
			s.d.NextAt = end.Add(nextWait(s.d.Attempts, retryAfter))
		}
	}
	e.logf("%s %s  %s → %s  try %d: %s\n", end.UTC().Format(time.RFC3339), safetext.Line(d.ID),
		safetext.Line(d.Hook.ID), RedactURL(d.Hook.URL), s.d.Attempts, outcome(s.d))
	return s
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

// post sends d's request, as its channel writes it, and returns the
// answer's status and Retry-After (429 and 503 only).
func (e *engine) post(ctx context.Context, ch Channel, d model.Delivery, at time.Time) (int, time.Duration, error) {
	body, header, err := ch.Request(Message{Delivery: d, Field: e.st.Name(), Open: e.opts.Open, At: at,
		Waiting: func() *Waiting { return e.waiting(ctx, d.Notice.ConflictID) }})
	if err != nil {
		return 0, 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.Hook.URL, bytes.NewReader(body))
	if err != nil {
		return 0, 0, errors.New("the hook's URL does not make a request")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "arbiter-deliver")
	client := e.strict
	if d.Hook.AllowPrivate {
		client = e.private
	}
	resp, err := client.Do(req)
	if err != nil {
		// The URL may hold a secret (a Slack webhook's path): say what
		// failed without it.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return 0, 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	var wait time.Duration
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		wait = RetryAfter(resp.Header.Get("Retry-After"), e.opts.Now())
	}
	return resp.StatusCode, wait, nil
}

// waiting reads who conflict id waits for and until when, or nil.
func (e *engine) waiting(ctx context.Context, id *string) *Waiting {
	if id == nil {
		return nil
	}
	var w *Waiting
	_ = read(ctx, e.st, func(tx deliveryTx) error {
		c, err := tx.Conflict(*id)
		if err != nil {
			return err
		}
		w = &Waiting{Status: c.Status}
		if c.Route != nil {
			w.Owner, w.Deadline = c.Route.Owner, c.Route.Deadline
		}
		return nil
	})
	return w
}
