package deliver

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"arbiter/model"
	"arbiter/review"
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

// lane is one hook's sends: how many are running, and the claimed
// deliveries waiting for a place, in the order they were claimed.
type lane struct {
	sending int
	waiting []model.Delivery
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

// step does what can be done now: records the sends that came back,
// renews the claims if it is time, starts what waits for a place, and
// claims what is claimable while places are free. more says it claimed
// all it asked for: there may be more to claim at once.
func (e *engine) step(ctx context.Context) (more bool, err error) {
	e.collect()
	if err := e.record(ctx); err != nil {
		return false, err
	}
	if err := e.renew(ctx); err != nil {
		return false, err
	}
	e.start(ctx)
	free := e.opts.Sends - len(e.held)
	if free <= 0 || ctx.Err() != nil {
		e.due = nil
		return false, nil
	}
	skip := e.full()
	// A read first: a field with nothing due is not written to (every
	// commit wakes a deliverer; most queue no delivery).
	if err := e.st.Read(ctx, func(tx store.Tx) (err error) { e.due, err = tx.DeliveryNext(skip); return err }); err != nil {
		return false, err
	}
	now := e.opts.Now()
	if e.due == nil || e.due.After(now) {
		return false, nil
	}
	e.claims++
	token := e.opts.Worker + "/" + strconv.Itoa(e.claims)
	var batch []model.Delivery
	err = e.st.Write(ctx, func(tx store.Tx) (err error) {
		batch, err = tx.DeliveryClaim(store.Claim{Token: token, Now: now, Lease: e.opts.Lease, Limit: free, Skip: skip})
		return err
	})
	if err != nil {
		return false, err
	}
	if len(e.held) == 0 {
		e.renewed = now
	}
	for _, d := range batch {
		e.held[d.ID] = d.Claim
		e.lane(d.HookID).waiting = append(e.lane(d.HookID).waiting, d)
	}
	e.start(ctx)
	return len(batch) == free, nil
}

func (e *engine) lane(hook string) *lane {
	l := e.lanes[hook]
	if l == nil {
		l = &lane{}
		e.lanes[hook] = l
	}
	return l
}

// full lists the hooks that have as many deliveries held as they may
// send at once: the next claim leaves them out.
func (e *engine) full() []string {
	var out []string
	for id, l := range e.lanes {
		if l.sending+len(l.waiting) >= e.opts.PerHook {
			out = append(out, id)
		}
	}
	return out
}

// start sends what waits, as far as each hook has places.
func (e *engine) start(ctx context.Context) {
	for _, l := range e.lanes {
		for l.sending < e.opts.PerHook && len(l.waiting) > 0 {
			d := l.waiting[0]
			l.waiting = l.waiting[1:]
			l.sending++
			go func() { e.back <- e.send(ctx, d) }()
		}
	}
}

// collect takes the sends that came back, without waiting.
func (e *engine) collect() {
	for {
		select {
		case s := <-e.back:
			e.came(s)
		default:
			return
		}
	}
}

func (e *engine) came(s sent) {
	if l := e.lanes[s.d.HookID]; l != nil {
		l.sending--
	}
	e.finished = append(e.finished, s)
}

// record writes what the sends that came back came to, in one
// transaction: each over the claim it was sent under, so a send whose
// claim ran out and was taken records nothing over the new holder's.
// What was sent is recorded even when ctx has ended, so that it is not
// sent again for want of a record. A send that ctx cut short is not a
// try: its claim is released instead.
func (e *engine) record(ctx context.Context) error {
	if len(e.finished) == 0 {
		return nil
	}
	stale := make([]bool, len(e.finished))
	var cut []string
	err := e.st.Write(context.WithoutCancel(ctx), func(tx store.Tx) error {
		cut = cut[:0]
		for i, s := range e.finished {
			var err error
			if s.cut {
				_, err = tx.DeliveryRenew(s.d.Claim, []string{s.d.ID}, e.opts.Now())
				cut = append(cut, s.d.ID)
			} else {
				err = tx.DeliveryRecord(s.d, s.d.Claim)
			}
			stale[i] = store.IsStale(err)
			if err != nil && !stale[i] {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	done := e.finished
	e.finished = nil
	for i, s := range done {
		delete(e.held, s.d.ID)
		switch {
		case s.cut:
		case stale[i]:
			e.logf("%s: the try is not recorded: its claim ran out and another deliverer holds it\n", s.d.ID)
		case s.d.State == model.DeliveryDelivered:
			e.rep.Delivered++
		case s.d.State == model.DeliveryDead:
			e.rep.Dead++
		default:
			e.rep.Retrying++
		}
		if s.gone && !stale[i] {
			e.disable(ctx, s.d.Hook)
		}
	}
	e.tidy()
	return nil
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

// tidy forgets the lanes of hooks with nothing held.
func (e *engine) tidy() {
	for id, l := range e.lanes {
		if l.sending == 0 && len(l.waiting) == 0 {
			delete(e.lanes, id)
		}
	}
}

// renew extends the claims held, every third of a lease, so that they
// outlast their sends however long those take; a delivery whose claim
// was lost meanwhile (a renewal came too late and another deliverer took
// it, or it was given up) is not sent if it has not been yet.
func (e *engine) renew(ctx context.Context) error {
	now := e.opts.Now()
	if len(e.held) == 0 || now.Sub(e.renewed) < e.opts.Lease/3 {
		return nil
	}
	byClaim := map[string][]string{}
	for id, c := range e.held {
		if c != "" {
			byClaim[c] = append(byClaim[c], id)
		}
	}
	kept, err := e.extend(ctx, byClaim, now.Add(e.opts.Lease))
	if err != nil {
		return err
	}
	e.renewed = now
	for _, ids := range byClaim {
		for _, id := range ids {
			if !kept[id] {
				e.held[id] = ""
				e.logf("%s: its claim was lost (a renewal came too late); another deliverer may send it\n", id)
			}
		}
	}
	e.dropWaiting(func(d model.Delivery) bool { return e.held[d.ID] == "" })
	return nil
}

// release gives back the claims on the deliveries not sent yet.
func (e *engine) release(ctx context.Context) error {
	byClaim := map[string][]string{}
	for _, l := range e.lanes {
		for _, d := range l.waiting {
			if c := e.held[d.ID]; c != "" {
				byClaim[c] = append(byClaim[c], d.ID)
			}
		}
	}
	if len(byClaim) > 0 {
		if _, err := e.extend(ctx, byClaim, e.opts.Now()); err != nil {
			return err
		}
	}
	e.dropWaiting(func(model.Delivery) bool { return true })
	return nil
}

// extend sets the claims' hold on their deliveries to until, in one
// transaction, and returns the deliveries they still held.
func (e *engine) extend(ctx context.Context, byClaim map[string][]string, until time.Time) (map[string]bool, error) {
	kept := map[string]bool{}
	err := e.st.Write(context.WithoutCancel(ctx), func(tx store.Tx) error {
		clear(kept)
		for c, ids := range byClaim {
			held, err := tx.DeliveryRenew(c, ids, until)
			if err != nil {
				return err
			}
			for _, id := range held {
				kept[id] = true
			}
		}
		return nil
	})
	return kept, err
}

// dropWaiting forgets the deliveries waiting for a place that drop says,
// and their claims.
func (e *engine) dropWaiting(drop func(model.Delivery) bool) {
	for _, l := range e.lanes {
		l.waiting = slices.DeleteFunc(l.waiting, func(d model.Delivery) bool {
			if drop(d) {
				delete(e.held, d.ID)
				return true
			}
			return false
		})
	}
	e.tidy()
}

// wait waits for something to do: a send coming back, the field
// changing, the next claimable delivery's time, the claims' renewal, or
// pause (when the field was in trouble; then only a send coming back cuts
// it short, to be recorded on the next step).
func (e *engine) wait(ctx context.Context, changed <-chan struct{}, pause *time.Duration) {
	now := e.opts.Now()
	var wake time.Duration
	switch {
	case pause != nil:
		wake = *pause
		changed = nil
	case e.due != nil:
		wake = max(e.due.Sub(now), e.opts.Poll)
	default:
		wake = time.Hour
	}
	if len(e.held) > 0 {
		wake = min(wake, max(e.renewed.Add(e.opts.Lease/3).Sub(now), 0))
	}
	t := time.NewTimer(wake)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
			return
		case s := <-e.back:
			e.came(s)
			if pause == nil {
				return
			}
		case <-t.C:
			return
		}
	}
}

// watch tells of the field's changes: at once on a field that can say
// so, else by asking it every Poll whether it changed. A field it cannot
// ask is asked again a second later.
func (e *engine) watch(ctx context.Context) <-chan struct{} {
	out := make(chan struct{}, 1)
	seen, _ := e.st.Changed(ctx)
	notifier, _ := e.st.(store.Notifier)
	go func() {
		for ctx.Err() == nil {
			var now int64
			var err error
			if notifier != nil {
				now, err = notifier.WaitChange(ctx, seen)
			} else {
				sleep(ctx, e.opts.Poll)
				now, err = e.st.Changed(ctx)
			}
			if err != nil {
				sleep(ctx, time.Second)
				continue
			}
			if now != seen {
				seen = now
				select {
				case out <- struct{}{}:
				default:
				}
			}
		}
	}()
	return out
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// stop ends a run: the claims on deliveries not sent yet are released,
// the sends running (which ctx's end cuts short) come back and are
// recorded.
func (e *engine) stop(ctx context.Context) error {
	err := e.release(ctx)
	for sending := e.sending(); sending > 0; sending-- {
		e.came(<-e.back)
	}
	return firstErr(err, e.record(ctx))
}

func (e *engine) sending() int {
	n := 0
	for _, l := range e.lanes {
		n += l.sending
	}
	return n
}
