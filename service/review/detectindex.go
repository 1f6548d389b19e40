package review

import (
	"hash/maphash"
	"slices"
)

// scanIndex is a scan's own index of the words of the units it has
// read, from the field's first: for each word (a term's prefix, or a purpose), the newest
// units that hold it and how many do. A scan looks at units in order and
// compares each with the earlier ones, so what the engine's word index
// would answer for the earlier units the scan looked at, this answers
// from memory, without a statement a word.
//
// It holds at most budget bytes, by its own estimate: when the newer of
// its two generations fills half of it, the older is dropped, and the
// words it held are remembered as dropped (a Bloom filter), so that
// asking for one of them again goes to the engine's index. Words still
// asked for move to the newer generation.
type scanIndex struct {
	cur, old map[string]*holders
	curBytes int64
	budget   int64
	dropped  bloom
}

// holders are the newest units that hold a word, newest last, and how
// many the index saw hold it.
type holders struct {
	seqs  []int64
	count int
}

// index bytes, estimated: a map entry, the key and a holders; a unit.
const (
	indexEntryBytes = 96
	indexSeqBytes   = 8
)

func newScanIndex(budget int64) *scanIndex {
	return &scanIndex{cur: map[string]*holders{}, old: map[string]*holders{}, budget: budget, dropped: newBloom(1 << 23)}
}

// get returns the holders of key, or nil.
func (x *scanIndex) get(key string) *holders {
	if h, ok := x.cur[key]; ok {
		return h
	}
	h, ok := x.old[key]
	if !ok {
		return nil
	}
	delete(x.old, key)
	x.cur[key] = h
	x.curBytes += indexEntryBytes + int64(len(key)) + int64(cap(h.seqs))*indexSeqBytes
	x.rotate()
	return h
}

// known reports whether the index's answer for key is the whole answer:
// it holds at least keep units of it, or it never dropped key (it reads
// every unit of the field from the first, so a word it does not hold is
// held by no earlier unit).
func (x *scanIndex) known(key string, h *holders, keep int) bool {
	if h != nil && len(h.seqs) >= keep {
		return true
	}
	return !x.dropped.has(key)
}

// add notes that unit seq holds key, keeping the newest keep.
func (x *scanIndex) add(key string, seq int64, keep int) {
	h := x.get(key)
	if h == nil {
		h = &holders{seqs: make([]int64, 0, 1)}
		x.cur[key] = h
		x.curBytes += indexEntryBytes + int64(len(key)) + indexSeqBytes
	}
	h.count++
	if len(h.seqs) == keep {
		copy(h.seqs, h.seqs[1:])
		h.seqs[keep-1] = seq
		return
	}
	before := cap(h.seqs)
	h.seqs = append(h.seqs, seq)
	x.curBytes += int64(cap(h.seqs)-before) * indexSeqBytes
	x.rotate()
}

// newest is h's units newest first.
func (h *holders) newest() []int64 {
	if h == nil {
		return nil
	}
	out := slices.Clone(h.seqs)
	slices.Reverse(out)
	return out
}

// rotate drops the older generation once the newer fills half the budget.
func (x *scanIndex) rotate() {
	if x.curBytes < x.budget/2 {
		return
	}
	for key := range x.old {
		x.dropped.add(key)
	}
	x.old, x.cur, x.curBytes = x.cur, make(map[string]*holders, len(x.cur)), 0
}

// bloom is a set of strings that may answer yes for one it does not hold,
// never no for one it does: the words a scan's index dropped.
type bloom struct {
	bits []uint64
	seed maphash.Seed
}

func newBloom(bits int) bloom { return bloom{bits: make([]uint64, bits/64), seed: maphash.MakeSeed()} }

func (b bloom) spots(s string) [3]uint64 {
	h := maphash.String(b.seed, s)
	n := uint64(len(b.bits) * 64)
	lo, hi := h&0xffffffff, h>>32
	return [3]uint64{lo % n, (lo + hi) % n, (lo + 2*hi) % n}
}

func (b bloom) add(s string) {
	for _, i := range b.spots(s) {
		b.bits[i/64] |= 1 << (i % 64)
	}
}

func (b bloom) has(s string) bool {
	for _, i := range b.spots(s) {
		if b.bits[i/64]&(1<<(i%64)) == 0 {
			return false
		}
	}
	return true
}
