package postgres

import (
	"arbiter/store"
)

// candidatesSQL asks units_words (GIN over each unit's folded words) for
// one term: how many units hold it, up to a cap; and, for a term held by
// fewer, the newest of them before a seq. A GIN index hands its matches
// over unordered, so the newest of a term held by many would cost a sort
// of all of them: such a term, too common to tell units apart anyway,
// comes back with its count alone.
const candidatesSQL = `WITH n AS (SELECT count(*) AS n FROM (SELECT 1 FROM units
		WHERE to_tsvector('simple', fold(left(content, 262144))) @@ to_tsquery('simple', fold($1)) LIMIT $4) s)
	SELECT n.n, CASE WHEN n.n < $4 THEN (SELECT coalesce(array_agg(seq), '{}') FROM (SELECT seq FROM units
		WHERE to_tsvector('simple', fold(left(content, 262144))) @@ to_tsquery('simple', fold($1)) AND seq < $2
		ORDER BY seq DESC LIMIT $3) h) END
	FROM n`

// UnitCandidates asks the word index, for each term, for how many units
// hold it (up to store.CandidateCap) and, when fewer do, the newest
// before seq before (at most perTerm).
func (t *Tx) UnitCandidates(terms []store.Term, before int64, perTerm int) ([][]int64, []int, error) {
	hits := make([][]int64, len(terms))
	df := make([]int, len(terms))
	for i, term := range terms {
		q := prefixQuery(term.Prefix)
		if q == "" {
			continue
		}
		var n int64
		if err := t.row(candidatesSQL, q, before, perTerm, store.CandidateCap).Scan(&n, &hits[i]); err != nil {
			return nil, nil, err
		}
		df[i] = int(n)
	}
	return hits, df, nil
}
