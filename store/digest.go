package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"slices"
	"time"

	"arbiter/model"
)

// Summary is what a field holds, counted, and a digest of all of it.
type Summary struct {
	Epoch         int64
	Agents        int64
	Units         int64
	Relations     int64
	Conflicts     int64
	Ballots       int64
	Notifications int64
	Events        int64
	// SHA256 is the hex SHA-256 of the field's content (Digest).
	SHA256 string
}

func (s Summary) String() string {
	return fmt.Sprintf("epoch %d; %d agents, %d units, %d relations, %d conflicts, %d ballots, %d notifications, %d events; sha256 %s",
		s.Epoch, s.Agents, s.Units, s.Relations, s.Conflicts, s.Ballots, s.Notifications, s.Events, s.SHA256)
}

// Digest reads the whole field through tx — the clock, the policy,
// agents, units with their relations, conflicts, ballots, notifications
// and events, each in the order the field keeps them — and returns the
// counts and a SHA-256 over one canonical line per row. Two fields with
// the same content have the same digest whichever engine keeps them:
// every value is written the same way from the model's types, ids and
// sequence numbers included. Times count to the microsecond, the
// precision PostgreSQL keeps; the columns triggers derive (a conflict's
// authors and ballot counts, the word index, the counts per status) are
// left out, since they follow from the rest.
func Digest(tx Tx) (Summary, error) {
	var s Summary
	d := digester{h: sha256.New()}
	var err error
	if s.Epoch, err = tx.Epoch(); err != nil {
		return s, err
	}
	d.line("clock", s.Epoch)
	p, err := tx.Policy()
	if err != nil {
		return s, err
	}
	d.line("policy", p.Level, p.Quorum, p.Tie, p.VoterMinAuthority, nonNil(p.VoterRoles), sortedMap(p.AuthorityRoles),
		p.Recusal, p.OperatorOverride, sortedMap(p.Owners), p.OwnersDecide, p.EscalationTimeout.Milliseconds(),
		p.EscalationFallback, max(1, p.VoteMinBallots), p.DetectionSensitivity.Or())
	err = tx.AgentEach(func(a model.Agent, epoch int64) error {
		s.Agents++
		d.line("agent", a.ID, a.Role, a.Kind, a.Authority, a.Status, micros(a.RegisteredAt), epoch, a.DBRole)
		return nil
	})
	if err != nil {
		return s, err
	}
	err = tx.UnitEach(func(seq int64, u model.Unit) error {
		s.Units++
		s.Relations += int64(len(u.Relations))
		d.line("unit", seq, u.ID, u.Mode, u.Type, u.Content, u.Intent.Purpose, u.Intent.TaskID, u.Intent.Question,
			u.Confidence.Score, u.Confidence.Reasoning, nonNil(u.Confidence.Evidence), nonNil(u.Confidence.Assumptions),
			u.Source.AgentID, u.Source.AgentRole, u.Source.SessionID, micros(u.Source.Timestamp), u.Status, u.Epoch)
		for _, r := range u.Relations {
			d.line("relation", u.ID, r.Type, r.TargetID, r.Description)
		}
		return nil
	})
	if err != nil {
		return s, err
	}
	err = tx.ConflictEachStored(func(seq int64, c model.Conflict) error {
		s.Conflicts++
		d.line("conflict", seq, c.ID, c.Type, c.Status, c.UnitA, c.UnitB, c.Description, c.DetectedBy,
			micros(c.DetectedAt), c.Epoch, c.Version, step(c.Escalation), step(c.VoteOpened), step(c.Rework),
			resolution(c.Resolution), route(c.Route), c.Proposal, c.ReworkOf, c.Detection)
		return nil
	})
	if err != nil {
		return s, err
	}
	err = tx.DetectDismissedEach(func(p model.Dismissed) error {
		d.line("dismissed", p.UnitA, p.UnitB, p.By, micros(p.At), p.ConflictID)
		return nil
	})
	if err != nil {
		return s, err
	}
	err = tx.BallotEach(func(b model.Ballot) error {
		s.Ballots++
		d.line("ballot", b.ConflictID, b.VoterID, b.Choice, b.Rationale, b.Epoch, micros(b.CastAt))
		return nil
	})
	if err != nil {
		return s, err
	}
	err = tx.NotificationEach(func(n model.Notification) error {
		s.Notifications++
		d.line("notification", n.ID, n.AgentID, n.Event, n.Epoch, n.RelevanceScore, n.Summary, n.MemoryUnitID,
			n.ConflictID, n.RequiresAction, micros(n.CreatedAt))
		return nil
	})
	if err != nil {
		return s, err
	}
	err = tx.EventEach(func(e model.Event) error {
		s.Events++
		payload := string(e.Payload)
		if payload == "" {
			payload = "{}"
		}
		d.line("event", e.ID, e.Epoch, e.Operation, e.AgentID, e.ConflictID, e.UnitID, payload, micros(e.At))
		return nil
	})
	if err != nil {
		return s, err
	}
	if d.err != nil {
		return s, d.err
	}
	s.SHA256 = hex.EncodeToString(d.h.Sum(nil))
	return s, nil
}

type digester struct {
	h   hash.Hash
	err error
}

// line writes one row: its kind and values as a JSON array, and a
// newline.
func (d *digester) line(kind string, values ...any) {
	if d.err != nil {
		return
	}
	b, err := json.Marshal(append([]any{kind}, values...))
	if err != nil {
		d.err = err
		return
	}
	d.h.Write(append(b, '\n'))
}

// micros is t in UTC to the microsecond.
func micros(t time.Time) string {
	return t.UTC().Truncate(time.Microsecond).Format("2006-01-02T15:04:05.000000Z07:00")
}

func step(e *model.Escalation) any {
	if e == nil {
		return nil
	}
	return []any{e.By, e.Reason, e.Epoch, micros(e.At)}
}

func resolution(r *model.Resolution) any {
	if r == nil {
		return nil
	}
	return []any{r.Strategy, r.WinnerID, r.SynthesisUnitID, r.Rationale, r.ResolvedBy, r.EpochResolved, micros(r.ResolvedAt)}
}

func route(r *model.Route) any {
	if r == nil {
		return nil
	}
	var deadline any
	if r.Deadline != nil {
		deadline = micros(*r.Deadline)
	}
	return []any{r.Owner, micros(r.Since), deadline, r.Fallback, r.Reminded}
}

func sortedMap(m map[model.ConflictType]string) [][2]string {
	out := [][2]string{}
	for k, v := range m {
		out = append(out, [2]string{string(k), v})
	}
	slices.SortFunc(out, func(a, b [2]string) int {
		if a[0] < b[0] {
			return -1
		}
		if a[0] > b[0] {
			return 1
		}
		return 0
	})
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
