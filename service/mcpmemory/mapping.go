package mcpmemory

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"arbiter/model"
)

// How their rows become arbiter's nouns. docs/mcp-memory-service.md says
// the same for people.

// role is what arbiter calls the author of every memory: their server
// stored it, on behalf of whichever assistant called it.
const role = "memory server"

// conflictTag is the tag their server adds to both memories of a pair.
const conflictTag = "conflict:unresolved"

// tagList is a memory's tags as their server reads them: split on
// commas, trimmed, empty ones dropped.
func tagList(tags string) []string {
	var out []string
	for _, t := range strings.Split(tags, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// withoutConflictTag is what their resolve_conflict writes to a memory's
// tags: every tag trimmed, conflict:unresolved left out, joined with
// commas. It writes nothing to a memory without tags: nil then.
func withoutConflictTag(tags string, valid bool) any {
	if !valid || tags == "" {
		return nil
	}
	var keep []string
	for _, t := range strings.Split(tags, ",") {
		if t = strings.TrimSpace(t); t != conflictTag {
			keep = append(keep, t)
		}
	}
	return strings.Join(keep, ",")
}

// stamp is a timestamp as arbiter shows it.
func stamp(f *float64) string {
	if f == nil {
		return ""
	}
	return unixTime(*f).Format("2006-01-02 15:04:05Z")
}

func timeOf(f *float64) time.Time {
	if f == nil {
		return time.Time{}
	}
	return unixTime(*f)
}

// metadataLines is a memory's metadata JSON as "key: value" lines, one
// per top-level member in the order written; text that is not a JSON
// object is one line as it stands.
func metadataLines(text string) []string {
	out := []string{}
	if strings.TrimSpace(text) == "" {
		return out
	}
	spans, _, ok := objectMembers(text)
	if !ok {
		return append(out, "metadata: "+text)
	}
	for _, s := range spans {
		var b bytes.Buffer
		v := text[s.start:s.end]
		if json.Compact(&b, []byte(v)) == nil {
			v = b.String()
		}
		out = append(out, s.key+": "+v)
	}
	return out
}

// toUnit maps a memory: its hash prefix as id, memory_type as type, its
// confidence, created_at as when it was recorded and its row id as its
// epoch (the order their server stored memories in). Tags stand where a
// unit's intent does, version and the other timestamps where its
// confidence is explained, and each member of its metadata as a line of
// evidence.
func toUnit(m memory, relations []model.Relation, contested bool) model.Unit {
	u := model.Unit{
		ID:      unitID(m.hash),
		Mode:    model.ModeCommitted,
		Type:    model.UnitType(m.typ),
		Content: m.content,
		Source:  model.Source{AgentID: Server, AgentRole: role, Timestamp: timeOf(m.created)},
		Status:  model.UnitActive,
		Epoch:   m.rowid,
		Confidence: model.Confidence{Score: m.confidence, Evidence: metadataLines(m.metadata.String),
			Assumptions: []string{}},
		Relations: relations,
	}
	if u.Type == "" {
		u.Type = "memory"
	}
	if u.Relations == nil {
		u.Relations = []model.Relation{}
	}
	u.Intent.Purpose = "no tags"
	if tags := tagList(m.tags.String); len(tags) > 0 {
		u.Intent.Purpose = "tags: " + strings.Join(tags, ", ")
	}
	var why []string
	if m.version != nil {
		why = append(why, "version "+strconv.FormatFloat(*m.version, 'f', -1, 64))
	}
	if m.updated != nil {
		why = append(why, "updated "+stamp(m.updated))
	}
	if m.lastAccessed != nil {
		why = append(why, "last accessed "+stamp(m.lastAccessed))
	}
	u.Confidence.Reasoning = strings.Join(why, ", ")
	switch {
	case m.deleted != nil:
		u.Status = model.UnitRetracted
	case m.supersededBy != "":
		u.Status = model.UnitSuperseded
	case contested:
		u.Status = model.UnitContested
	}
	return u
}

// similarityLine describes a pair as their detector measured it.
func similarityLine(sim float64, metadata string) string {
	line := "similarity " + strconv.FormatFloat(sim, 'f', -1, 64)
	if div := lookup(metadata, "divergence"); div != "" {
		line += ", divergence " + div
	}
	return line
}

// disputed says what a pair disputes, as a queue's line can: the start
// of each memory's text, each on one line.
func disputed(a, b string) string { return "“" + start(a) + "” vs “" + start(b) + "”" }

// start is the first words of text, on one line: at most 48 characters,
// "…" when cut.
func start(text string) string {
	s := strings.Join(strings.Fields(text), " ")
	if r := []rune(s); len(r) > 48 {
		return strings.TrimRight(string(r[:47]), " ") + "…"
	}
	return s
}

// edgeRelation is a memory_graph edge as a relation.
func edgeRelation(e edge) model.Relation {
	r := model.Relation{Type: model.RelationType(e.rel), TargetID: unitID(e.other)}
	if e.rel == string(model.RelContradicts) && e.sim != nil {
		r.Description = similarityLine(*e.sim, e.metadata.String)
	}
	return r
}

// found is a pair someone named: a pair of contradicts edges, or a pair a
// person dismissed (its edges gone, its record in the memories' metadata).
type found struct {
	p         pair
	dismissed string // the conflict_history entry, for a dismissed pair
	a, b      memory
	long      bool
}

func (f found) open() bool { return f.dismissed == "" && f.a.active() && f.b.active() }

func (f found) id() string { return conflictID(f.a.hash, f.b.hash, f.long) }

// The waiting conflict's version, and a decided one's.
const (
	versionOpen    = 1
	versionDecided = 2
)

// toConflict maps a pair: factual, found by their semantic check,
// escalated (it waits for a person, as all their conflicts do) until one
// end is superseded or a person dismissed it.
func (f found) toConflict() model.Conflict {
	c := model.Conflict{
		ID:         f.id(),
		Type:       model.ConflictFactual,
		Status:     model.StatusEscalated,
		UnitA:      unitID(f.a.hash),
		UnitB:      unitID(f.b.hash),
		DetectedBy: model.DetectedSemantic,
		Epoch:      max(f.a.rowid, f.b.rowid),
		Version:    versionOpen,
	}
	if f.dismissed != "" {
		c.Description = disputed(f.a.content, f.b.content) + " · " + similarityLine(parseFloat(lookup(f.dismissed, "similarity")), f.dismissed)
		c.DetectedAt = lookupTime(f.dismissed, "detected_at")
	} else {
		c.Description = disputed(f.a.content, f.b.content) + " · " + similarityLine(f.p.similarity, f.p.metadata.String)
		c.DetectedAt = unixTime(f.p.created)
	}
	c.Escalation = &model.Escalation{By: Server, Epoch: c.Epoch, At: c.DetectedAt,
		Reason: "its contradiction check found the pair; it waits for a person"}
	if !f.open() {
		c.Status, c.Version = model.StatusResolved, versionDecided
		c.Resolution = f.resolution()
	}
	return c
}

func parseFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// resolution reads how a decided pair was decided: arbiter's record on
// the edge (or, dismissed, in the metadata), else what the superseded_by
// columns say of a resolution made through their server.
func (f found) resolution() *model.Resolution {
	record := f.dismissed
	if record == "" {
		record = f.p.metadata.String
	}
	r := &model.Resolution{Strategy: model.Strategy(lookup(record, "strategy")), ResolvedBy: lookup(record, "resolved_by"),
		Rationale: lookup(record, "rationale"), ResolvedAt: lookupTime(record, "resolved_at")}
	switch lookup(record, "resolution_action") {
	case actionDismiss:
		r.Strategy = model.Dismiss
		return r
	case actionKeepSource:
		r.WinnerID = model.Ptr(unitID(f.a.hash))
	case actionKeepTarget:
		r.WinnerID = model.Ptr(unitID(f.b.hash))
	}
	if r.WinnerID != nil && r.ResolvedBy != "" {
		if !r.Strategy.Valid() {
			r.Strategy = model.Authority
		}
		return r
	}
	// Resolved through their server (memory_resolve, the API) or by a
	// new version of one memory: no record of who, or why.
	r = &model.Resolution{Strategy: model.Authority, ResolvedBy: Server}
	switch {
	case f.b.supersededBy == f.a.hash:
		r.WinnerID = model.Ptr(unitID(f.a.hash))
		r.ResolvedAt = timeOf(f.a.lastAccessed)
	case f.a.supersededBy == f.b.hash:
		r.WinnerID = model.Ptr(unitID(f.b.hash))
		r.ResolvedAt = timeOf(f.b.lastAccessed)
	}
	r.Rationale = "decided outside arbiter: " + supersededNote(f.a) + supersededNote(f.b)
	r.Rationale = strings.TrimSuffix(r.Rationale, "; ")
	return r
}

func supersededNote(m memory) string {
	if m.supersededBy == "" {
		return ""
	}
	return unitID(m.hash) + " is superseded by " + unitID(m.supersededBy) + "; "
}

// summary is a conflict as a row of the queue.
func summary(c model.Conflict) model.ConflictSummary {
	return model.ConflictSummary{Conflict: c, AgentA: Server, RoleA: role, AgentB: Server, RoleB: role}
}

// The resolution_action values arbiter records (their design's names).
const (
	actionKeepSource = "keep_source"
	actionKeepTarget = "keep_target"
	actionDismiss    = "dismiss"
)
