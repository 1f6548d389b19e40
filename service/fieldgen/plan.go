package fieldgen

import (
	"math"
	"math/rand/v2"
	"time"

	"arbiter/model"
)

// stage is where a conflict's story ends.
type stage int

const (
	detected stage = iota
	resolving
	escalated
	pendingVote
	resolved
)

// fate is how a conflict's story ends: its final status, and for a
// resolved one the strategy, and whether a human operator decided it
// after an escalation.
type fate struct {
	stage       stage
	how         model.Strategy
	viaOperator bool
}

// strategy is the strategy that resolved the conflict ("" while open).
func (f fate) strategy() model.Strategy {
	if f.stage != resolved {
		return ""
	}
	return f.how
}

// How resolved conflicts were decided, by weight. evidence_count is left
// out: its winner depends on supporting units the generator does not
// track.
var (
	direct = []weighted{
		{model.LastWriteWins, 24}, {model.ConfidenceWeighted, 18}, {model.Dismiss, 10},
		{model.Synthesis, 10}, {model.Authority, 12}, {model.Vote, 14},
		{"", 12}, // escalated first, then decided by a human operator
	}
	byOperator = []weighted{
		{model.LastWriteWins, 20}, {model.ConfidenceWeighted, 20}, {model.Authority, 25},
		{model.Synthesis, 20}, {model.Dismiss, 15},
	}
)

type weighted struct {
	s model.Strategy
	w int
}

func draw(r *rand.Rand, list []weighted) model.Strategy {
	total := 0
	for _, x := range list {
		total += x.w
	}
	n := r.IntN(total)
	for _, x := range list {
		if n < x.w {
			return x.s
		}
		n -= x.w
	}
	return list[len(list)-1].s
}

// dealFates decides the end of every conflict: open of them wait for
// people (half escalated, half put to a vote); of the rest about 3 % are
// just detected (the most recent ones), 1 in 200 resolving, and the
// others resolved. The order is shuffled but for the detected ones, last.
func dealFates(r *rand.Rand, conflicts, open int) []fate {
	rest := conflicts - open
	nDetected := (rest*3 + 99) / 100
	nResolving := rest / 200
	fates := make([]fate, 0, conflicts)
	for i := range open {
		if i < (open+1)/2 {
			fates = append(fates, fate{stage: escalated})
		} else {
			fates = append(fates, fate{stage: pendingVote})
		}
	}
	for range nResolving {
		fates = append(fates, fate{stage: resolving})
	}
	for range rest - nDetected - nResolving {
		f := fate{stage: resolved, how: draw(r, direct)}
		if f.how == "" {
			f.how, f.viaOperator = draw(r, byOperator), true
		}
		fates = append(fates, f)
	}
	r.Shuffle(len(fates), func(i, j int) { fates[i], fates[j] = fates[j], fates[i] })
	for range nDetected {
		fates = append(fates, fate{stage: detected})
	}
	return fates
}

// side is one unit of a planned conflict.
type side struct {
	id    string
	by    member
	score float64
	epoch int64
}

// plan is one conflict's story, decided when its unit A is written.
type plan struct {
	fate
	typ   model.ConflictType
	topic string
	a, b  side
	bPos  int
	// winnerB says which unit prevails, for strategies with a winner.
	winnerB bool
	ballots []ballotPlan

	// Set when unit B is written.
	seq  int64
	id   string
	desc string
	at   time.Time
}

type ballotPlan struct {
	voter     string
	forB      bool
	rationale string // set when cast
}

// unitStatus is the final status of unit A (b false) or B (b true).
func (p *plan) unitStatus(b bool) model.UnitStatus {
	if p.stage != resolved {
		return model.UnitContested
	}
	switch p.how {
	case model.Synthesis:
		return model.UnitSuperseded
	case model.Dismiss:
		return model.UnitActive
	}
	if p.winnerB == b {
		return model.UnitActive
	}
	return model.UnitSuperseded
}

// shouldPlan says whether the unit at position i is the A of the next
// conflict: conflicts spread evenly over the units still free, and once
// the free units only just suffice, every one is used.
func (g *gen) shouldPlan(i int) bool {
	need := len(g.fates) - g.planned
	if need == 0 {
		return false
	}
	free := g.normal - i - g.reserved // positions from i on not yet taken by a B
	avail := free - need              // of them, those that will not be a B
	if avail <= need {
		return true
	}
	return g.r.IntN(avail) < need
}

// plan starts the next conflict with unit A at position i: it reserves
// a later position for unit B and decides how the story ends. nil if no
// position is free after i.
func (g *gen) plan(i int) *plan {
	r := g.r
	j := min(g.normal-1, i+1+int(math.Exp(5.5+1.3*r.NormFloat64())))
	for j < g.normal && g.bAt[j] != nil {
		j++
	}
	if j >= g.normal {
		for j = g.normal - 1; j > i && g.bAt[j] != nil; j-- {
		}
		if j <= i {
			return nil
		}
	}
	p := &plan{fate: g.fates[g.planned], bPos: j, topic: pick(r, topics)}
	g.planned++
	g.bAt[j] = p
	g.reserved++
	p.typ = pick(r, []model.ConflictType{model.ConflictFactual, model.ConflictFactual, model.ConflictFactual,
		model.ConflictInterpretive, model.ConflictInterpretive, model.ConflictStrategic, model.ConflictPriority})
	p.a.by = g.member()
	p.b.by = g.other(p.a.by.ID)
	p.a.score = score(r)
	p.b.score = score(r)
	for p.b.score == p.a.score {
		p.b.score = score(r)
	}
	switch p.strategy() {
	case model.LastWriteWins:
		p.winnerB = true // the later epoch: B is recorded after A
	case model.ConfidenceWeighted:
		p.winnerB = p.b.score > p.a.score
	case model.Authority:
		p.winnerB = r.IntN(2) == 0
	case model.Vote:
		p.ballots = g.ballots(3)
		forB := 0
		for _, b := range p.ballots {
			if b.forB {
				forB++
			}
		}
		p.winnerB = forB >= 2
	}
	if p.stage == pendingVote {
		p.ballots = g.ballots(r.IntN(3)) // below the quorum of 3
	}
	return p
}

// ballots draws n ballots from distinct leads.
func (g *gen) ballots(n int) []ballotPlan {
	order := g.r.Perm(len(Leads))
	out := make([]ballotPlan, n)
	for i := range out {
		out[i] = ballotPlan{voter: Leads[order[i]], forB: g.r.IntN(2) == 0}
	}
	return out
}

// score draws a confidence score with two decimals, 0.35 to 0.97.
func score(r *rand.Rand) float64 { return float64(35+r.IntN(63)) / 100 }
