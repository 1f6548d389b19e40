package review

import (
	"cmp"
	"slices"
	"time"

	"arbiter/internal/detect"
	"arbiter/model"
	"arbiter/store"
)

// Finding the contradictions nobody declared (docs/detection.md): a unit
// is compared with the earlier units most likely to be about the same
// thing — those its rarest words find in the engine's word index, and
// the newest of its purpose — and each pair the detector flags is opened
// as a conflict, unless the pair already has one or a person said it is
// not a contradiction. RECORD finds them before it takes the write lock
// and opens them in its write; a scan does the same, a batch at a time.

const (
	// detectTerms is how many of a unit's words a scan looks it up by
	// (in its own index, in memory); recordTerms is how many RECORD asks
	// the engine's word index for: each costs a seek in every segment of
	// the index (docs/performance.md), and the rarest few find most of
	// the neighbours.
	detectTerms = 8
	recordTerms = 5
	// detectPerTerm is how many units, the newest, each word brings.
	detectPerTerm = 64
	// detectRanked is how many of those, the best ranked, are compared.
	detectRanked = 16
	// detectPurpose is how many of the newest units of the same purpose
	// are compared besides.
	detectPurpose = 4
	// detectMost is how many conflicts one unit opens at most, the
	// strongest: a unit that contradicts many others is a few conflicts
	// to decide first, not a flood.
	detectMost = 5
)

// found is a contradiction a comparison flagged, not yet opened: unit
// earlier (A) and the unit compared (B).
type found struct {
	earlier string
	later   string
	finding detect.Finding
	level   model.Sensitivity
}

// detection is the conflict a finding opens, less its ids and times.
func (f found) conflict() model.Conflict {
	d := f.finding
	det := &model.Detection{Signal: model.DetectSignal(d.Signal), Score: round2(d.Score), Sensitivity: f.level,
		PhraseA: model.Phrase(d.A), PhraseB: model.Phrase(d.B)}
	if d.Values != [2]string{} {
		det.Values = d.Values[:]
	}
	return model.Conflict{Type: d.Type, UnitA: f.earlier, UnitB: f.later, Description: d.Description(),
		DetectedBy: d.DetectedBy, Detection: det}
}

func round2(x float64) float64 { return float64(int(x*100+0.5)) / 100 }

// finder compares units at one level, reading them through a cache.
type finder struct {
	level model.Sensitivity
	d     detect.Detector
	cache *detect.Cache
}

func newFinder(level model.Sensitivity, cache *detect.Cache) finder {
	return finder{level: level, d: detect.New(level), cache: cache}
}

// text reads u for the detector (through the cache, when there is one).
func (f finder) text(u model.Unit) *detect.Text {
	in := detect.Input{Content: u.Content, Purpose: u.Intent.Purpose, Type: u.Type}
	if f.cache == nil || u.ID == "" {
		return detect.Analyse(in)
	}
	return f.cache.Text(u.ID, in)
}

// comparable reports whether the detector looks at u: a committed unit
// that still stands.
func comparable(u model.Unit) bool {
	return u.Mode == model.ModeCommitted && u.Status.Stands() && u.Status != model.UnitDraft
}

// against compares t, unit id (or a unit not yet recorded, id ""), with
// the earlier units the word index finds for it, before seq before, of
// the field of total units; skip leaves units out (those the unit already
// declares it contradicts). It returns the findings, strongest first, at
// most detectMost.
func (f finder) against(tx store.DetectTx, id string, t *detect.Text, purpose string, before, total int64, skip func(string) bool) ([]found, error) {
	terms := t.Terms(recordTerms)
	words := make([]store.Term, len(terms))
	for i, term := range terms {
		words[i] = store.Term{Prefix: term.Word, Whole: term.Whole}
	}
	hits, df, err := tx.UnitCandidates(words, before, detectPerTerm)
	if err != nil {
		return nil, err
	}
	seqs := detect.RankHits(terms, hits, df, int(total), detectRanked)
	same, err := tx.UnitsByPurpose(purpose, before, detectPurpose)
	if err != nil {
		return nil, err
	}
	for _, s := range same {
		if !slices.Contains(seqs, s) {
			seqs = append(seqs, s)
		}
	}
	cands, err := tx.UnitsBySeq(seqs)
	if err != nil {
		return nil, err
	}
	// Reading and comparing the candidates is most of the work, and a
	// long unit's comparisons take a millisecond or so: on every core.
	finds := make([]*found, len(cands))
	parallel(len(cands), func(i int) {
		u := cands[i].Unit
		if u.ID == id || !comparable(u) || (skip != nil && skip(u.ID)) {
			return
		}
		if fd, ok := f.d.Compare(f.text(u), t); ok {
			finds[i] = &found{earlier: u.ID, later: id, finding: fd, level: f.level}
		}
	})
	var out []found
	for _, fd := range finds {
		if fd != nil {
			out = append(out, *fd)
		}
	}
	return strongest(out), nil
}

// strongest is fs, strongest first, at most detectMost.
func strongest(fs []found) []found {
	slices.SortStableFunc(fs, func(a, b found) int { return cmp.Compare(b.finding.Score, a.finding.Score) })
	return fs[:min(len(fs), detectMost)]
}

// openFindings opens the conflicts of fs in tx, as detector at epoch and
// now: those whose units both still stand, whose pair has no conflict of
// any status yet and that nobody said are not a contradiction. It
// returns the conflicts opened.
func openFindings(tx store.Tx, detector model.Agent, fs []found, epoch int64, now time.Time) ([]model.Conflict, error) {
	var out []model.Conflict
	for _, f := range fs {
		if ok, err := openable(tx, f.earlier, f.later); err != nil {
			return out, err
		} else if !ok {
			continue
		}
		c := f.conflict()
		c.Epoch, c.DetectedAt = epoch, now
		c, err := OpenConflict(tx, detector, c)
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

// openable reports whether detection may open a conflict between units a
// and b now: both still stand, the pair has no conflict of any status,
// and nobody said it is not a contradiction.
func openable(tx store.Tx, a, b string) (bool, error) {
	for _, id := range []string{a, b} {
		u, err := tx.Unit(id)
		if err != nil {
			return false, err
		}
		if !u.Status.Stands() {
			return false, nil
		}
	}
	if _, err := tx.ConflictByPair(a, b); err == nil {
		return false, nil
	} else if err != store.ErrNotFound {
		return false, err
	}
	dismissed, err := tx.DetectDismissed(a, b)
	return !dismissed, err
}
