package deliver

import (
	"context"
	"slices"

	"arbiter/model"
)

// lane is one hook's sends: how many are running, and the claimed
// deliveries waiting for a place, in the order they were claimed.
type lane struct {
	sending int
	waiting []model.Delivery
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

func (e *engine) sending() int {
	n := 0
	for _, l := range e.lanes {
		n += l.sending
	}
	return n
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

// tidy forgets the lanes of hooks with nothing held.
func (e *engine) tidy() {
	for id, l := range e.lanes {
		if l.sending == 0 && len(l.waiting) == 0 {
			delete(e.lanes, id)
		}
	}
}
