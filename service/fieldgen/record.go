package fieldgen

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"arbiter/model"
)

var unitTypes = []weightedType{
	{model.TypeFinding, 30}, {model.TypeObservation, 20}, {model.TypeDecision, 10}, {model.TypeAssumption, 8},
	{model.TypeIntention, 6}, {model.TypeConstraint, 6}, {model.TypeQuestion, 6}, {model.TypeCorrection, 3},
}

type weightedType struct {
	t model.UnitType
	w int
}

var purposes = []string{
	"Baseline %s before the cutover", "Check %s against production", "Decide %s", "Record what we learned about %s",
	"Settle %s for the runbook", "Estimate %s for planning", "Review %s after the incident", "Track %s week over week",
}

var reasonings = []string{
	"Based on %d traces from production.", "From the load test of week %d.", "Vendor documentation and %d experiments.",
	"Extrapolated from last quarter (%d samples); not measured directly.", "Reproduced %d times in staging.",
	"Read off the dashboards over %d days.", "Two people checked %d rows by hand.",
}

var relTypes = []model.RelationType{model.RelSupports, model.RelSupports, model.RelSupports, model.RelSupports,
	model.RelInforms, model.RelInforms, model.RelElaborates, model.RelElaborates, model.RelDependsOn, model.RelCausedBy}

// recordPayload is what a RECORD event logs: the request, with the
// content's size instead of the content (the unit holds it), so that the
// log does not double the field.
type recordPayload struct {
	Mode         model.Mode         `json:"mode"`
	Type         model.UnitType     `json:"type"`
	ContentBytes int                `json:"content_bytes"`
	Intent       model.Intent       `json:"intent"`
	Confidence   model.Confidence   `json:"confidence"`
	Relations    []model.Relation   `json:"relations"`
	SessionID    *string            `json:"session_id,omitempty"`
	ConflictType model.ConflictType `json:"conflict_type,omitempty"`
}

// record writes the unit at position i: an ordinary unit, the A of a new
// conflict, or the B of a planned one.
func (g *gen) record(i int) {
	if p := g.bAt[i]; p != nil {
		delete(g.bAt, i)
		g.reserved--
		g.recordB(p)
		return
	}
	if g.shouldPlan(i) {
		if p := g.plan(i); p != nil {
			u := g.unit(p.a.by, g.unitType(p.a.by), p.topic, &p.a.score, false)
			u.Status = p.unitStatus(false)
			p.a.id, p.a.epoch = u.ID, u.Epoch
			g.write(u, "")
			return
		}
	}
	by := g.member()
	u := g.unit(by, g.unitType(by), pick(g.r, topics), nil, g.r.IntN(50) == 0)
	g.write(u, "")
}

// recordB writes unit B of p, whose contradicts relation opens the
// conflict, as RECORD does: the DETECT event, and a notification to both
// authors.
func (g *gen) recordB(p *plan) {
	r := g.r
	typ := pick(r, []model.UnitType{model.TypeFinding, model.TypeFinding, model.TypeCorrection, model.TypeObservation, model.TypeConstraint})
	u := g.unit(p.b.by, typ, p.topic, &p.b.score, false)
	u.Status = p.unitStatus(true)
	p.b.id, p.b.epoch = u.ID, u.Epoch
	n1, n2 := 2+r.IntN(98), 2+r.IntN(98)
	p.desc = fmt.Sprintf("%s: %s reports %d where %s reports %d", capital(p.topic), p.a.id, n1, u.ID, n2)
	if r.IntN(3) == 0 {
		p.desc = fmt.Sprintf("Is %s %d or %d? %s and %s disagree", p.topic, n1, n2, p.a.by.ID, p.b.by.ID)
	}
	u.Relations = append([]model.Relation{{Type: model.RelContradicts, TargetID: p.a.id, Description: p.desc}}, u.Relations...)
	g.write(u, p.typ)

	g.conflictSeq++
	p.seq, p.id, p.at = g.conflictSeq, fmt.Sprintf("conflict-%03d", g.conflictSeq), u.Source.Timestamp
	c := p.conflict()
	g.w.event(model.Event{Epoch: u.Epoch, Operation: model.OpDetect, AgentID: p.b.by.ID, ConflictID: &p.id,
		UnitID: &u.ID, At: p.at, Payload: mustJSON(c)})
	g.counts.Events++
	g.tell([]string{p.a.by.ID, p.b.by.ID}, model.Notification{Event: model.EventConflictDetected, Epoch: u.Epoch,
		CreatedAt: p.at, ConflictID: &p.id, MemoryUnitID: &u.ID, RequiresAction: true,
		Summary: fmt.Sprintf("%s: %s (%s) contradicts %s (%s)", p.id, u.ID, p.b.by.ID, p.a.id, p.a.by.ID)})
	if p.stage == resolving {
		c.Status, c.Version = model.StatusResolving, 2
	}
	g.w.conflict(p.seq, c)
	g.counts.Conflicts++
	if p.stage == detected || p.stage == resolving {
		g.counts.Statuses[c.Status]++
		return
	}
	at := p.bPos + 1 + int(math.Exp(5.0+1.4*r.NormFloat64()))
	g.due[at] = append(g.due[at], p)
}

// conflict is p's conflict as DETECT opened it.
func (p *plan) conflict() model.Conflict {
	return model.Conflict{ID: p.id, Type: p.typ, Status: model.StatusDetected, UnitA: p.a.id, UnitB: p.b.id,
		Description: p.desc, DetectedBy: model.DetectedExplicit, DetectedAt: p.at, Epoch: p.b.epoch, Version: 1}
}

func (g *gen) unitType(by member) model.UnitType {
	if by.Kind == model.KindHuman && g.r.IntN(3) == 0 {
		return model.TypeHumanDirective
	}
	total := 0
	for _, t := range unitTypes {
		total += t.w
	}
	n := g.r.IntN(total)
	for _, t := range unitTypes {
		if n < t.w {
			return t.t
		}
		n -= t.w
	}
	return model.TypeFinding
}

// unit builds the next unit, recorded by by now: committed with the given
// score (drawn when nil), or a draft; with a few relations to earlier
// units.
func (g *gen) unit(by member, typ model.UnitType, topic string, sc *float64, draft bool) model.Unit {
	r := g.r
	epoch, at := g.tick()
	g.unitSeq++
	u := model.Unit{
		ID: fmt.Sprintf("mem-%03d", g.unitSeq), Mode: model.ModeCommitted, Type: typ, Status: model.UnitActive, Epoch: epoch,
		Content: markdown(r, topic, contentSize(r)),
		Intent:  model.Intent{Purpose: fmt.Sprintf(pick(r, purposes), topic)},
		Source:  model.Source{AgentID: by.ID, AgentRole: by.Role, Timestamp: at},
	}
	if r.IntN(5) < 3 {
		u.Intent.TaskID = model.Ptr("KEEL-" + strconv.Itoa(100+r.IntN(900)))
	}
	if typ == model.TypeQuestion {
		u.Intent.Question = model.Ptr("What is " + topic + " today?")
	}
	if r.IntN(10) < 7 {
		n := g.sessions[by.ID]
		if r.IntN(150) == 0 {
			n++
			g.sessions[by.ID] = n
		}
		u.Source.SessionID = model.Ptr(fmt.Sprintf("sess-%s-%d", by.ID, n))
	}
	u.Confidence.Evidence, u.Confidence.Assumptions = []string{}, []string{}
	if draft {
		u.Mode, u.Status = model.ModeDraft, model.UnitDraft
	} else {
		if sc == nil {
			s := score(r)
			sc = &s
		}
		u.Confidence.Score = model.Ptr(*sc)
		u.Confidence.Reasoning = fmt.Sprintf(pick(r, reasonings), 2+r.IntN(60))
		for range r.IntN(4) {
			u.Confidence.Evidence = append(u.Confidence.Evidence, pick(r, []string{
				"trace " + strconv.FormatUint(r.Uint64()>>36, 16), "incident INC-" + strconv.Itoa(1000+r.IntN(9000)),
				"dashboard: " + pick(r, words) + "-" + pick(r, words), "load test run #" + strconv.Itoa(1+r.IntN(400))}))
		}
		for range r.IntN(3) {
			u.Confidence.Assumptions = append(u.Confidence.Assumptions, "traffic mix as in "+pick(r, []string{"Q2", "Q3", "the last load test", "November"}))
		}
	}
	u.Relations = g.relations(g.unitSeq)
	return u
}

// relations draws 0 to 3 relations to earlier units, mostly recent ones.
func (g *gen) relations(seq int64) []model.Relation {
	r := g.r
	n := [...]int{0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 3}[r.IntN(20)]
	if seq <= 1 {
		return []model.Relation{}
	}
	out := make([]model.Relation, 0, n)
next:
	for range n {
		var target int64
		if r.IntN(5) == 0 {
			target = 1 + r.Int64N(seq-1)
		} else {
			target = max(1, seq-1-r.Int64N(min(seq-1, 5000)))
		}
		rel := model.Relation{Type: pick(r, relTypes), TargetID: fmt.Sprintf("mem-%03d", target)}
		for _, x := range out {
			if x.Type == rel.Type && x.TargetID == rel.TargetID {
				continue next
			}
		}
		out = append(out, rel)
	}
	return out
}

// write adds u and its RECORD event.
func (g *gen) write(u model.Unit, ct model.ConflictType) {
	g.w.unit(g.unitSeq, u)
	g.counts.Units++
	g.counts.Relations += len(u.Relations)
	g.counts.ContentBytes += int64(len(u.Content))
	g.w.event(model.Event{Epoch: u.Epoch, Operation: model.OpRecord, AgentID: u.Source.AgentID, UnitID: &u.ID,
		At: u.Source.Timestamp, Payload: mustJSON(recordPayload{Mode: u.Mode, Type: u.Type, ContentBytes: len(u.Content),
			Intent: u.Intent, Confidence: u.Confidence, Relations: u.Relations, SessionID: u.Source.SessionID, ConflictType: ct})})
	g.counts.Events++
}

// tell notifies each distinct agent of ids and returns them sorted, as
// the rules do.
func (g *gen) tell(ids []string, n model.Notification) []string {
	var out []string
	for _, id := range ids {
		if id == "" || contains(out, id) {
			continue
		}
		out = append(out, id)
		n.AgentID, n.RelevanceScore = id, 1
		g.w.notification(n)
		g.counts.Notifications++
	}
	return sortedCopy(out)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
