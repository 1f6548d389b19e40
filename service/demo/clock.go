package demo

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Prelude is how long before StoryAge the story begins: the conflicts
// resolved over the days before the one whose conflicts still wait.
const Prelude = 6 * 24 * time.Hour

// storyClock is the time the story runs on: the clock the field was
// given, set back by the prelude at first and moved on by the story's
// pauses, so that each decision takes the minutes or hours a team takes
// and the figures (arbiter stats) look like a real team's.
type storyClock struct {
	base  func() time.Time
	mu    sync.Mutex
	ahead time.Duration
}

func (c *storyClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.base().Add(c.ahead)
}

func (c *storyClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ahead += d
}

// catchUp brings the story to StoryAge before now (the field's clock),
// where the conflicts that still wait begin; it fails if the prelude's
// pauses overran it.
func (c *storyClock) catchUp() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ahead > 0 {
		return fmt.Errorf("the prelude's pauses run %s past its %s", c.ahead, Prelude)
	}
	c.ahead = 0
	return nil
}

// pause is time passing in the story.
type pause time.Duration

func (p pause) do(_ context.Context, f *field) error {
	f.clock.advance(time.Duration(p))
	return nil
}

// catchUp is the end of the prelude.
type catchUp struct{}

func (catchUp) do(_ context.Context, f *field) error { return f.clock.catchUp() }

// paced is scene after a pause of before, with a pause of the next of
// thinks (the last again when they run out) before each decision and
// ballot: the time people and agents took.
func paced(before time.Duration, scene []act, thinks ...time.Duration) []act {
	out := []act{pause(before)}
	i := 0
	for _, a := range scene {
		switch a.(type) {
		case decide, ballot:
			out = append(out, pause(thinks[min(i, len(thinks)-1)]))
			i++
		}
		out = append(out, a)
	}
	return out
}
