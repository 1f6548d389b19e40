package sqlcore

import (
	"time"

	"arbiter/model"
)

// Stats aggregates the field's figures in one statement: one scan of the
// conflicts that are open or moved since q.Since, which every figure
// reads, and the ballots.
func (t *Tx) Stats(q model.StatsQuery) (model.Stats, error) {
	now := q.Now.UTC()
	args := []any{q.Since.UTC(), now, now.Add(-time.Hour), now.Add(-24 * time.Hour), now.Add(-7 * 24 * time.Hour)}
	rows, err := Collect(t.E, t.D.stats, args, func(r Row) (model.StatsRow, error) {
		var s model.StatsRow
		err := r.Scan(&s.Kind, &s.K1, &s.K2, &s.A, &s.B, &s.C, &s.D, &s.E)
		return s, err
	})
	if err != nil {
		return model.Stats{}, err
	}
	return model.StatsOf(q, rows), nil
}

// statsSQL is every figure of Stats as rows (kind, k1, k2, a…e): $1 is
// since, $2 now, $3–$5 an hour, a day and a week before now, in the
// engine's words for durations and days. On SQLite, times are text in
// one format, so text order is time order.
func statsSQL(w Words) string {
	return `
WITH c AS MATERIALIZED (
	SELECT id, status, type, strategy, resolved_by, rework_by, rework_at, agent_a, agent_b, unit_a, winner_id,
		owner, deadline, detected_at, resolved_at, vote_opened_at,
		CASE WHEN resolved_at IS NOT NULL THEN ` + w.Millis("detected_at", "resolved_at") + ` END AS ms
	FROM conflicts
	-- What moved since: opened, or decided (a rework or a vote since
	-- leaves the conflict open, or decided after).
	WHERE status IN ('detected', 'resolving', 'escalated', 'pending_vote') OR detected_at >= $1 OR resolved_at >= $1
),
d AS (
	SELECT type, strategy, CASE WHEN strategy = 'vote' THEN 'vote' ELSE resolved_by END AS person, ms
	FROM c WHERE status = 'resolved' AND resolved_at >= $1
),
g AS (
	SELECT CAST('type' AS text) AS dim, CAST(type AS text) AS k, ms FROM d
	UNION ALL SELECT 'strategy', strategy, ms FROM d
	UNION ALL SELECT 'person', person, ms FROM d
),
r AS (
	SELECT dim, k, ms, row_number() OVER (PARTITION BY dim, k ORDER BY ms) AS i, count(*) OVER (PARTITION BY dim, k) AS n
	FROM g
)
SELECT CAST('open' AS text), CAST(status AS text), CAST(type AS text), count(*), count(*) FILTER (WHERE detected_at > $3),
	count(*) FILTER (WHERE detected_at <= $3 AND detected_at > $4),
	count(*) FILTER (WHERE detected_at <= $4 AND detected_at > $5), count(*) FILTER (WHERE detected_at <= $5)
FROM c WHERE status <> 'resolved' GROUP BY status, type
UNION ALL
SELECT 'time', dim, k, n, min(ms) FILTER (WHERE i * 100 >= 50 * n), min(ms) FILTER (WHERE i * 100 >= 90 * n), 0, 0
FROM r GROUP BY dim, k, n
UNION ALL
SELECT 'opened', ` + w.Day("detected_at") + `, '', count(*), 0, 0, 0, 0 FROM c WHERE detected_at >= $1 GROUP BY 2
UNION ALL
SELECT 'decided', ` + w.Day("resolved_at") + `, '', count(*), 0, 0, 0, 0
FROM c WHERE status = 'resolved' AND resolved_at >= $1 GROUP BY 2
UNION ALL
SELECT * FROM (
	SELECT 'pair', CASE WHEN agent_a <= agent_b THEN agent_a ELSE agent_b END AS x,
		CASE WHEN agent_a <= agent_b THEN agent_b ELSE agent_a END AS y, count(*) AS n, 0, 0, 0, 0
	FROM c WHERE detected_at >= $1 GROUP BY x, y ORDER BY n DESC, x, y LIMIT 10
) p
UNION ALL
SELECT 'outcome', agent, '', count(*) FILTER (WHERE won = 1), count(*) FILTER (WHERE won = 0), 0, 0, 0 FROM (
	SELECT CASE WHEN winner_id = unit_a THEN agent_a ELSE agent_b END AS agent, 1 AS won
	FROM c WHERE status = 'resolved' AND resolved_at >= $1 AND winner_id IS NOT NULL
	UNION ALL
	SELECT CASE WHEN winner_id = unit_a THEN agent_b ELSE agent_a END, 0
	FROM c WHERE status = 'resolved' AND resolved_at >= $1 AND winner_id IS NOT NULL
) o GROUP BY agent
UNION ALL
SELECT 'owner', coalesce(owner, ''), '', count(*), count(*) FILTER (WHERE deadline IS NOT NULL AND deadline < $2), 0, 0, 0
FROM c WHERE status = 'escalated' GROUP BY 2
UNION ALL
SELECT 'fallback', strategy, '', count(*), 0, 0, 0, 0
FROM c WHERE status = 'resolved' AND resolved_by = 'fallback' AND resolved_at >= $1 GROUP BY 2
UNION ALL
SELECT 'fallback', 'rework', '', count(*), 0, 0, 0, 0 FROM c WHERE rework_by = 'fallback' AND rework_at >= $1 HAVING count(*) > 0
UNION ALL
SELECT 'votes_closed', '', '', count(*), 0, 0, 0, 0 FROM c WHERE vote_opened_at >= $1 AND status <> 'pending_vote'
UNION ALL
SELECT 'cast', voter_id, '', count(*), 0, 0, 0, 0 FROM votes WHERE cast_at >= $1 GROUP BY voter_id
UNION ALL
SELECT 'voted_on', voter_id, '', count(*), 0, 0, 0, 0 FROM votes
WHERE conflict_id IN (SELECT id FROM c WHERE vote_opened_at >= $1 AND status <> 'pending_vote') GROUP BY voter_id
UNION ALL
SELECT 'authored', agent, '', count(*), 0, 0, 0, 0 FROM (
	SELECT id, agent_a AS agent FROM c WHERE vote_opened_at >= $1 AND status <> 'pending_vote'
	UNION
	SELECT id, agent_b FROM c WHERE vote_opened_at >= $1 AND status <> 'pending_vote'
) a GROUP BY agent
`
}
