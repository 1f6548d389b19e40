package detect

import (
	"math/bits"
	"slices"
	"strings"
	"unsafe"

	"arbiter/model"
)

// Input is what the detector reads of a unit.
type Input struct {
	Content string
	// Purpose is the unit's intent.purpose: it says what the unit is about
	// when the content does not.
	Purpose string
	// Type is the unit's type; a decision or an intention makes a
	// disagreement strategic.
	Type model.UnitType
}

// Text is a unit read once for every comparison it takes part in. It is
// immutable, so one Text may be compared from many goroutines.
type Text struct {
	content     string
	unitType    model.UnitType
	toks        []tok
	used        []bool     // tokens a quantity consumed (numbers, units, bounds)
	nbr         [][2]int32 // each word's neighbours before and after (see neighbour)
	segs        []segment
	joined      []segment // a segment and the one after its colon, read as one claim
	quants      []quantity
	changes     []change
	words       []uint32 // every content word of the unit, sorted, distinct
	purpose     []uint32 // the purpose's content words, sorted, distinct
	purposeToks []tok
}

// segment is one claim: a sentence, or the part of one between semicolons,
// colons, dashes, brackets or "but".
type segment struct {
	from, to int // tokens
	sent     int
	set      []uint32 // content words, sorted, distinct; opposites as their pair
	alts     []alt    // words made opposite by a prefix ("unavailable")
	poles    uint64   // the pairs of opposites it uses, a bit per pair
	minus    uint64   // pairs said on their negative side; a negated positive term is negative
	mixed    uint64   // pairs said on both sides: no side taken
	negated  uint64   // pairs whose term a negator turned ("not enabled")
	said     uint64   // pairs said of the subject after a copula ("encryption is disabled")
	neg      int      // negators of other words
	negAt    []int    // their tokens
	temporal bool     // a negator saying the claim changed ("no longer")
	question bool
	quants   int // measured quantities in it
}

// polarity is 1 when the segment says its claim negatively, counting its
// negators and the negative sides of its pairs.
func (s *segment) polarity() int {
	return (s.neg + bits.OnesCount64(s.minus&^s.mixed)) % 2
}

// alt is a prefixed word and its word without the prefix.
type alt struct{ word, base uint32 }

// Analyse reads a unit for comparison.
func Analyse(in Input) *Text {
	t := &Text{content: in.Content, unitType: in.Type}
	if len(t.content) > maxScan {
		t.content = t.content[:maxScan]
	}
	t.toks = read(t.content)
	t.used = make([]bool, len(t.toks))
	t.segment()
	t.quantities()
	t.joinColons()
	t.fillSegments()
	t.neighbours()
	t.changes = findChanges(t)
	for _, tk := range t.toks {
		if tk.kind == kWord {
			t.words = append(t.words, tk.h)
		}
	}
	t.words = sortedSet(t.words)
	t.purposeToks = read(in.Purpose)
	for _, tk := range t.purposeToks {
		if tk.kind == kWord {
			t.purpose = append(t.purpose, tk.h)
		}
	}
	t.purpose = sortedSet(t.purpose)
	return t
}

// Content is the text the unit was read from (its first 16 KiB).
func (t *Text) Content() string { return t.content }

// size estimates the bytes a read unit holds, its content aside (the
// content is the unit's own string).
func (t *Text) size() int64 {
	n := unsafe.Sizeof(*t) + uintptr(cap(t.toks))*unsafe.Sizeof(tok{}) + uintptr(cap(t.used)) +
		uintptr(cap(t.nbr))*8 + uintptr(cap(t.segs)+cap(t.joined))*unsafe.Sizeof(segment{}) +
		uintptr(cap(t.quants))*unsafe.Sizeof(quantity{}) + uintptr(cap(t.words)+cap(t.purpose))*4 +
		uintptr(cap(t.purposeToks))*unsafe.Sizeof(tok{})
	for i := range t.segs {
		n += uintptr(cap(t.segs[i].set))*4 + uintptr(cap(t.segs[i].alts))*8 + uintptr(cap(t.segs[i].negAt))*8
	}
	for i := range t.quants {
		n += uintptr(cap(t.quants[i].subj))*4 + uintptr(cap(t.quants[i].subjTok))*8
	}
	return int64(n)
}

// segment cuts the tokens into claims.
func (t *Text) segment() {
	t.segs = make([]segment, 0, len(t.toks)/8+1)
	from, sent := 0, 0
	for i := 1; i <= len(t.toks); i++ {
		if i < len(t.toks) && t.toks[i].before < brkSegment && !contrast(t.toks[i].w) {
			continue
		}
		t.segs = append(t.segs, segment{from: from, to: i, sent: sent})
		if i < len(t.toks) && t.toks[i].before >= brkSentence {
			if t.toks[i].is(fQuestion) {
				t.markQuestion(sent)
			}
			sent++
		}
		from = i
	}
	if strings.HasSuffix(strings.TrimSpace(t.content), "?") {
		t.markQuestion(sent)
	}
}

// markQuestion marks the segments of a sentence that asks rather than
// claims.
func (t *Text) markQuestion(sent int) {
	for k := len(t.segs) - 1; k >= 0 && t.segs[k].sent == sent; k-- {
		t.segs[k].question = true
	}
}

// contrast words start a claim of their own inside a sentence.
func contrast(w string) bool {
	return w == "but" || w == "whereas" || w == "however" || w == "although"
}

// joinColons reads "SSO login bug: low priority" as one claim too: what
// stands before a colon is often the subject of what follows it.
func (t *Text) joinColons() {
	for k := 1; k < len(t.segs); k++ {
		prev, s := t.segs[k-1], t.segs[k]
		if t.toks[s.from].is(fColon) && s.sent == prev.sent && !s.question {
			t.joined = append(t.joined, segment{from: prev.from, to: s.to, sent: s.sent})
		}
	}
}

// seg is segment k, counting the joined ones after the others.
func (t *Text) seg(k int) *segment {
	if k < len(t.segs) {
		return &t.segs[k]
	}
	return &t.joined[k-len(t.segs)]
}

// claims is how many segments seg reaches.
func (t *Text) claims() int { return len(t.segs) + len(t.joined) }

// fillSegments gathers each segment's words, negators and opposites, once
// the quantities have taken their tokens.
func (t *Text) fillSegments() {
	for k := range t.claims() {
		t.fill(t.seg(k))
	}
}

func (t *Text) fill(s *segment) {
	var plus uint64
	var negatedAt []int // opposite terms a negator negates
	for i := s.from; i < s.to; i++ {
		tk := t.toks[i]
		if tk.kind != kNeg || t.used[i] {
			continue
		}
		s.temporal = s.temporal || tk.is(fTemporal)
		if h := t.head(i, s.to); h >= 0 && t.toks[h].pole.group != 0 {
			negatedAt = append(negatedAt, h)
			continue
		}
		s.neg++
		if len(s.negAt) < maxNegators {
			s.negAt = append(s.negAt, i)
		}
	}
	for i := s.from; i < s.to; i++ {
		tk := t.toks[i]
		if tk.kind != kWord || t.used[i] {
			continue
		}
		if g := tk.pole.group; g != 0 {
			bit := uint64(1) << g
			s.poles |= bit
			negated := countOf(negatedAt, i)%2 == 1
			if negated {
				s.negated |= bit
			}
			if tk.pole.minus != negated {
				s.minus |= bit
			} else {
				plus |= bit
			}
			if t.predicative(i, s.from) {
				s.said |= bit
			}
			s.set = append(s.set, poleHash(g))
			continue
		}
		s.set = append(s.set, tk.h)
		if b, ok := prefixBase(tk.w); ok {
			s.alts = append(s.alts, alt{word: tk.h, base: hash(stem(b))})
		}
	}
	s.mixed = s.minus & plus
	s.set = sortedSet(s.set)
}

// copulas say a term of their subject.
var copulas = wordSet(`is are was were be been being stays stay remains remain become becomes seems seem`)

// predicative reports whether the word at i is said of the subject after a
// copula ("is disabled", "is not safe"), rather than naming a thing ("the
// broken invoice").
func (t *Text) predicative(i, from int) bool {
	for j := i - 1; j >= from && j >= i-3; j-- {
		tk := t.toks[j]
		switch {
		case tk.lx&lxCopula != 0:
			return true
		case tk.kind == kStop || tk.kind == kNeg:
		default:
			return false
		}
	}
	return false
}

func countOf(s []int, x int) int {
	n := 0
	for _, v := range s {
		if v == x {
			n++
		}
	}
	return n
}

// head is the word a negator at i negates: the first content word after
// it, or -1.
func (t *Text) head(i, end int) int {
	for j := i + 1; j < end; j++ {
		switch tk := t.toks[j]; {
		case t.used[j]:
			return -1
		case tk.kind == kWord:
			return j
		case tk.kind == kNum:
			return -1
		}
	}
	return -1
}

// prefixBase is a word without the prefix that makes it an opposite:
// "available" of "unavailable". The rest must be long enough to be a word.
func prefixBase(w string) (string, bool) {
	for _, p := range prefixes {
		if len(w) >= len(p)+5 && w[:len(p)] == p {
			return w[len(p):], true
		}
	}
	return "", false
}

var poleHashes [64]uint32

func init() {
	for g := range poleHashes {
		poleHashes[g] = hash("@opposites" + string(rune('a'+g)))
	}
}

func poleHash(group uint8) uint32 { return poleHashes[group] }

// sortedSet sorts s and drops repeats, in place.
func sortedSet(s []uint32) []uint32 {
	slices.Sort(s)
	return slices.Compact(s)
}
