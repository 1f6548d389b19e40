package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"strings"
	"sync"

	"arbiter/model"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource URIs.
const (
	InboxURI          = "arbiter://inbox"
	conflictURIPrefix = "arbiter://conflicts/"
	conflictTemplate  = conflictURIPrefix + "{id}"
)

// ConflictURI is the resource of one conflict.
func ConflictURI(id string) string { return conflictURIPrefix + id }

func (s *Server) addResources() {
	s.mcp.AddResource(&mcp.Resource{URI: InboxURI, Name: "inbox", Title: "Your notifications", MIMEType: "application/json",
		Description: "Your latest notifications (up to 100, oldest first) and next_since_id for the inbox tool. " +
			"Subscribe to hear, within a second, when a notification for you lands in the field."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			c, err := s.inbox.contents(ctx)
			if err != nil {
				return nil, err
			}
			res, err := jsonContents(req.Params.URI, c)
			if res != nil {
				// One agent's notifications: no one else's client, nor
				// anything between, may keep them.
				res.CacheScope = "private"
			}
			return res, err
		})
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: conflictTemplate, Name: "conflict", Title: "A conflict",
		MIMEType: "application/json",
		Description: "Everything known of one conflict, as the conflict tool returns it. Subscribe to hear when it changes: " +
			"a decision, an escalation, a ballot."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			d, err := s.conflictResource(ctx, req.Params.URI)
			if err != nil {
				return nil, err
			}
			res, err := jsonContents(req.Params.URI, d)
			if res != nil {
				// The agent's own notices are in it: as private as the
				// inbox.
				res.CacheScope = "private"
			}
			return res, err
		})
}

// conflictResource reads the conflict a resource URI names.
func (s *Server) conflictResource(ctx context.Context, uri string) (conflictView, error) {
	id, ok := strings.CutPrefix(uri, conflictURIPrefix)
	if !ok || id == "" {
		return conflictView{}, mcp.ResourceNotFoundError(uri)
	}
	d, err := s.detail(ctx, id)
	if model.HasCode(err, model.CodeConflictNotFound) {
		return d, mcp.ResourceNotFoundError(uri)
	}
	return d, err
}

func jsonContents(uri string, v any) (*mcp.ReadResourceResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

// subscriptions are the conflicts the client subscribed to, each with a
// stamp of its contents when last announced. The inbox needs none: the
// watcher follows it whether or not anyone listens.
type subscriptions struct {
	mu        sync.Mutex
	conflicts map[string]*conflictSub // by URI
}

type conflictSub struct {
	id    string
	count int // subscriptions to it (the SDK may hold one per session)
	stamp [32]byte
}

func newSubscriptions() *subscriptions {
	return &subscriptions{conflicts: map[string]*conflictSub{}}
}

func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	if uri == InboxURI {
		return nil
	}
	d, err := s.conflictResource(ctx, uri)
	if err != nil {
		return err
	}
	stamp, err := stampOf(d)
	if err != nil {
		return err
	}
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	if sub := s.subs.conflicts[uri]; sub != nil {
		sub.count++
		return nil
	}
	s.subs.conflicts[uri] = &conflictSub{id: d.Conflict.ID, count: 1, stamp: stamp}
	return nil
}

func (s *Server) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	if sub := s.subs.conflicts[req.Params.URI]; sub != nil {
		if sub.count--; sub.count <= 0 {
			delete(s.subs.conflicts, req.Params.URI)
		}
	}
	return nil
}

// watched returns the subscribed conflicts' URIs and ids.
func (s *subscriptions) watched() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.conflicts))
	for uri, sub := range s.conflicts {
		out[uri] = sub.id
	}
	return out
}

// changed records stamp as uri's and reports whether it differs from the
// one before (false for a URI no longer subscribed).
func (s *subscriptions) changed(uri string, stamp [32]byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := s.conflicts[uri]
	if sub == nil || sub.stamp == stamp {
		return false
	}
	sub.stamp = stamp
	return true
}

// stampOf fingerprints what a reader of the conflict's resource sees: its
// version moves with its status, but a ballot, or a unit superseded by
// another decision, changes the resource too.
func stampOf(d conflictView) ([32]byte, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(b), nil
}
