package deliver

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// Defaults of Options (docs/notifications.md).
const (
	// DefaultSendTimeout is how long one try may take, connection to last
	// byte: within the 15–30 s the Standard Webhooks specification asks
	// receivers to answer in.
	DefaultSendTimeout = 20 * time.Second
	// DefaultLease is how long a claim holds unless renewed; a deliverer
	// renews its claims every third of it while it holds them, so a lease
	// shorter than a send is safe, and a deliverer killed mid-send leaves
	// its claims to others after at most this.
	DefaultLease = 15 * time.Second
	// MinLease is the shortest lease: a renewal is a write, which may
	// wait for a busy field, and must land before the lease runs out.
	MinLease = 5 * time.Second
	// DefaultSends and DefaultPerHook are how many sends run at once in
	// all, and to one hook.
	DefaultSends   = 64
	DefaultPerHook = 4
)

// Options tune a deliverer; the zero value is a good one.
type Options struct {
	// Worker names the deliverer in the field's claims (default: host,
	// process id and a random part); each claim's token begins with it.
	Worker string
	// Resolver resolves hooks' hosts (default the system's). Whatever it
	// answers, the address connected to is checked (Refusal).
	Resolver *net.Resolver
	// SendTimeout is how long one try may take (default
	// DefaultSendTimeout). Redirects are not followed.
	SendTimeout time.Duration
	// Open is the command that opens the field, for slack messages'
	// one-line command (default "arbiter").
	Open string
	// Poll is how often Run asks a field that cannot say it changed
	// whether it did (default 50 ms; the question is cheap).
	Poll time.Duration
	// Sends is how many deliveries are sent at once (default
	// DefaultSends); PerHook how many of them to one hook (default
	// DefaultPerHook). A hook whose receiver hangs holds only its own.
	Sends, PerHook int
	// Lease is how long a claim holds unless renewed (default
	// DefaultLease, at least MinLease: a shorter one is raised).
	Lease time.Duration
	// Actor is the agent a hook's disabling (a 410 answer) acts for and
	// is told as ("" for the session itself: a SQLite file, or the
	// field's administrator on PostgreSQL).
	Actor string
	// Log gets one line per try (nil: quiet). URLs are shown without
	// their path's secret part; secrets never.
	Log io.Writer
	// Trouble gets one line each time the field cannot be read or
	// written and Run waits to try again, and when a hook is disabled
	// (nil: Log).
	Trouble io.Writer
	// Now is the clock (default time.Now).
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Worker == "" {
		host, _ := os.Hostname()
		o.Worker = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), model.NewHookID()[5:])
	}
	if o.SendTimeout <= 0 {
		o.SendTimeout = DefaultSendTimeout
	}
	if o.Poll <= 0 {
		o.Poll = 50 * time.Millisecond
	}
	if o.Sends <= 0 {
		o.Sends = DefaultSends
	}
	if o.PerHook <= 0 {
		o.PerHook = DefaultPerHook
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	o.Lease = max(o.Lease, MinLease)
	if o.Trouble == nil {
		o.Trouble = o.Log
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

// Once sends every delivery due now, claiming them as places to send
// free up until none is left, and returns what came of them. A delivery
// that fails is due again later (Run, or the next Once, sends it then).
// It returns ctx's error if ctx ends first, or the field's; what was sent
// by then is recorded.
func Once(ctx context.Context, st store.Field, opts Options) (Report, error) {
	e := newEngine(st, opts.withDefaults())
	for {
		more, err := e.step(ctx)
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return e.rep, firstErr(err, e.stop(ctx))
		}
		if more {
			continue
		}
		if len(e.held) == 0 {
			return e.rep, nil
		}
		e.wait(ctx, nil, nil)
	}
}

// Run sends deliveries until ctx ends: what is due at once, then each as
// it becomes due — a new notice as soon as the field says it changed (at
// once on a field that can say so, else within Poll, which asks the field
// only whether it changed), a retry at its time. Sends to one hook never
// wait for another's (Options.PerHook), and each is recorded as soon as
// it comes back.
//
// A field that cannot be read or written for a while — busy, its disk
// full, its server out of reach — is waited out, with a line to
// Options.Trouble and a growing pause; Run returns only when ctx ends
// (nil) or on an error waiting cannot mend (Permanent): the field is
// gone, of a format it does not know, read-only, or refuses this
// deliverer.
func Run(ctx context.Context, st store.Field, opts Options) error {
	opts = opts.withDefaults()
	e := newEngine(st, opts)
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	changed := e.watch(wctx)
	var pause time.Duration
	for ctx.Err() == nil {
		more, err := e.step(ctx)
		if err != nil && ctx.Err() == nil {
			if Permanent(err) {
				return firstErr(err, e.stop(ctx))
			}
			pause = min(max(2*pause, time.Second), 30*time.Second)
			e.troublef("arbiter deliver: %v; trying again in %s\n", err, pause)
			e.wait(ctx, changed, &pause)
			continue
		}
		if pause > 0 {
			e.troublef("arbiter deliver: the field answers again\n")
			pause = 0
		}
		if !more {
			e.wait(ctx, changed, nil)
		}
	}
	_ = e.stop(ctx)
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
