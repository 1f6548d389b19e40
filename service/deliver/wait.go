package deliver

import (
	"context"
	"time"

	"arbiter/store"
)

// wait waits for something to do: a send coming back, the field
// changing, the next claimable delivery's time, the claims' renewal, or
// pause (when the field was in trouble; then the sends that come back
// are only collected, to be recorded once the pause is over).
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
	if len(e.held) > 0 && pause == nil {
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
