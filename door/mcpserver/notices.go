package mcpserver

import (
	"context"

	"arbiter/model"
)

// conflictView is a conflict as one agent sees it over MCP: the
// notifications about it are the agent's own; of the others, who was
// told, not what. An agent's notices are its inbox: another agent must
// not read them through a conflict.
type conflictView struct {
	model.ConflictDetail
	// Told are the agents notified of the conflict, each once, in the
	// order they were first told.
	Told []string `json:"told" jsonschema:"the agents notified of this conflict, each once; what each was told is in its own inbox only"`
}

// detail reads conflict id as the served agent sees it.
func (s *Server) detail(ctx context.Context, id string) (conflictView, error) {
	d, err := s.svc.Detail(ctx, id)
	if err != nil {
		return conflictView{ConflictDetail: d, Told: []string{}}, err
	}
	return viewOf(d, s.agent.ID), nil
}

// viewOf is d as agent sees it.
func viewOf(d model.ConflictDetail, agent string) conflictView {
	v := conflictView{ConflictDetail: d, Told: []string{}}
	own := make([]model.Notification, 0, len(d.Notifications))
	seen := map[string]bool{}
	for _, n := range d.Notifications {
		if n.AgentID == agent {
			own = append(own, n)
		}
		if !seen[n.AgentID] {
			seen[n.AgentID] = true
			v.Told = append(v.Told, n.AgentID)
		}
	}
	v.Notifications = own
	return v
}
