package postgres

import (
	"strings"
	"sync"
	"time"
	"unicode"

	"arbiter/store"
)

// Detection's candidates on PostgreSQL. units_words is a GIN index over
// each unit's folded words: it answers "which units hold this word" at
// the cost of reading every unit that does, in no order, so the newest
// of a word held by thousands cost thousands of rows read and sorted; and
// the planner, counting to_tsvector as cheap, answers a LIMIT over a
// word it thinks common by reading the table backwards, computing every
// row's words (tens of seconds on a million units for a word no unit
// holds). So:
//
//   - the words the planner's own statistics list as the most common of
//     units_words (pg_stats' most_common_elems, kept by ANALYZE: on a
//     million units, those in more than a few thousand) are not asked
//     for: their count is the statistics' estimate, and they bring no
//     units — too common to tell units apart;
//   - the others are asked for each through the index (bitmap scans
//     only: the transaction turns the other plans off for these
//     statements), whole words, as SQLite's are, reading at most
//     store.CandidateCap of the units that hold each: a word that has
//     more is too common as well, and brings none.

// wordStatsTTL is how long a process trusts what it read of the
// statistics before it reads them again.
const wordStatsTTL = 5 * time.Minute

// wordStats is what the planner's statistics say of units_words: each
// common word's share of the units, and how many units there are.
type wordStats struct {
	at    time.Time
	share map[string]float64
	units float64
}

// statsOf is the statistics of the field's schema, read again when older
// than wordStatsTTL.
func (t *Tx) statsOf() (*wordStats, error) {
	t.s.words.mu.Lock()
	defer t.s.words.mu.Unlock()
	if w := t.s.words.cur; w != nil && time.Since(w.at) < wordStatsTTL {
		return w, nil
	}
	w := &wordStats{at: time.Now(), share: map[string]float64{}}
	var elems []string
	var freqs []float64
	err := t.row(`SELECT coalesce((SELECT most_common_elems::text::text[] FROM pg_stats
			WHERE schemaname = current_schema() AND tablename = 'units_words'), '{}'),
		coalesce((SELECT most_common_elem_freqs::float8[] FROM pg_stats
			WHERE schemaname = current_schema() AND tablename = 'units_words'), '{}'),
		(SELECT greatest(reltuples, 0)::float8 FROM pg_class WHERE oid = 'units'::regclass)`).Scan(&elems, &freqs, &w.units)
	if err != nil {
		return nil, err
	}
	for i, e := range elems {
		if i < len(freqs) {
			w.share[e] = freqs[i]
		}
	}
	t.s.words.cur = w
	return w, nil
}

// wordCache keeps a Store's wordStats.
type wordCache struct {
	mu  sync.Mutex
	cur *wordStats
}

// candidatesSQL lists the units before $2 that hold the word $1 (a
// tsquery of one word), newest first: the first $3 the index hands over,
// in no order, so that a word costs at most that many rows read. A word
// they are all of is too common to list the newest of (see above).
const candidatesSQL = `SELECT coalesce(array_agg(seq ORDER BY seq DESC), '{}') FROM (SELECT seq FROM units
	WHERE to_tsvector('simple', fold(left(content, 262144))) @@ to_tsquery('simple', fold($1)) AND seq < $2
	LIMIT $3) h`

// UnitCandidates asks the word index, for each term the statistics do
// not list as common, for the newest units before seq before that hold
// it, at most perTerm; a common one comes back with the statistics'
// count and no units (see above).
func (t *Tx) UnitCandidates(terms []store.Term, before int64, perTerm int) ([][]int64, []int, error) {
	hits := make([][]int64, len(terms))
	df := make([]int, len(terms))
	stats, err := t.statsOf()
	if err != nil {
		return nil, nil, err
	}
	planned := false
	for i, term := range terms {
		word := strings.ToLower(term.Whole)
		q := wordQuery(word)
		if q == "" {
			continue
		}
		if share, ok := stats.share[word]; ok {
			df[i] = max(store.CandidateCap, int(share*stats.units))
			continue
		}
		if !planned {
			// The index, never a scan that computes every row's words.
			if _, err := t.exec(`SET LOCAL enable_seqscan = off`); err != nil {
				return nil, nil, err
			}
			if _, err := t.exec(`SET LOCAL enable_indexscan = off`); err != nil {
				return nil, nil, err
			}
			planned = true
		}
		var all []int64
		if err := t.row(candidatesSQL, q, before, store.CandidateCap).Scan(&all); err != nil {
			return nil, nil, err
		}
		df[i] = len(all)
		if len(all) < store.CandidateCap {
			hits[i] = all[:min(perTerm, len(all))]
		}
	}
	if planned {
		for _, reset := range []string{`RESET enable_seqscan`, `RESET enable_indexscan`} {
			if _, err := t.exec(reset); err != nil {
				return nil, nil, err
			}
		}
	}
	return hits, df, nil
}

// wordQuery is word as a tsquery of the whole word: its runs of letters
// and digits one after the other ("db-eu-2" → 'db' <-> 'eu' <-> '2');
// "" if it has none.
func wordQuery(word string) string {
	parts := strings.FieldsFunc(word, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	for i, p := range parts {
		parts[i] = "'" + p + "'"
	}
	return strings.Join(parts, " <-> ")
}
