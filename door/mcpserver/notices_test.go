package mcpserver_test

import (
	"context"
	"slices"
	"testing"

	"arbiter/door/mcpserver"
	"arbiter/door/mcpserver/mcptest"
	"arbiter/model"
	"arbiter/service/review/reviewtest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// conflictSeen is the conflict tool's result as a client reads it.
type conflictSeen struct {
	model.ConflictDetail
	Told []string `json:"told"`
}

// An agent reads its own notices only: through a conflict (tool or
// resource) it sees who else was told, not what. Before, the conflict
// listed every agent's notifications whole, and a third agent could
// rebuild another's inbox from them.
func TestAConflictShowsOthersWhoWasToldNotWhat(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	a, b := mcptest.Serve(t, f.Path, ana, mcptest.Options{}), mcptest.Serve(t, f.Path, bob, mcptest.Options{})
	third := mcptest.Serve(t, f.Path, reviewtest.Senior1, mcptest.Options{ProtocolVersion: mcptest.Legacy})
	ra := mcptest.Result[model.RecordResult](a, mcpserver.ToolRecord, finding("p99 is 40 ms in the lab.", 0.9, ""))
	rb := mcptest.Result[model.RecordResult](b, mcpserver.ToolRecord, finding("p99 is 90 ms in production.", 0.6, ra.UnitID))
	id := rb.Conflicts[0].ID
	if d, err := f.Svc.Detail(context.Background(), id); err != nil || len(d.Notifications) < 2 {
		t.Fatalf("the field holds %d notifications about %s (%v): the test needs both authors told", len(d.Notifications), id, err)
	}

	for _, c := range []struct {
		who    string
		client *mcptest.Client
	}{{ana, a}, {bob, b}, {reviewtest.Senior1, third}} {
		d := mcptest.Result[conflictSeen](c.client, mcpserver.ToolConflict, map[string]any{"conflict_id": id})
		var res conflictSeen
		c.client.Read(mcpserver.ConflictURI(id), &res)
		for _, seen := range []conflictSeen{d, res} {
			for _, n := range seen.Notifications {
				if n.AgentID != c.who {
					t.Errorf("%s reads %s's notification #%d (%q) through %s", c.who, n.AgentID, n.ID, n.Summary, id)
				}
			}
			if !slices.Contains(seen.Told, ana) || !slices.Contains(seen.Told, bob) {
				t.Errorf("%s does not see who was told of %s: %v", c.who, id, seen.Told)
			}
		}
		if c.who != reviewtest.Senior1 && len(d.Notifications) == 0 {
			t.Errorf("%s does not see its own notification about %s", c.who, id)
		}
		r, err := c.client.Session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.ConflictURI(id)})
		if err != nil || r.CacheScope != "private" {
			t.Errorf("%s's read of %s: cache scope %q, %v", c.who, id, r.CacheScope, err)
		}
	}
}
