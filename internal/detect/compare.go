package detect

import (
	"fmt"
	"math"
	"strings"

	"arbiter/model"
)

// Signal is the kind of evidence a finding rests on.
type Signal string

const (
	// SignalQuantity: two values of one quantity that disagree.
	SignalQuantity Signal = "quantity"
	// SignalNegation: one unit negates the other's claim.
	SignalNegation Signal = "negation"
	// SignalOpposites: opposite terms said of one subject.
	SignalOpposites Signal = "opposites"
	// SignalTemporal: the later unit says the earlier one's claim is no
	// longer true ("no longer", "switched from", "was X, now Y").
	SignalTemporal Signal = "temporal"
)

// Phrase is the part of a unit's content a finding points at.
type Phrase struct {
	Start int    `json:"start"` // byte offsets in the content
	End   int    `json:"end"`
	Text  string `json:"text"`
}

// Finding is why two units were found to contradict each other.
type Finding struct {
	Signal Signal `json:"signal"`
	// Score is how strong the evidence is, from 0 to 1; a level opens a
	// conflict from its threshold up.
	Score float64 `json:"score"`
	// Type is the conflict type the signal suggests.
	Type model.ConflictType `json:"type"`
	// DetectedBy is the protocol's name for how it was found: logical for
	// a rule over stated values (quantity), semantic for a reading of what
	// the sentences say.
	DetectedBy model.DetectedBy `json:"detected_by"`
	// A and B are the phrases that disagree, in the earlier unit and in
	// the later one.
	A Phrase `json:"phrase_a"`
	B Phrase `json:"phrase_b"`
	// Values are the two values of a quantity finding, as written.
	Values [2]string `json:"values,omitempty"`
}

// Description is one sentence saying why the units disagree, for a
// conflict's description.
func (f Finding) Description() string {
	switch f.Signal {
	case SignalQuantity:
		return fmt.Sprintf("two values of one quantity: %s against %s", quote(f.Values[0]), quote(f.Values[1]))
	case SignalNegation:
		return fmt.Sprintf("one negates the other: %s against %s", quote(f.A.Text), quote(f.B.Text))
	case SignalOpposites:
		return fmt.Sprintf("opposite terms on one subject: %s against %s", quote(f.A.Text), quote(f.B.Text))
	case SignalTemporal:
		return fmt.Sprintf("the later unit says this changed: %s against %s", quote(f.A.Text), quote(f.B.Text))
	}
	return "detected contradiction"
}

func quote(s string) string {
	const most = 120
	if len(s) > most {
		cut := strings.LastIndexByte(s[:most], ' ')
		if cut < most/2 {
			cut = most
		}
		s = s[:cut] + "…"
	}
	return "“" + s + "”"
}

// Detector compares units at one sensitivity.
type Detector struct {
	level Sensitivity
	p     params
}

// New returns a detector at level s; Off, or a level it does not know,
// detects nothing.
func New(s Sensitivity) Detector {
	p, ok := levels[s]
	if !ok {
		s = Off // "" or a name no level has
	}
	return Detector{level: s, p: p}
}

// Sensitivity is the detector's level.
func (d Detector) Sensitivity() Sensitivity { return d.level }

// Compare reports whether b, the later unit, contradicts a, and why. It
// is pure and safe to call from many goroutines.
func (d Detector) Compare(a, b *Text) (Finding, bool) {
	if d.level == Off || d.level == "" {
		return Finding{}, false
	}
	best := d.Score(a, b)
	if best.Score < d.p.threshold {
		return Finding{}, false
	}
	return best, true
}

// Score is the strongest evidence of a contradiction between a and b,
// whatever its score: Compare keeps it from the level's threshold up.
func (d Detector) Score(a, b *Text) Finding {
	p := d.p
	if d.level == Off || d.level == "" {
		p = levels[High]
	}
	var best Finding
	keep := func(f Finding) {
		if f.Score > best.Score {
			best = f
		}
	}
	keep(compareQuantities(a, b, p))
	keep(compareClaims(a, b, p))
	keep(compareChanges(a, b))
	return best
}

// compareQuantities finds two values of one quantity that disagree.
func compareQuantities(a, b *Text, p params) Finding {
	var best Finding
	for i := range a.quants {
		qa := &a.quants[i]
		if qa.past {
			continue
		}
		for j := range b.quants {
			qb := &b.quants[j]
			if qb.past || !ofOneKind(a, qa, b, qb) {
				continue
			}
			sim := subjectOverlap(a, qa, b, qb)
			if sim < p.subject {
				continue
			}
			d := gap(qa, qb)
			if d <= p.tolerance {
				continue
			}
			if qa.key != 0 && qa.key == qb.key {
				sim = math.Min(1, sim+0.15)
			}
			score := sim * (0.85 + 0.15*math.Min(1, d/0.3))
			if score <= best.Score || contrasted(a, qa.subjTok, b, qb.subjTok) {
				continue
			}
			f := Finding{Signal: SignalQuantity, Score: score, DetectedBy: model.DetectedLogical,
				A: a.segPhrase(qa.seg), B: b.segPhrase(qb.seg), Values: [2]string{a.span(qa.from, qa.to), b.span(qb.from, qb.to)}}
			if b.changedFrom(qb, qa) || b.segs[qb.seg].temporal {
				f.Signal, f.DetectedBy = SignalTemporal, model.DetectedSemantic
			}
			f.Type = guessType(f.Signal, a, &a.segs[qa.seg], b, &b.segs[qb.seg])
			best = f
		}
	}
	return best
}

// ofOneKind reports whether two values may be values of one quantity:
// of one family, both measures or both labels, and labels only when their
// segments state no measure (a version or a date is then the claim).
func ofOneKind(a *Text, qa *quantity, b *Text, qb *quantity) bool {
	if qa.fam != qb.fam || qa.label != qb.label {
		return false
	}
	if qa.label && (a.segs[qa.seg].quants > 0 || b.segs[qb.seg].quants > 0) {
		return false
	}
	return a.labelsAgree(qa, b, qb)
}

// subjectOverlap is how surely two values are of one quantity: the overlap
// of the words around them (whether they contrast is asked after, being
// dearer).
func subjectOverlap(a *Text, qa *quantity, b *Text, qb *quantity) float64 {
	sim, _ := overlap(qa.subj, qb.subj)
	if sim == 0 {
		return 0
	}
	for _, i := range qa.subjTok {
		if tk := a.toks[i]; (tk.is(fIdent) || tk.is(fCaps)) && has(qb.subj, a.wordHash(i)) {
			sim = math.Min(1, sim+0.15) // a shared name: "SEC-412", "Frankfurt"
			break
		}
	}
	if qa.borrowed || qb.borrowed {
		sim *= 0.9
	}
	if qa.fam == "bare" {
		sim *= 0.8 // a number without a unit: only its words say what it is
	}
	return sim
}

// gap is the relative distance between two values beyond the rounding,
// bounds and slack they were stated with: 0 when they agree.
func gap(qa, qb *quantity) float64 {
	if qa.label {
		if qa.val == qb.val {
			return 0
		}
		return 1
	}
	norm := func(q *quantity) (float64, float64, float64) {
		f := 1.0
		if q.per > 0 && qa.per > 0 && qb.per > 0 {
			f = 1 / q.per
		}
		pad := q.prec + q.slack*math.Abs(q.val)
		return q.val * f, (q.lo - pad) * f, (q.hi + pad) * f
	}
	va, loA, hiA := norm(qa)
	vb, loB, hiB := norm(qb)
	g := math.Max(0, math.Max(loB-hiA, loA-hiB))
	scale := math.Max(math.Abs(va), math.Abs(vb))
	if scale == 0 {
		return 0
	}
	return g / scale
}

// changedFrom reports whether t says the value q replaced was o's: "was
// 250 ms, now 120 ms", "cut from 10,000 to 2,000".
func (t *Text) changedFrom(q *quantity, o *quantity) bool {
	for k := range t.quants {
		old := &t.quants[k]
		if old.past && old.fam == q.fam && t.segs[old.seg].sent == t.segs[q.seg].sent && gap(old, o) == 0 {
			return true
		}
	}
	return false
}

// segPhrase is a segment's text.
func (t *Text) segPhrase(k int) Phrase {
	s := t.segs[k]
	return t.phrase(s.from, s.to)
}

func (t *Text) phrase(from, to int) Phrase {
	if from >= to {
		return Phrase{}
	}
	start, end := int(t.toks[from].start), int(t.toks[to-1].end)
	return Phrase{Start: start, End: end, Text: t.content[start:end]}
}

func (t *Text) span(from, to int) string { return t.phrase(from, to).Text }
