package deliver

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"arbiter/model"
	"arbiter/service/review"
	"arbiter/store"
)

// engine is one deliverer: the deliveries it holds a claim on — being
// sent, or waiting for a free place among their hook's sends — and the
// sends that came back and are not recorded yet. One goroutine runs it
// (step, wait, stop); only the sends run beside it.
type engine struct {
	st              store.Field
	opts            Options
	desk            *review.Service // disables a hook that is gone
	strict, private *http.Client
	claims          int               // claims made: their tokens' numbers
	held            map[string]string // delivery id → the claim holding it ("" once lost)
	lanes           map[string]*lane  // hook id → its sends
	back            chan sent         // sends that came back
	finished        []sent            // came back, not recorded yet
	renewed         time.Time         // when the claims were last renewed
	due             *time.Time        // the next claimable delivery's time, as last read
	rep             Report
	logm            sync.Mutex
}

func newEngine(st store.Field, opts Options) *engine {
	return &engine{st: st, opts: opts,
		desk:    review.New(st).WithClock(opts.Now).WithSweeper(opts.Actor),
		strict:  newClient(false, opts.Resolver, opts.SendTimeout, opts.PerHook),
		private: newClient(true, opts.Resolver, opts.SendTimeout, opts.PerHook),
		held:    map[string]string{}, lanes: map[string]*lane{},
		back: make(chan sent, opts.Sends), renewed: opts.Now()}
}

func (e *engine) logf(format string, args ...any) {
	if e.opts.Log != nil {
		e.logm.Lock()
		fmt.Fprintf(e.opts.Log, format, args...)
		e.logm.Unlock()
	}
}

func (e *engine) troublef(format string, args ...any) {
	if e.opts.Trouble != nil {
		e.logm.Lock()
		fmt.Fprintf(e.opts.Trouble, format, args...)
		e.logm.Unlock()
	}
}

// round is what one write of step does: the sends it records (and
// which of them found their claim taken), the claims it renews (and the
// deliveries they still held), and what it claims.
type round struct {
	now    time.Time
	record []sent
	stale  map[string]bool
	renew  map[string]string // delivery → the claim holding it
	until  time.Time         // what the claims are renewed to
	kept   map[string]bool
	claim  *store.Claim
	batch  []model.Delivery
	due    *time.Time
}

// step does what can be done now, in one write transaction at most:
// records the sends that came back, renews the claims every third of a
// lease (so that they outlast their sends however long those take), and
// claims what is claimable while places are free; then starts what waits
// for a place. more says it claimed all it asked for: there may be more
// to claim at once.
func (e *engine) step(ctx context.Context) (more bool, err error) {
	e.collect()
	now := e.opts.Now()
	r := round{now: now, record: e.finished}
	if len(e.held) > 0 && now.Sub(e.renewed) >= e.opts.Lease/3 {
		r.renew, r.until = e.heldClaims(), now.Add(e.opts.Lease)
	}
	free := e.opts.Sends - (len(e.held) - len(e.finished))
	skip := e.full()
	if free > 0 && ctx.Err() == nil {
		e.claims++
		r.claim = &store.Claim{Token: e.opts.Worker + "/" + strconv.Itoa(e.claims), Now: now, Lease: e.opts.Lease,
			Limit: free, PerHook: e.opts.PerHook, Skip: skip}
	}
	if len(r.record) == 0 && r.renew == nil {
		if r.claim == nil {
			e.due = nil
			return false, nil
		}
		// A read first: a field with nothing due is not written to (every
		// commit wakes a deliverer; most queue no delivery).
		if err := read(ctx, e.st, func(tx deliveryTx) (err error) { e.due, err = tx.DeliveryNext(skip); return err }); err != nil {
			return false, err
		}
		if e.due == nil || e.due.After(now) {
			return false, nil
		}
	}
	// What was sent is recorded even when ctx has ended, so that it is
	// not sent again for want of a record.
	if err := write(context.WithoutCancel(ctx), e.st, r.write); err != nil {
		return false, err
	}
	e.recorded(ctx, r)
	e.renewedClaims(r)
	if r.claim != nil {
		e.due = r.due
		for _, d := range r.batch {
			e.held[d.ID] = d.Claim
			e.lane(d.HookID).waiting = append(e.lane(d.HookID).waiting, d)
		}
	}
	e.start(ctx)
	return r.claim != nil && len(r.batch) == r.claim.Limit, nil
}

// write is a round's transaction, a few statements whatever the counts.
// Each try is recorded over the claim it was sent under, so a send whose
// claim ran out and was taken records nothing over the new holder's; a
// send the deliverer's end cut short is no try: its claim is released
// instead.
func (r *round) write(tx deliveryTx) error {
	r.stale, r.kept, r.batch, r.due = map[string]bool{}, map[string]bool{}, nil, nil
	var tries []model.Delivery
	cut := map[string]string{}
	for _, s := range r.record {
		if s.cut {
			cut[s.d.ID] = s.d.Claim
		} else {
			tries = append(tries, s.d)
		}
	}
	stale, err := tx.DeliveryRecord(tries...)
	if err != nil {
		return err
	}
	for _, id := range stale {
		r.stale[id] = true
	}
	if _, err := tx.DeliveryRenew(cut, r.now); err != nil {
		return err
	}
	kept, err := tx.DeliveryRenew(r.renew, r.until)
	if err != nil {
		return err
	}
	for _, id := range kept {
		r.kept[id] = true
	}
	if r.claim == nil {
		return nil
	}
	if r.batch, err = tx.DeliveryClaim(*r.claim); err != nil {
		return err
	}
	r.due, err = tx.DeliveryNext(r.claim.Skip)
	return err
}

// heldClaims is the deliveries held and the claims holding them (lost
// ones left out).
func (e *engine) heldClaims() map[string]string {
	out := map[string]string{}
	for id, c := range e.held {
		if c != "" {
			out[id] = c
		}
	}
	return out
}

// recorded counts what a round recorded, forgets those deliveries, and
// disables the hooks whose receivers said they are gone.
func (e *engine) recorded(ctx context.Context, r round) {
	e.finished = e.finished[len(r.record):]
	for _, s := range r.record {
		delete(e.held, s.d.ID)
		switch {
		case s.cut:
		case r.stale[s.d.ID]:
			e.logf("%s: the try is not recorded: its claim ran out and another deliverer holds it\n", s.d.ID)
		case s.d.State == model.DeliveryDelivered:
			e.rep.Delivered++
		case s.d.State == model.DeliveryDead:
			e.rep.Dead++
		default:
			e.rep.Retrying++
		}
		if s.gone && !r.stale[s.d.ID] {
			e.disable(ctx, s.d.Hook)
		}
	}
	e.tidy()
}

// renewedClaims notes a round's renewal: a delivery whose claim was lost
// meanwhile (a renewal came too late and another deliverer took it, or
// it was given up) is not sent if it has not been yet.
func (e *engine) renewedClaims(r round) {
	if r.renew == nil {
		return
	}
	e.renewed = r.now
	for id := range r.renew {
		if _, held := e.held[id]; held && !r.kept[id] {
			e.held[id] = ""
			e.logf("%s: its claim was lost (a renewal came too late); another deliverer may send it\n", id)
		}
	}
	e.dropWaiting(func(d model.Delivery) bool { return e.held[d.ID] == "" })
}

// disable disables hook h, whose receiver answered 410 Gone, and drops
// the deliveries to it this deliverer holds (disabling gave them up).
func (e *engine) disable(ctx context.Context, h model.Hook) {
	now, err := e.desk.HookGone(context.WithoutCancel(ctx), h.ID, "its receiver answered 410 Gone")
	switch {
	case err != nil:
		e.troublef("arbiter deliver: hook %s answered 410 Gone but could not be disabled: %v\n", h.ID, err)
		return
	case now:
		e.troublef("arbiter deliver: hook %s (%s) answered 410 Gone: disabled; the human operators are told\n", h.ID, RedactURL(h.URL))
	}
	e.dropWaiting(func(d model.Delivery) bool { return d.HookID == h.ID })
}

// stop ends a run: the sends running (which ctx's end cuts short) come
// back and are recorded, and the claims on deliveries not sent yet are
// released.
func (e *engine) stop(ctx context.Context) error {
	for sending := e.sending(); sending > 0; sending-- {
		e.came(<-e.back)
	}
	for _, l := range e.lanes {
		for _, d := range l.waiting {
			e.finished = append(e.finished, sent{d: d, cut: true})
		}
		l.waiting = nil
	}
	if len(e.finished) == 0 {
		return nil
	}
	r := round{now: e.opts.Now(), record: e.finished}
	if err := write(context.WithoutCancel(ctx), e.st, r.write); err != nil {
		return err
	}
	e.recorded(ctx, r)
	return nil
}
