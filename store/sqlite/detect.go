package sqlite

import (
	"strconv"
	"strings"

	"arbiter/store"
	"arbiter/store/sqlcore"
)

// candidatesSQL asks units_text (FTS5, rowid = seq) for the newest units
// before a seq that hold one word, packed in one text ("12,9,4"): one
// statement and one row a word. FTS5 reads a word's units newest first
// and stops at the limit, however many hold it.
const candidatesSQL = `SELECT coalesce(group_concat(rowid), '') FROM (SELECT rowid FROM units_text
	WHERE units_text MATCH $1 AND rowid < $2 ORDER BY rowid DESC LIMIT $3)`

// UnitCandidates asks the word index, for each term, for the newest units
// before seq before that hold it, at most perTerm. How many hold a term
// is counted when fewer than perTerm do, and estimated from how far back
// the newest perTerm reach otherwise: counting them would read them all
// (a prefix's units are merged in full before the first is returned, so
// each term is asked for as the whole word it is, which FTS5 reads from
// the end).
func (t *Tx) UnitCandidates(terms []store.Term, before int64, perTerm int) ([][]int64, []int, error) {
	hits := make([][]int64, len(terms))
	df := make([]int, len(terms))
	for i, term := range terms {
		if term.Whole == "" {
			continue
		}
		match := `"` + strings.ReplaceAll(term.Whole, `"`, `""`) + `"`
		var packed string
		if err := t.row(candidatesSQL, match, before, perTerm).Scan(&packed); err != nil {
			return nil, nil, err
		}
		for s := range strings.SplitSeq(packed, ",") {
			if seq, err := strconv.ParseInt(s, 10, 64); err == nil {
				hits[i] = append(hits[i], seq)
			}
		}
		df[i] = sqlcore.EstimateHolders(hits[i], perTerm, before)
	}
	return hits, df, nil
}
