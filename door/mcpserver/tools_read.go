package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"arbiter/model"
)

// conflictsResult is the conflicts tool's answer.
type conflictsResult struct {
	Yours      int                     `json:"yours" jsonschema:"how many of the first rows are about units you recorded"`
	Conflicts  []model.ConflictSummary `json:"conflicts" jsonschema:"oldest first: yours, then the others"`
	More       bool                    `json:"more" jsonschema:"true when the limit cut the list: pass next_cursor back as cursor to read on"`
	NextCursor string                  `json:"next_cursor,omitempty" jsonschema:"when more is true: pass it back as cursor for the next page"`
}

// errEnough stops a walk over the conflicts once a page is full.
var errEnough = errors.New("enough")

// openStatuses are the statuses of conflicts still waiting for a decision.
var openStatuses = slices.DeleteFunc(slices.Clone(model.ConflictStatuses), func(s model.ConflictStatus) bool { return !s.Open() })

func (s *Server) conflicts(ctx context.Context, in conflictsInput) (conflictsResult, string, error) {
	const op = model.OpDetect
	out := conflictsResult{Conflicts: []model.ConflictSummary{}}
	limit, err := limitOf(op, in.Limit, 50, 500)
	if err != nil {
		return out, "", err
	}
	var from conflictsCursor
	if err := decodeCursor(op, in.Cursor, &from); err != nil {
		return out, "", err
	}
	// By default: your open conflicts, then the review queue.
	mine, rest := openStatuses, model.ReviewStatuses
	if len(in.Status) > 0 {
		if mine, err = statusFilter(in.Status); err != nil {
			return out, "", err
		}
		rest = mine
	}
	me := s.agent.ID
	isMine := func(c model.ConflictSummary) bool {
		return (c.AgentA == me || c.AgentB == me) && (mine == nil || slices.Contains(mine, c.Status))
	}
	// part is the part being read; lastPart that of the last row given,
	// where the next page reads on.
	part, lastPart := 0, 0
	take := func(c model.ConflictSummary) error {
		if len(out.Conflicts) == limit {
			out.More = true
			last := out.Conflicts[len(out.Conflicts)-1]
			out.NextCursor = encodeCursor(conflictsCursor{Part: lastPart, Epoch: last.Epoch, ID: last.ID})
			return errEnough
		}
		out.Conflicts = append(out.Conflicts, c)
		lastPart = part
		return nil
	}
	if from.Part == 0 {
		// Search narrows to rows naming the caller; only exact authors count.
		passed := false
		err = s.svc.EachConflict(ctx, model.ListQuery{Statuses: mine, Sort: model.SortAge, Search: me}, func(c model.ConflictSummary) error {
			if !isMine(c) || !from.after(c, &passed) {
				return nil
			}
			return take(c)
		})
		if err != nil && !errors.Is(err, errEnough) {
			return out, "", err
		}
		out.Yours = len(out.Conflicts)
		from = conflictsCursor{Part: 1}
	}
	if !out.More {
		part = 1
		passed := false
		err = s.svc.EachConflict(ctx, model.ListQuery{Statuses: rest, Sort: model.SortAge}, func(c model.ConflictSummary) error {
			if isMine(c) || !from.after(c, &passed) {
				return nil
			}
			return take(c)
		})
		if err != nil && !errors.Is(err, errEnough) {
			return out, "", err
		}
	}
	return out, summarizeConflicts(out), nil
}

// statusFilter reads the status argument; "all" is no filter (nil).
func statusFilter(names []statusName) ([]model.ConflictStatus, error) {
	var out []model.ConflictStatus
	for _, n := range names {
		switch s := model.ConflictStatus(strings.TrimSpace(string(n))); {
		case s == "all":
			return nil, nil
		case !s.Valid():
			return nil, model.Errorf(model.OpDetect, model.CodeInvalidRequest, "name statuses, or all", "unknown status %q", string(n))
		default:
			out = append(out, s)
		}
	}
	return out, nil
}

// limitOf is a limit argument: def when absent, at most max.
func limitOf(op string, n, def, max int) (int, error) {
	switch {
	case n < 0:
		return 0, model.Errorf(op, model.CodeInvalidRequest, "give a limit of 1 or more, or none", "limit %d is negative", n)
	case n == 0:
		return def, nil
	}
	return min(n, max), nil
}

func summarizeConflicts(r conflictsResult) string {
	if len(r.Conflicts) == 0 {
		return "no conflicts"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d about your units)", plural(len(r.Conflicts), "conflict", "conflicts"), r.Yours)
	for i, c := range r.Conflicts {
		if i == 10 {
			fmt.Fprintf(&b, "; and %d more in the structured content", len(r.Conflicts)-10)
			break
		}
		fmt.Fprintf(&b, "; %s %s", q(c.ID), c.Status)
	}
	if r.More {
		b.WriteString("; more beyond the limit: pass next_cursor back as cursor")
	}
	return b.String()
}

func (s *Server) conflict(ctx context.Context, in conflictInput) (conflictView, string, error) {
	d, err := s.detail(ctx, in.ConflictID)
	if err != nil {
		return d, "", err
	}
	return d, summarizeDetail(d.ConflictDetail), nil
}

func summarizeDetail(d model.ConflictDetail) string {
	c := d.Conflict
	var b strings.Builder
	fmt.Fprintf(&b, "conflict %s: %s, %s, version %d; A %s by %s, B %s by %s", q(c.ID), c.Type, c.Status, c.Version,
		q(c.UnitA), q(d.A.Unit.Source.AgentID), q(c.UnitB), q(d.B.Unit.Source.AgentID))
	if c.Status == model.StatusPendingVote || len(d.Ballots) > 0 {
		fmt.Fprintf(&b, "; votes A %d, B %d of quorum %d", d.Tally.ForA, d.Tally.ForB, d.Tally.Quorum)
	}
	if r := c.Resolution; r != nil {
		fmt.Fprintf(&b, "; resolved with %s by %s", r.Strategy, q(r.ResolvedBy))
		if r.WinnerID != nil {
			fmt.Fprintf(&b, ", winner %s", q(*r.WinnerID))
		}
	}
	if det := c.Detection; det != nil {
		fmt.Fprintf(&b, "; the field detected it (%s, score %.2f at %s): A says %s, B says %s", det.Signal, det.Score,
			det.Sensitivity, q(det.PhraseA.Text), q(det.PhraseB.Text))
		if c.Status.Open() {
			b.WriteString("; if it is not a contradiction, merge it with strategy dismiss: the pair is not detected again")
		}
	}
	b.WriteString("; rules pick:")
	for _, p := range d.Picks {
		pick := "tie"
		if !p.Tie {
			pick = q(p.WinnerID)
		}
		fmt.Fprintf(&b, " %s %s", p.Strategy, pick)
	}
	b.WriteString(". The units' text is in the structured content.")
	return b.String()
}

func (s *Server) unit(ctx context.Context, in unitInput) (model.UnitDetail, string, error) {
	d, err := s.svc.Unit(ctx, in.UnitID)
	if err != nil {
		return d, "", err
	}
	u := d.Unit
	return d, fmt.Sprintf("unit %s: %s, %s, by %s at epoch %d; %s, %s in, %s. Its text is in the structured content.",
		q(u.ID), u.Type, u.Status, q(u.Source.AgentID), u.Epoch,
		plural(len(u.Relations), "relation", "relations"), plural(len(d.Incoming), "relation", "relations"),
		plural(len(d.Conflicts), "conflict", "conflicts")), nil
}

// inboxResult is the inbox tool's answer.
type inboxResult struct {
	Notifications []model.Notification `json:"notifications" jsonschema:"oldest first"`
	NextSinceID   int64                `json:"next_since_id" jsonschema:"pass as since_id to read only newer notifications"`
	More          bool                 `json:"more" jsonschema:"true when the limit cut the list: read again with next_since_id, or next_cursor as cursor"`
	NextCursor    string               `json:"next_cursor,omitempty" jsonschema:"when more is true: pass it back as cursor for the next page"`
}

func (s *Server) inboxTool(ctx context.Context, in inboxInput) (inboxResult, string, error) {
	const op = model.OpAttune
	out := inboxResult{Notifications: []model.Notification{}, NextSinceID: in.SinceID}
	limit, err := limitOf(op, in.Limit, 100, 1000)
	if err != nil {
		return out, "", err
	}
	if in.SinceID < 0 || in.SinceEpoch < 0 {
		return out, "", model.Errorf(op, model.CodeInvalidRequest, "use 0 or more", "since_id and since_epoch cannot be negative")
	}
	if in.Cursor != "" {
		if in.SinceID, err = decodeInboxCursor(in.Cursor); err != nil {
			return out, "", err
		}
		out.NextSinceID = in.SinceID
	}
	// Notifications are numbered in the order the field wrote them, and
	// so by epoch: those up to since_epoch come first, and are skipped.
	since := in.SinceID
	for {
		page, err := s.svc.Inbox(ctx, s.agent.ID, since, limit+1)
		if err != nil {
			return out, "", err
		}
		for _, n := range page {
			since = n.ID
			if n.Epoch <= in.SinceEpoch {
				out.NextSinceID = n.ID
				continue
			}
			if len(out.Notifications) == limit {
				out.More = true
				break
			}
			out.Notifications = append(out.Notifications, n)
			out.NextSinceID = n.ID
		}
		if out.More || len(page) <= limit {
			break
		}
	}
	if out.More {
		out.NextCursor = inboxCursor(out.NextSinceID)
	}
	return out, summarizeInbox(s.agent.ID, in.SinceID, out), nil
}

func summarizeInbox(agent string, since int64, r inboxResult) string {
	if len(r.Notifications) == 0 {
		return fmt.Sprintf("no notifications for %s after #%d", q(agent), since)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s for %s", plural(len(r.Notifications), "notification", "notifications"), q(agent))
	for i, n := range r.Notifications {
		if i == 10 {
			fmt.Fprintf(&b, "; and %d more", len(r.Notifications)-10)
			break
		}
		fmt.Fprintf(&b, "; #%d %s", n.ID, q(n.Event))
		if n.ConflictID != nil {
			fmt.Fprintf(&b, " on %s", q(*n.ConflictID))
		}
		if n.RequiresAction {
			b.WriteString(" (requires action)")
		}
	}
	fmt.Fprintf(&b, "; next since_id %d", r.NextSinceID)
	if r.More {
		b.WriteString(" (more to read)")
	}
	return b.String()
}
