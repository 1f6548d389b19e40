package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"arbiter/internal/akashiklog"
	"arbiter/model"
	"arbiter/service/review"
	"arbiter/store"
)

// How an Akashik SDK log maps onto a field (docs/akashik-interop.md).
const (
	// SourceAkashikJSONL names the SDK's JSONL file log, in commands and
	// in the provenance of the events an import writes.
	SourceAkashikJSONL = "akashik-jsonl"
	// PlaceholderAgent records the entries whose event has a null agent.
	PlaceholderAgent = "akashik-sdk"
	// PlaceholderRole is the placeholder agent's role.
	PlaceholderRole = "sdk"
	// UnregisteredRole is the role of an agent that records entries but
	// never REGISTERed in the log.
	UnregisteredRole = "unregistered"
	// ImportedAuthority is every imported agent's authority: a standard
	// agent, who records and escalates but does not decide at level 3.
	ImportedAuthority = model.AuthorityStandard
	// DefaultScore and DefaultReasoning stand in for a RECORD without
	// confidence: committed units need both.
	DefaultScore     = 0.5
	DefaultReasoning = "imported without confidence"
	// NoReason stands in for a confidence without a reason.
	NoReason = "imported without a reason"
)

// Count is how many of something an import found new and already there.
type Count struct {
	New      int `json:"new"`
	Existing int `json:"existing"`
}

// ImportReport is what an import read and did.
type ImportReport struct {
	Events int `json:"events"`
	// TornLine is the torn last line skipped, 0 when there was none.
	TornLine  int                  `json:"torn_line,omitempty"`
	Anomalies []akashiklog.Anomaly `json:"anomalies,omitempty"`
	Agents    Count                `json:"agents"`
	Units     Count                `json:"units"`
	Conflicts Count                `json:"conflicts"`
	// StatusesChanged counts units already in the field whose status the
	// log moved on (superseded, retracted, a draft committed).
	StatusesChanged int `json:"statuses_changed"`
	// PairsSkipped counts conflicting pairs left alone because one of the
	// units no longer stands in the field (superseded or retracted there).
	PairsSkipped int `json:"pairs_skipped"`
	// Epoch is the field's clock after the import.
	Epoch int64 `json:"epoch"`
}

// ImportAkashik folds the SDK log into the field as one write transaction,
// so that a failure leaves nothing half imported. It replays the log in
// the SDK's order (akashiklog.Replay) and then:
//
//   - registers every agent the log names (kind agent, authority 4, the
//     REGISTER's role; "unregistered" for agents that only record, and
//     PlaceholderAgent for entries of the null agent); agents already in
//     the field are left as they are;
//   - records every entry as a unit with the entry id as its id (see
//     docs/akashik-interop.md for each field), at an epoch from the field's
//     clock after witnessing the RECORD's lamport, so the field's clock
//     passes the log's; an entry already in the field keeps its unit, whose
//     status only moves forward (superseded and retracted are final, a
//     draft the log commits becomes active), so the field's own decisions
//     are never undone;
//   - opens a conflict (factual, detected_by logical) for every pair the
//     SDK's rule finds (akashiklog.Reckon) that the field does not already
//     hold in either order, through review.OpenConflict: both units become
//     contested, a DETECT event is logged and both authors are notified.
//
// Importing the same log again, or the same log grown, adds only what is
// new. now stamps the rows the import writes itself.
func ImportAkashik(ctx context.Context, st store.Field, log *akashiklog.Log, now time.Time) (ImportReport, error) {
	return ImportAkashikCounting(ctx, st, log, now, nil)
}

// ImportAkashikCounting is ImportAkashik that calls count, when it is not
// nil, with the log's entries imported so far and their number, for a
// progress report.
func ImportAkashikCounting(ctx context.Context, st store.Field, log *akashiklog.Log, now time.Time, count func(done, total int64)) (ImportReport, error) {
	rep := ImportReport{Events: len(log.Events), TornLine: log.TornLine}
	state := akashiklog.Replay(log.Events)
	rep.Anomalies = state.Anomalies
	var maxLamport int64
	lines := make(map[string]int, len(log.Events))
	for _, e := range log.Events {
		maxLamport = max(maxLamport, e.Lamport)
		lines[e.EventID] = e.Line
	}
	err := st.Write(ctx, func(tx store.Tx) error {
		im := importer{tx: tx, state: state, now: now.UTC(), rep: &rep, agents: map[string]model.Agent{}, lines: lines, count: count}
		if err := im.importAgents(); err != nil {
			return err
		}
		if err := im.importEntries(); err != nil {
			return err
		}
		for _, p := range akashiklog.Reckon(state) {
			if err := im.importPair(p); err != nil {
				return fmt.Errorf("conflict between %s and %s: %w", p.A.ID, p.B.ID, err)
			}
		}
		// The clock passes the log's: witness its latest lamport, unless
		// nothing was written and the clock is past it already (so that
		// importing the same log again writes nothing).
		epoch, err := tx.Epoch()
		if err != nil {
			return err
		}
		if im.wrote || maxLamport >= epoch {
			if epoch, err = tx.EpochWitness(maxLamport); err != nil {
				return err
			}
		}
		rep.Epoch = epoch
		return nil
	})
	return rep, err
}

// importer carries one import's transaction and what it learnt so far.
type importer struct {
	count  func(done, total int64) // a progress report's, or nil
	tx     store.Tx
	state  *akashiklog.State
	now    time.Time
	rep    *ImportReport
	agents map[string]model.Agent
	lines  map[string]int // RECORD event id → its line
	wrote  bool
	// epoch is the field's clock while entries are imported: kept here and
	// written once at the end, with the same values the Lamport rule would
	// give event by event.
	epoch int64
	// bulk writes the new units and their events with statements prepared
	// once, at sequence numbers from seq on; ours are the units with ids of
	// arbiter's own form, moved to their own sequence numbers at the end.
	bulk store.Bulk
	seq  int64
	ours []string
}

// importEntries records or moves on every entry, in replay order.
func (im *importer) importEntries() error {
	ids := make([]string, len(im.state.Entries))
	for i, e := range im.state.Entries {
		ids[i] = e.ID
	}
	existing, err := im.tx.Standings(ids)
	if err != nil {
		return err
	}
	start, err := im.tx.Epoch()
	if err != nil {
		return err
	}
	im.epoch = start
	if im.seq, err = im.tx.UnitSeqNext(); err != nil {
		return err
	}
	if im.bulk, err = im.tx.Bulk(); err != nil {
		return err
	}
	defer im.bulk.Close()
	for i, e := range im.state.Entries {
		if im.count != nil {
			im.count(int64(i), int64(len(im.state.Entries)))
		}
		var err error
		if s, ok := existing[e.ID]; ok {
			im.rep.Units.Existing++
			err = im.moveOn(e, s)
		} else {
			_, known := existing[e.Supersedes]
			err = im.importEntry(e, known)
			existing[e.ID] = store.Standing{}
		}
		if err != nil {
			return fmt.Errorf("entry %s (line %d): %w", e.ID, im.lines[e.EventID], err)
		}
	}
	if im.count != nil {
		im.count(int64(len(im.state.Entries)), int64(len(im.state.Entries)))
	}
	for _, id := range im.ours {
		if err := im.tx.UnitSeqAlign(id); err != nil {
			return err
		}
	}
	if im.epoch > start {
		_, err = im.tx.EpochWitness(im.epoch - 1)
	}
	return err
}

// witness applies the Lamport receive rule to the import's clock.
func (im *importer) witness(lamport int64) int64 {
	im.epoch = max(im.epoch, lamport) + 1
	return im.epoch
}

// agentOf is the field agent who recorded an entry.
func agentOf(e *akashiklog.Entry) string {
	if e.Agent == nil {
		return PlaceholderAgent
	}
	return *e.Agent
}

// importAgents registers the log's agents, then those who only appear as
// the agent of an entry, then the placeholder if an entry needs it.
func (im *importer) importAgents() error {
	var want []model.Agent
	seen := map[string]bool{}
	add := func(a model.Agent) {
		if !seen[a.ID] {
			seen[a.ID] = true
			want = append(want, a)
		}
	}
	for _, a := range im.state.Agents {
		role, status := a.Role, model.AgentIdle
		if !a.Registered || strings.TrimSpace(role) == "" {
			role = UnregisteredRole
		}
		if a.Deregistered {
			status = model.AgentOffline
		}
		add(model.Agent{ID: a.ID, Role: role, Status: status})
	}
	for _, e := range im.state.Entries {
		switch {
		case e.Agent == nil:
			add(model.Agent{ID: PlaceholderAgent, Role: PlaceholderRole})
		default:
			add(model.Agent{ID: *e.Agent, Role: UnregisteredRole})
		}
	}
	for _, a := range want {
		existing, err := im.tx.Agent(a.ID)
		if err == nil {
			im.agents[a.ID] = existing
			im.rep.Agents.Existing++
			continue
		}
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		a.Kind, a.Authority, a.RegisteredAt = model.KindAgent, ImportedAuthority, im.now
		if a, err = review.RegisterIn(im.tx, a); err != nil {
			return fmt.Errorf("agent %q: %w", a.ID, err)
		}
		im.agents[a.ID] = a
		im.rep.Agents.New++
		im.wrote = true
	}
	return nil
}

// unitStatus maps an SDK status onto a unit's mode and status.
func unitStatus(s akashiklog.Status) (model.Mode, model.UnitStatus) {
	switch s {
	case akashiklog.StatusDraft:
		return model.ModeDraft, model.UnitDraft
	case akashiklog.StatusSuperseded:
		return model.ModeCommitted, model.UnitSuperseded
	case akashiklog.StatusRetracted:
		return model.ModeCommitted, model.UnitRetracted
	}
	return model.ModeCommitted, model.UnitActive
}

// unitType is the entry's "type" when it names a unit type, else finding.
func unitType(raw json.RawMessage) model.UnitType {
	var e struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(raw, &e) == nil {
		if s, ok := e.Type.(string); ok && model.UnitType(s).Valid() {
			return model.UnitType(s)
		}
	}
	return model.TypeFinding
}

// EntryRecord is the RECORD an entry amounts to, by the mapping of
// docs/akashik-interop.md.
func EntryRecord(e *akashiklog.Entry) model.RecordRequest {
	mode, _ := unitStatus(e.Status)
	score, reasoning := DefaultScore, DefaultReasoning
	if c := e.Confidence; c != nil {
		score, reasoning = c.Score, c.Reason
		if strings.TrimSpace(reasoning) == "" {
			reasoning = NoReason
		}
	}
	req := model.RecordRequest{
		Mode: mode, Type: unitType(e.Raw), Content: akashiklog.EntryMarkdown(e.Raw),
		Intent:     model.Intent{Purpose: e.Intent},
		Confidence: model.Confidence{Score: &score, Reasoning: reasoning, Evidence: []string{}, Assumptions: []string{}},
		Relations:  []model.Relation{},
	}
	if e.Supersedes != "" {
		req.Relations = append(req.Relations, model.Relation{Type: model.RelSupersedes, TargetID: e.Supersedes,
			Description: "the Akashik entry supersedes it"})
	}
	return req
}

// importEntry records a new entry; predecessorKnown says whether the
// entry it supersedes, if any, is in the field already (a relation's
// target must exist when it is written).
func (im *importer) importEntry(e *akashiklog.Entry, predecessorKnown bool) error {
	req := EntryRecord(e)
	if err := review.CheckRecord(&req); err != nil {
		return err
	}
	if !predecessorKnown {
		req.Relations = nil // Replay reported it as an anomaly
	}
	agent := im.agents[agentOf(e)]
	epoch := im.witness(e.Lamport)
	_, status := unitStatus(e.Status)
	u := model.Unit{ID: e.ID, Mode: req.Mode, Type: req.Type, Content: req.Content, Intent: req.Intent,
		Confidence: req.Confidence, Relations: req.Relations, Status: status, Epoch: epoch,
		Source: model.Source{AgentID: agent.ID, AgentRole: agent.Role, Timestamp: time.UnixMilli(e.WallTime).UTC()}}
	if err := im.bulk.Unit(im.seq, u); err != nil {
		return err
	}
	im.seq++
	if strings.HasPrefix(u.ID, "mem-") {
		im.ours = append(im.ours, u.ID) // a synthesis arbiter exported
	}
	if err := im.bulk.Event(model.Event{Epoch: epoch, Operation: model.OpRecord, AgentID: agent.ID, UnitID: &u.ID,
		At: im.now, Payload: provenance(e, "", string(e.Status))}); err != nil {
		return err
	}
	im.rep.Units.New++
	im.wrote = true
	return nil
}

// provenance is the payload of an imported entry's event: where it came
// from, and the status it carried (from: the status before).
func provenance(e *akashiklog.Entry, from, status string) json.RawMessage {
	b, err := json.Marshal(model.ImportLog{Source: SourceAkashikJSONL, EventID: e.EventID, Lamport: e.Lamport,
		WallTime: e.WallTime, Supersedes: e.Supersedes, From: from, Status: status})
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}

// moveOn brings a unit already in the field forward to the log's status
// for its entry: never back, so a decision the field took stands.
func (im *importer) moveOn(e *akashiklog.Entry, u store.Standing) error {
	_, want := unitStatus(e.Status)
	final := !u.Status.Stands()
	switch {
	case final || want == u.Status:
		return nil
	case want == model.UnitSuperseded || want == model.UnitRetracted:
		if err := im.tx.UnitSetStatus(e.ID, want); err != nil {
			return err
		}
	case want == model.UnitActive && u.Mode == model.ModeDraft:
		if err := im.tx.UnitCommit(e.ID); err != nil {
			return err
		}
		if err := im.recontest(e.ID); err != nil {
			return err
		}
	default:
		return nil
	}
	epoch := im.witness(0)
	if _, err := im.tx.EventAppend(model.Event{Epoch: epoch, Operation: "STATUS_CHANGE", AgentID: u.AgentID,
		UnitID: &e.ID, At: im.now, Payload: provenance(e, string(u.Status), string(want))}); err != nil {
		return err
	}
	im.rep.StatusesChanged++
	im.wrote = true
	return nil
}

// recontest marks a newly committed unit contested if a conflict about it
// is still open, as a unit in an open conflict is.
func (im *importer) recontest(id string) error {
	cs, err := im.tx.ConflictsOfUnit(id)
	if err != nil {
		return err
	}
	for _, c := range cs {
		if c.Status.Open() {
			return im.tx.UnitSetStatus(id, model.UnitContested)
		}
	}
	return nil
}

// PairDescription is the conflict description for a pair the SDK's rule found.
func PairDescription(p akashiklog.Pair) string {
	return fmt.Sprintf("Akashik entries on topic %q disagree on %s", p.A.Topic, strings.Join(p.Keys, ", "))
}

func (im *importer) importPair(p akashiklog.Pair) error {
	_, err := im.tx.ConflictByPair(p.A.ID, p.B.ID)
	switch {
	case err == nil:
		im.rep.Conflicts.Existing++
		return nil
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	for _, id := range []string{p.A.ID, p.B.ID} {
		u, err := im.tx.Unit(id)
		if err != nil {
			return err
		}
		if !u.Status.Stands() {
			im.rep.PairsSkipped++
			return nil
		}
	}
	epoch, err := im.tx.EpochTick()
	if err != nil {
		return err
	}
	if _, err := review.OpenConflict(im.tx, im.agents[agentOf(p.B)], model.Conflict{
		Type: model.ConflictFactual, UnitA: p.A.ID, UnitB: p.B.ID, Description: PairDescription(p),
		DetectedBy: model.DetectedLogical, DetectedAt: im.now, Epoch: epoch,
	}); err != nil {
		return err
	}
	im.rep.Conflicts.New++
	im.wrote = true
	return nil
}
