package sqlite

import (
	"time"

	"arbiter/model"
	"arbiter/store"
)

// Stats aggregates the field's figures in one statement: one scan of the
// conflicts that are open or moved since q.Since, which every figure
// reads (statsSQL), and the ballots.
func (t *Tx) Stats(q model.StatsQuery) (model.Stats, error) {
	now := q.Now.UTC()
	args := []any{fmtTime(q.Since), fmtTime(now), fmtTime(now.Add(-time.Hour)), fmtTime(now.Add(-24 * time.Hour)),
		fmtTime(now.Add(-7 * 24 * time.Hour))}
	rows, err := t.query(statsSQL, args...)
	if err != nil {
		return model.Stats{}, err
	}
	defer rows.Close()
	return store.StatsOf(q, rows)
}

// statsSQL is every figure of Stats as rows (kind, k1, k2, a…e): ?1 is
// since, ?2 now, ?3–?5 an hour, a day and a week before now. Times are
// text in one format, so text order is time order.
const statsSQL = `
WITH c AS MATERIALIZED (
	SELECT id, status, type, strategy, resolved_by, rework_by, rework_at, agent_a, agent_b, unit_a, winner_id,
		owner, deadline, detected_at, resolved_at, vote_opened_at,
		CASE WHEN resolved_at IS NOT NULL
			THEN CAST(round((julianday(resolved_at) - julianday(detected_at)) * 86400000) AS INTEGER) END AS ms
	FROM conflicts
	-- What moved since: opened, or decided (a rework or a vote since
	-- leaves the conflict open, or decided after).
	WHERE status IN ('detected', 'resolving', 'escalated', 'pending_vote') OR detected_at >= ?1 OR resolved_at >= ?1
),
d AS (
	SELECT type, strategy, CASE WHEN strategy = 'vote' THEN 'vote' ELSE resolved_by END AS person, ms
	FROM c WHERE status = 'resolved' AND resolved_at >= ?1
),
g AS (
	SELECT 'type' AS dim, type AS k, ms FROM d
	UNION ALL SELECT 'strategy', strategy, ms FROM d
	UNION ALL SELECT 'person', person, ms FROM d
),
r AS (
	SELECT dim, k, ms, row_number() OVER (PARTITION BY dim, k ORDER BY ms) AS i, count(*) OVER (PARTITION BY dim, k) AS n
	FROM g
)
SELECT 'open', status, type, count(*), count(*) FILTER (WHERE detected_at > ?3),
	count(*) FILTER (WHERE detected_at <= ?3 AND detected_at > ?4),
	count(*) FILTER (WHERE detected_at <= ?4 AND detected_at > ?5), count(*) FILTER (WHERE detected_at <= ?5)
FROM c WHERE status <> 'resolved' GROUP BY status, type
UNION ALL
SELECT 'time', dim, k, n, min(ms) FILTER (WHERE i * 100 >= 50 * n), min(ms) FILTER (WHERE i * 100 >= 90 * n), 0, 0
FROM r GROUP BY dim, k, n
UNION ALL
SELECT 'opened', substr(detected_at, 1, 10), '', count(*), 0, 0, 0, 0 FROM c WHERE detected_at >= ?1 GROUP BY 2
UNION ALL
SELECT 'decided', substr(resolved_at, 1, 10), '', count(*), 0, 0, 0, 0
FROM c WHERE status = 'resolved' AND resolved_at >= ?1 GROUP BY 2
UNION ALL
SELECT * FROM (
	SELECT 'pair', CASE WHEN agent_a <= agent_b THEN agent_a ELSE agent_b END AS x,
		CASE WHEN agent_a <= agent_b THEN agent_b ELSE agent_a END AS y, count(*) AS n, 0, 0, 0, 0
	FROM c WHERE detected_at >= ?1 GROUP BY x, y ORDER BY n DESC, x, y LIMIT 10
)
UNION ALL
SELECT 'outcome', agent, '', count(*) FILTER (WHERE won), count(*) FILTER (WHERE NOT won), 0, 0, 0 FROM (
	SELECT CASE WHEN winner_id = unit_a THEN agent_a ELSE agent_b END AS agent, 1 AS won
	FROM c WHERE status = 'resolved' AND resolved_at >= ?1 AND winner_id IS NOT NULL
	UNION ALL
	SELECT CASE WHEN winner_id = unit_a THEN agent_b ELSE agent_a END, 0
	FROM c WHERE status = 'resolved' AND resolved_at >= ?1 AND winner_id IS NOT NULL
) GROUP BY agent
UNION ALL
SELECT 'owner', coalesce(owner, ''), '', count(*), count(*) FILTER (WHERE deadline IS NOT NULL AND deadline < ?2), 0, 0, 0
FROM c WHERE status = 'escalated' GROUP BY 2
UNION ALL
SELECT 'fallback', strategy, '', count(*), 0, 0, 0, 0
FROM c WHERE status = 'resolved' AND resolved_by = 'fallback' AND resolved_at >= ?1 GROUP BY 2
UNION ALL
SELECT 'fallback', 'rework', '', count(*), 0, 0, 0, 0 FROM c WHERE rework_by = 'fallback' AND rework_at >= ?1 HAVING count(*) > 0
UNION ALL
SELECT 'votes_closed', '', '', count(*), 0, 0, 0, 0 FROM c WHERE vote_opened_at >= ?1 AND status <> 'pending_vote'
UNION ALL
SELECT 'cast', voter_id, '', count(*), 0, 0, 0, 0 FROM votes WHERE cast_at >= ?1 GROUP BY voter_id
UNION ALL
SELECT 'voted_on', voter_id, '', count(*), 0, 0, 0, 0 FROM votes
WHERE conflict_id IN (SELECT id FROM c WHERE vote_opened_at >= ?1 AND status <> 'pending_vote') GROUP BY voter_id
UNION ALL
SELECT 'authored', agent, '', count(*), 0, 0, 0, 0 FROM (
	SELECT id, agent_a AS agent FROM c WHERE vote_opened_at >= ?1 AND status <> 'pending_vote'
	UNION
	SELECT id, agent_b FROM c WHERE vote_opened_at >= ?1 AND status <> 'pending_vote'
) GROUP BY agent
`
