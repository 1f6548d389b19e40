package interop

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"arbiter/internal/akashiklog"
	"arbiter/model"
	"arbiter/store"

	"github.com/oklog/ulid/v2"
)

// ExportReport is what an export to an SDK log found and appended.
type ExportReport struct {
	// Resolved is how many resolved conflicts the field holds.
	Resolved int `json:"resolved"`
	// Exported counts the resolved conflicts between two entries of the
	// log that say something in the SDK's terms (not dismissed).
	Exported int `json:"exported"`
	// Dismissed counts those dismissed: both entries stand, nothing to say.
	Dismissed int `json:"dismissed"`
	// NotInLog counts resolved conflicts whose units are not both entries
	// of this log.
	NotInLog int `json:"not_in_log"`
	// Appended is how many events were written; AlreadyInLog how many were
	// found there from an earlier export.
	Appended     int `json:"appended"`
	AlreadyInLog int `json:"already_in_log"`
	// CutTornLine is set when the log ended in a torn line that the append
	// cut off first, as the SDK's writers do.
	CutTornLine bool `json:"cut_torn_line,omitempty"`
}

// ExportAkashik appends the field's decisions on conflicts between entries
// of the SDK log at path to that log, with the SDK's lock-file protocol
// (akashiklog.Append), as one batch:
//
//   - a resolution with a winner supersedes the loser: a STATUS_CHANGE to
//     superseded, by the person who resolved it;
//   - a synthesis is a RECORD of the new unit (its unit id as entry id,
//     entry {topic, text, resolves}, superseding unit A) and a
//     STATUS_CHANGE superseding unit B;
//   - a dismissal, and anything not resolved, says nothing.
//
// Each event's id is a ULID made from the resolution's time and a hash of
// the conflict, its units and the event's role, so exporting again finds
// the events already there and appends only what is new. Lamports follow
// the larger of the log's and the field's clocks.
func ExportAkashik(ctx context.Context, st store.Field, path string) (ExportReport, error) {
	return ExportAkashikCounting(ctx, st, path, nil)
}

// ExportAkashikCounting is ExportAkashik that calls count, when it is not
// nil, with the resolved conflicts read so far and their number, for a
// progress report.
func ExportAkashikCounting(ctx context.Context, st store.Field, path string, count func(done, total int64)) (ExportReport, error) {
	var rep ExportReport
	err := akashiklog.Append(path, func(tail akashiklog.Tail) ([]akashiklog.Event, error) {
		rep = ExportReport{CutTornLine: tail.TornTail}
		state := akashiklog.Replay(tail.Events)
		var out []akashiklog.Event
		err := readExport(ctx, st, func(tx exportTx) error {
			epoch, err := tx.Epoch()
			if err != nil {
				return err
			}
			resolved, err := tx.ConflictList(model.ListQuery{Statuses: []model.ConflictStatus{model.StatusResolved}})
			if err != nil {
				return err
			}
			rep.Resolved = len(resolved)
			slices.SortFunc(resolved, func(a, b model.ConflictSummary) int {
				return cmp.Or(cmp.Compare(a.Resolution.EpochResolved, b.Resolution.EpochResolved), cmp.Compare(a.ID, b.ID))
			})
			lamport := max(tail.MaxLamport, epoch)
			for i, cs := range resolved {
				if count != nil {
					count(int64(i), int64(len(resolved)))
				}
				events, err := decisionEvents(tx, state, cs.Conflict, &rep)
				if err != nil {
					return fmt.Errorf("%s: %w", cs.ID, err)
				}
				for _, e := range events {
					if tail.Has(e.EventID) {
						rep.AlreadyInLog++
						continue
					}
					lamport++
					e.Lamport = lamport
					out = append(out, e)
				}
			}
			if count != nil {
				count(int64(len(resolved)), int64(len(resolved)))
			}
			return nil
		})
		rep.Appended = len(out)
		return out, err
	})
	if err != nil {
		rep.Appended = 0
	}
	return rep, err
}

// decisionEvents are the SDK events that say what the resolution of c
// did, or none.
func decisionEvents(tx store.UnitTx, state *akashiklog.State, c model.Conflict, rep *ExportReport) ([]akashiklog.Event, error) {
	a, b := state.Entry(c.UnitA), state.Entry(c.UnitB)
	r := c.Resolution
	switch {
	case a == nil || b == nil:
		rep.NotInLog++
		return nil, nil
	case r == nil:
		return nil, nil
	case r.Strategy == model.Dismiss:
		rep.Dismissed++
		return nil, nil
	}
	by := r.ResolvedBy
	at := r.ResolvedAt
	if at.IsZero() {
		at = time.UnixMilli(0)
	}
	base := akashiklog.Event{Agent: &by, WallTime: at.UnixMilli()}
	supersede := func(role, id, why string) akashiklog.Event {
		e := base
		e.Type, e.EventID, e.EntryID, e.NewStatus = akashiklog.TypeStatusChange, ExportEventID(at, c, role), id, akashiklog.StatusSuperseded
		e.Intent = why
		return e
	}
	switch {
	case r.Strategy == model.Synthesis && r.SynthesisUnitID != nil:
		u, err := tx.Unit(*r.SynthesisUnitID)
		if err != nil {
			return nil, err
		}
		topic := a.Topic
		if !a.HasTopic {
			topic = b.Topic
		}
		entry := map[string]any{"text": u.Content, "resolves": c.ID}
		if topic != "" {
			entry["topic"] = topic
		}
		raw, err := marshalEntry(entry)
		if err != nil {
			return nil, err
		}
		rec := base
		rec.Type, rec.EventID, rec.EntryID, rec.Entry, rec.Supersedes = akashiklog.TypeRecord, ExportEventID(at, c, "synthesis"), u.ID, raw, c.UnitA
		rec.Intent = fmt.Sprintf("arbiter %s: %s reconciles %s and %s by synthesis (%s)", c.ID, u.ID, c.UnitA, c.UnitB, oneLine(r.Rationale))
		rec.Confidence = &akashiklog.Confidence{Score: u.Confidence.ScoreOr(DefaultScore), Reason: u.Confidence.Reasoning}
		other := supersede("synthesis-other", c.UnitB,
			fmt.Sprintf("arbiter %s: superseded by the synthesis %s", c.ID, u.ID))
		rep.Exported++
		return []akashiklog.Event{rec, other}, nil
	case r.WinnerID != nil:
		loser, ok := c.Other(*r.WinnerID)
		if !ok {
			return nil, fmt.Errorf("winner %s is not one of its units", *r.WinnerID)
		}
		rep.Exported++
		return []akashiklog.Event{supersede("loser", loser,
			fmt.Sprintf("arbiter %s resolved by %s: %s prevails over %s (%s)", c.ID, r.Strategy, *r.WinnerID, loser, oneLine(r.Rationale)))}, nil
	}
	return nil, nil
}

// ExportEventID is the event id an export gives the event of role for the
// resolution of c at time at: a ULID whose time is at and whose entropy is
// a hash of the conflict, its units and the role, so the same decision
// always makes the same id.
func ExportEventID(at time.Time, c model.Conflict, role string) string {
	return deterministicULID(at, "akashik-export", c.ID, c.UnitA, c.UnitB, role)
}

func deterministicULID(at time.Time, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	ms := uint64(max(at.UnixMilli(), 0))
	return ulid.MustNew(min(ms, ulid.MaxTime()), bytes.NewReader(h.Sum(nil))).String()
}

func marshalEntry(entry map[string]any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(entry); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(buf.Bytes()), nil
}

func oneLine(s string) string {
	r := []rune(string(bytes.Join(bytes.Fields([]byte(s)), []byte(" "))))
	if len(r) > 160 {
		return string(r[:157]) + "..."
	}
	return string(r)
}
