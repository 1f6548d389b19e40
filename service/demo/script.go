package demo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"arbiter/model"
	"arbiter/service/review"
)

// act is one step of the story: a RECORD, a MERGE or a vote.
type act interface {
	do(ctx context.Context, f *field) error
}

// field runs the story against the real rules and remembers the ids the
// field assigned, by the story's own keys.
type field struct {
	svc       *review.Service
	units     map[string]string // unit key → unit id
	conflicts map[string]string // key of the contradicting unit → conflict id
	// clock is the time the story runs on (clock.go).
	clock *storyClock
	// adapt is set when the field's policy is not the demo's own: a step
	// that policy refuses is then left out (a decision becomes an
	// escalation where one is still possible) instead of failing.
	adapt bool
	// detects is set when the field's policy detects at the demo's level:
	// the contradictions the story expects the field to find must be
	// found.
	detects bool
}

func newField(svc *review.Service, adapt, detects bool) *field {
	return &field{svc: svc, units: map[string]string{}, conflicts: map[string]string{}, adapt: adapt, detects: detects}
}

// refusedByPolicy reports whether err is the field refusing a step of the
// story because its policy differs from the demo's: a strategy its level
// lacks, a quorum its voters cannot reach, a role it does not designate,
// a recusal, or a state an earlier left-out step did not bring about.
func (f *field) refusedByPolicy(err error) bool {
	pe, ok := model.AsError(err)
	if !f.adapt || !ok {
		return false
	}
	switch pe.Code {
	case model.CodeUnsupportedOperation, model.CodeMergeFailed, model.CodeNotPermitted, model.CodeInvalidTransition:
		return true
	}
	return false
}

func (f *field) unit(key string) (string, error) {
	id, ok := f.units[key]
	if !ok {
		return "", fmt.Errorf("unit %q is not recorded yet", key)
	}
	return id, nil
}

func (f *field) conflict(key string) (string, error) {
	id, ok := f.conflicts[key]
	if !ok {
		return "", fmt.Errorf("no conflict was opened by unit %q", key)
	}
	return id, nil
}

// unit is a RECORD. Supports, Informs and Supersedes name earlier units
// by key; a non-empty Contradicts opens a conflict of type Conflict,
// described by Why, which later acts name by this unit's Key.
type unit struct {
	Key         string
	By          string
	Type        model.UnitType
	Content     string
	Purpose     string
	Task        string
	Question    string
	Score       float64
	Reasoning   string
	Evidence    []string
	Assumptions []string
	Supports    []string
	Informs     []string
	Supersedes  []string
	Answers     string
	Contradicts string
	Conflict    model.ConflictType
	Why         string
	// Detects are the earlier units, by key, the field finds this one
	// contradicts though it does not say so (docs/detection.md).
	Detects []string
}

func (u unit) do(ctx context.Context, f *field) error {
	req := model.RecordRequest{
		Mode:    model.ModeCommitted,
		Type:    u.Type,
		Content: md(u.Content),
		Intent:  model.Intent{Purpose: u.Purpose, TaskID: optional(u.Task), Question: optional(u.Question)},
		Confidence: model.Confidence{Score: model.Ptr(u.Score), Reasoning: u.Reasoning,
			Evidence: nonNil(u.Evidence), Assumptions: nonNil(u.Assumptions)},
		Relations:    []model.Relation{},
		ConflictType: u.Conflict,
	}
	link := func(t model.RelationType, key, desc string) error {
		id, err := f.unit(key)
		if err != nil {
			return fmt.Errorf("record %s: %w", u.Key, err)
		}
		req.Relations = append(req.Relations, model.Relation{Type: t, TargetID: id, Description: desc})
		return nil
	}
	for _, k := range u.Supports {
		if err := link(model.RelSupports, k, ""); err != nil {
			return err
		}
	}
	for _, k := range u.Informs {
		if err := link(model.RelInforms, k, ""); err != nil {
			return err
		}
	}
	for _, k := range u.Supersedes {
		if err := link(model.RelSupersedes, k, ""); err != nil {
			return err
		}
	}
	if u.Answers != "" {
		if err := link(model.RelAnswers, u.Answers, ""); err != nil {
			return err
		}
	}
	if u.Contradicts != "" {
		if err := link(model.RelContradicts, u.Contradicts, u.Why); err != nil {
			return err
		}
	}
	res, err := f.svc.Record(ctx, u.By, req)
	if err != nil {
		return fmt.Errorf("record %s by %s: %w", u.Key, u.By, err)
	}
	f.units[u.Key] = res.UnitID
	return f.opened(u, res.Conflicts)
}

// opened checks the conflicts recording u opened against the story: one
// for its contradicts relation, and one detected against each unit of
// Detects, no other (where the field's policy detects at all). Later acts
// name the declared conflict by u's key, a detected one by u's key, "~"
// and the key of the unit it contradicts.
func (f *field) opened(u unit, cs []model.Conflict) error {
	keyOf := map[string]string{}
	for k, id := range f.units {
		keyOf[id] = k
	}
	var declared int
	for _, c := range cs {
		if c.Detection == nil {
			declared++
			f.conflicts[u.Key] = c.ID
			continue
		}
		other := keyOf[c.UnitA]
		if !slices.Contains(u.Detects, other) {
			return fmt.Errorf("record %s: the field detected that it contradicts %s (%s), which the story does not expect",
				u.Key, other, c.Detection.Reason())
		}
		f.conflicts[u.Key+"~"+other] = c.ID
	}
	if want := boolInt(u.Contradicts != ""); declared != want {
		return fmt.Errorf("record %s: %d conflicts declared, want %d", u.Key, declared, want)
	}
	if f.detects {
		for _, k := range u.Detects {
			if _, ok := f.conflicts[u.Key+"~"+k]; !ok {
				return fmt.Errorf("record %s: the field did not detect that it contradicts %s", u.Key, k)
			}
		}
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// decide is a MERGE on the conflict opened by unit key Conflict. Winner
// names the winning unit by key; deterministic strategies check it
// against their rule, so a story that misreads its own numbers fails.
// An escalation may be routed (To, Deadline, Fallback) and carry a
// proposal: keep the unit of key Propose, or ProposeSynthesis.
type decide struct {
	Conflict  string
	By        string
	Strategy  model.Strategy
	Winner    string
	Rationale string
	Synthesis string

	To, Deadline     string
	Fallback         model.Fallback
	Propose          string
	ProposeSynthesis string
}

func (d decide) do(ctx context.Context, f *field) error {
	cid, err := f.conflict(d.Conflict)
	if err != nil {
		return err
	}
	req := model.MergeRequest{ConflictID: cid, Strategy: d.Strategy,
		Resolution: model.MergeResolution{Rationale: strings.TrimSpace(d.Rationale)}}
	if d.Winner != "" {
		id, err := f.unit(d.Winner)
		if err != nil {
			return err
		}
		req.Resolution.WinnerID = &id
	}
	if d.Synthesis != "" {
		req.Resolution.Synthesis = model.Ptr(md(d.Synthesis))
	}
	if d.To != "" || d.Deadline != "" || d.Fallback != "" {
		req.Routing = &model.Routing{To: d.To, Deadline: d.Deadline, Fallback: d.Fallback}
	}
	switch {
	case d.Propose != "":
		id, err := f.unit(d.Propose)
		if err != nil {
			return err
		}
		req.Proposal = &model.Proposed{WinnerID: &id}
	case d.ProposeSynthesis != "":
		req.Proposal = &model.Proposed{Synthesis: model.Ptr(md(d.ProposeSynthesis))}
	}
	_, err = f.svc.Merge(ctx, d.By, req)
	if err != nil && f.refusedByPolicy(err) {
		// The conflict waits for a person instead, when it still can.
		esc := model.MergeRequest{ConflictID: cid, Strategy: model.HumanEscalation,
			Resolution: model.MergeResolution{Rationale: req.Resolution.Rationale}}
		if _, err := f.svc.Merge(ctx, d.By, esc); err != nil && !f.refusedByPolicy(err) {
			return fmt.Errorf("merge %s (escalation in place of %s) by %s: %w", cid, d.Strategy, d.By, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("merge %s (%s) by %s: %w", cid, d.Strategy, d.By, err)
	}
	return nil
}

// ballot is a lead's vote on the conflict opened by unit key Conflict,
// for side "A" (the unit contradicted) or "B" (the contradicting one).
type ballot struct {
	Conflict  string
	By        string
	Choice    string
	Rationale string
}

func (b ballot) do(ctx context.Context, f *field) error {
	cid, err := f.conflict(b.Conflict)
	if err != nil {
		return err
	}
	req := model.VoteRequest{ConflictID: cid, Choice: b.Choice, Rationale: strings.TrimSpace(b.Rationale)}
	if _, err := f.svc.Vote(ctx, b.By, req); err != nil && !f.refusedByPolicy(err) {
		return fmt.Errorf("vote on %s by %s: %w", cid, b.By, err)
	}
	return nil
}

// md turns the story's markdown into the field's. Content is written in
// Go raw strings, which cannot hold a backtick, so the story spells a
// backtick as an acute accent (´) and md puts the backticks back.
func md(s string) string {
	return strings.TrimSpace(strings.ReplaceAll(s, "´", "`"))
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
