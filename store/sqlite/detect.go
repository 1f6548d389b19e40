package sqlite

import (
	"strconv"
	"strings"
	"sync"

	"arbiter/store"
	"arbiter/store/sqlcore"
)

// candidatesSQL is the statement that asks units_text (FTS5, rowid = seq)
// for n words at once: for each, in a row of its own, the newest units
// before a seq that hold it, packed in one text ("12,9,4"). FTS5 reads a
// word's units newest first and stops at the limit, however many hold it;
// one statement for all the words is prepared (and, its MATCH being
// bound, planned again) once a call rather than once a word.
func candidatesSQL(n int) string {
	candidatesMu.Lock()
	defer candidatesMu.Unlock()
	if q, ok := candidatesQueries[n]; ok {
		return q
	}
	parts := make([]string, n)
	for i := range n {
		parts[i] = `SELECT ` + strconv.Itoa(i) + `, (SELECT coalesce(group_concat(rowid), '') FROM (SELECT rowid FROM units_text
		WHERE units_text MATCH $` + strconv.Itoa(i+3) + ` AND rowid < $1 ORDER BY rowid DESC LIMIT $2))`
	}
	q := strings.Join(parts, "\nUNION ALL ")
	candidatesQueries[n] = q
	return q
}

var (
	candidatesMu      sync.Mutex
	candidatesQueries = map[int]string{}
)

// UnitCandidates asks the word index, for each term, for the newest units
// before seq before that hold it, at most perTerm. How many hold a term
// is counted when fewer than perTerm do, and estimated from how far back
// the newest perTerm reach otherwise: counting them would read them all.
// Each term is asked for as the whole word it is: FTS5 merges all the
// units of a prefix (one without a prefix index of its length) before it
// returns the first.
func (t *Tx) UnitCandidates(terms []store.Term, before int64, perTerm int) ([][]int64, []int, error) {
	hits := make([][]int64, len(terms))
	df := make([]int, len(terms))
	args := []any{before, perTerm}
	var at []int // the terms asked, by the statement's rows
	for i, term := range terms {
		if term.Whole != "" {
			args = append(args, `"`+strings.ReplaceAll(term.Whole, `"`, `""`)+`"`)
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return hits, df, nil
	}
	rows, err := t.query(candidatesSQL(len(at)), args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k int
		var packed string
		if err := rows.Scan(&k, &packed); err != nil {
			return nil, nil, err
		}
		i := at[k]
		for s := range strings.SplitSeq(packed, ",") {
			if seq, err := strconv.ParseInt(s, 10, 64); err == nil {
				hits[i] = append(hits[i], seq)
			}
		}
		df[i] = sqlcore.EstimateHolders(hits[i], perTerm, before)
	}
	return hits, df, rows.Err()
}
