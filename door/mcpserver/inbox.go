package mcpserver

import (
	"context"
	"slices"
	"sync"

	"arbiter/model"
	"arbiter/service/review"
)

// inboxKeep is how many of the latest notifications the inbox resource
// holds; the inbox tool pages through all of them.
const inboxKeep = 100

// inboxTail follows the end of one agent's inbox: the latest
// notifications and the id of the last one.
type inboxTail struct {
	svc   *review.Service
	agent string

	mu     sync.Mutex
	last   int64
	latest []model.Notification // at most inboxKeep, oldest first
}

func newInboxTail(svc *review.Service, agent string) *inboxTail {
	return &inboxTail{svc: svc, agent: agent}
}

// refresh reads the notifications that arrived since the last refresh and
// returns the id of the last one.
func (t *inboxTail) refresh(ctx context.Context) (int64, error) {
	const page = 1000
	t.mu.Lock()
	defer t.mu.Unlock()
	for {
		ns, err := t.svc.Inbox(ctx, t.agent, t.last, page)
		if err != nil {
			return t.last, err
		}
		if len(ns) > 0 {
			t.last = ns[len(ns)-1].ID
			t.latest = append(t.latest, ns[max(0, len(ns)-inboxKeep):]...)
			if extra := len(t.latest) - inboxKeep; extra > 0 {
				t.latest = slices.Delete(t.latest, 0, extra)
			}
		}
		if len(ns) < page {
			return t.last, nil
		}
	}
}

// inboxContents is what the resource arbiter://inbox holds.
type inboxContents struct {
	AgentID       string               `json:"agent_id"`
	Notifications []model.Notification `json:"notifications"`
	NextSinceID   int64                `json:"next_since_id"`
}

// contents reads the newest notifications and returns the latest.
func (t *inboxTail) contents(ctx context.Context) (inboxContents, error) {
	if _, err := t.refresh(ctx); err != nil {
		return inboxContents{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return inboxContents{AgentID: t.agent, Notifications: append([]model.Notification{}, t.latest...), NextSinceID: t.last}, nil
}

// lastSeen is the id of the last notification read.
func (t *inboxTail) lastSeen() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}
