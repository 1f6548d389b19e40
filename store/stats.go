package store

import "arbiter/model"

// Rows is what both engines' query results have: database/sql's and
// pgx's.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// StatsOf reads an engine's rows of statistics (kind, k1, k2, a…e: each
// engine's statsSQL) into the figures of q.
func StatsOf(q model.StatsQuery, rows Rows) (model.Stats, error) {
	var rs []model.StatsRow
	for rows.Next() {
		var r model.StatsRow
		if err := rows.Scan(&r.Kind, &r.K1, &r.K2, &r.A, &r.B, &r.C, &r.D, &r.E); err != nil {
			return model.Stats{}, err
		}
		rs = append(rs, r)
	}
	if err := rows.Err(); err != nil {
		return model.Stats{}, err
	}
	return model.StatsOf(q, rs), nil
}
