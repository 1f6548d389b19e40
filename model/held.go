package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// A decision made on the review screen waits a few seconds, its undo
// window, before it is written. While it waits the field holds it, one
// HeldDecision per request (a batch of marked rows is several), so that
// whatever ends the screen — a dropped connection, a killed process — it
// is written or its person is told that it was not, never lost.

// HeldKind is what a held request is.
type HeldKind string

// The requests the screen holds.
const (
	HeldMerge  HeldKind = "merge"
	HeldVote   HeldKind = "vote"
	HeldRework HeldKind = "rework"
)

// Valid reports whether k is a kind the field holds.
func (k HeldKind) Valid() bool { return k == HeldMerge || k == HeldVote || k == HeldRework }

// HeldDecision is one request held in its undo window.
type HeldDecision struct {
	ID string `json:"id"`
	// AgentID is who made it: it is written as them.
	AgentID    string   `json:"agent_id"`
	ConflictID string   `json:"conflict_id"`
	Kind       HeldKind `json:"kind"`
	// Request is the MergeRequest, VoteRequest or ReworkRequest, as JSON.
	Request json.RawMessage `json:"request"`
	HeldAt  time.Time       `json:"held_at"`
	// DueAt is when anyone who sweeps the field writes it, if the
	// screen that holds it has not (its window, and a grace).
	DueAt time.Time `json:"due_at"`
	// DoneAt is when a sweep carried it out (nil while it waits);
	// Outcome is then "" if it was written, else why it was not.
	DoneAt  *time.Time `json:"done_at,omitempty"`
	Outcome string     `json:"outcome,omitempty"`
}

// HeldRequests are the requests one action on the screen holds together.
type HeldRequests struct {
	Merges  []MergeRequest
	Votes   []VoteRequest
	Reworks []ReworkRequest
}

// Len is how many requests r holds.
func (r HeldRequests) Len() int { return len(r.Merges) + len(r.Votes) + len(r.Reworks) }

// Each calls fn for each request of r in its order — merges, then votes,
// then reworks — with its kind and conflict.
func (r HeldRequests) Each(fn func(kind HeldKind, conflict string, req any)) {
	for _, m := range r.Merges {
		fn(HeldMerge, m.ConflictID, m)
	}
	for _, v := range r.Votes {
		fn(HeldVote, v.ConflictID, v)
	}
	for _, w := range r.Reworks {
		fn(HeldRework, w.ConflictID, w)
	}
}

// Held makes the HeldDecisions of r for agent, ids[i] for the i-th
// request (Each's order).
func (r HeldRequests) Held(ids []string, agent string, at, due time.Time) ([]HeldDecision, error) {
	if len(ids) != r.Len() {
		return nil, fmt.Errorf("%d ids for %d requests", len(ids), r.Len())
	}
	var out []HeldDecision
	var err error
	r.Each(func(kind HeldKind, conflict string, req any) {
		b, merr := json.Marshal(req)
		if merr != nil {
			err = errors.Join(err, merr)
			return
		}
		out = append(out, HeldDecision{ID: ids[len(out)], AgentID: agent, ConflictID: conflict, Kind: kind,
			Request: b, HeldAt: at, DueAt: due})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Describe says in a few words what h decides: "conflict-010:
// confidence_weighted, keeping mem-026", "conflict-016: a vote for
// mem-041", "conflict-003: sent back for rework".
func (h HeldDecision) Describe() string {
	switch h.Kind {
	case HeldMerge:
		var m MergeRequest
		if json.Unmarshal(h.Request, &m) == nil {
			s := h.ConflictID + ": " + string(m.Strategy)
			if w := m.Resolution.WinnerID; w != nil && *w != "" {
				s += ", keeping " + *w
			}
			return s
		}
	case HeldVote:
		var v VoteRequest
		if json.Unmarshal(h.Request, &v) == nil {
			return h.ConflictID + ": a vote for " + v.Choice
		}
	case HeldRework:
		return h.ConflictID + ": sent back for rework"
	}
	return h.ConflictID + ": a decision"
}

// HeldOutcome is what a sweep did with a held decision whose time came.
type HeldOutcome struct {
	ID         string `json:"id"`
	AgentID    string `json:"agent_id"`
	ConflictID string `json:"conflict_id"`
	// What says what it decides (HeldDecision.Describe).
	What    string `json:"what"`
	Written bool   `json:"written"`
	// Reason is why it was not written ("" when it was).
	Reason string `json:"reason,omitempty"`
}

// EventNotWritten: a decision its person made on the screen, held in its
// undo window when the screen ended, could not be written; the summary
// says why.
const EventNotWritten = "decision.not_written"
