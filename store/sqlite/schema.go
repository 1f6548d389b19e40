package sqlite

import "slices"

// ApplicationID marks a SQLite file as an arbiter field ("ARBT"), in the
// database header where any SQLite reader can see it.
const ApplicationID = 0x41524254

// migrations build the field format one version at a time; the field's
// PRAGMA user_version is the number applied. Never edit a released one:
// append.
var migrations = []string{
	// 1: the first field format (docs/field-format.md).
	`
CREATE TABLE clock (
	id    INTEGER PRIMARY KEY CHECK (id = 1),
	epoch INTEGER NOT NULL CHECK (epoch >= 0)
);
INSERT INTO clock (id, epoch) VALUES (1, 0);

CREATE TABLE policy (
	id                  INTEGER PRIMARY KEY CHECK (id = 1),
	level               INTEGER NOT NULL CHECK (level BETWEEN 1 AND 3),
	quorum              INTEGER NOT NULL CHECK (quorum >= 1),
	tie                 TEXT    NOT NULL CHECK (tie IN ('stay', 'escalate')),
	voter_min_authority INTEGER NOT NULL CHECK (voter_min_authority BETWEEN 0 AND 10),
	voter_roles         TEXT    NOT NULL DEFAULT '[]'
);

CREATE TABLE authority_roles (
	conflict_type TEXT PRIMARY KEY CHECK (conflict_type IN ('factual', 'interpretive', 'strategic', 'priority')),
	role          TEXT NOT NULL
);

CREATE TABLE agents (
	id            TEXT    PRIMARY KEY,
	role          TEXT    NOT NULL,
	kind          TEXT    NOT NULL CHECK (kind IN ('agent', 'human')),
	authority     INTEGER NOT NULL CHECK (authority BETWEEN 0 AND 10),
	status        TEXT    NOT NULL DEFAULT 'idle',
	registered_at TEXT    NOT NULL,
	epoch         INTEGER NOT NULL
);

CREATE TABLE units (
	seq                    INTEGER PRIMARY KEY,
	id                     TEXT    NOT NULL UNIQUE,
	mode                   TEXT    NOT NULL CHECK (mode IN ('draft', 'committed')),
	type                   TEXT    NOT NULL,
	content                TEXT    NOT NULL,
	intent_purpose         TEXT    NOT NULL CHECK (intent_purpose <> ''),
	intent_task_id         TEXT,
	intent_question        TEXT,
	confidence_score       REAL    CHECK (confidence_score IS NULL OR confidence_score BETWEEN 0 AND 1),
	confidence_reasoning   TEXT    NOT NULL DEFAULT '',
	confidence_evidence    TEXT    NOT NULL DEFAULT '[]',
	confidence_assumptions TEXT    NOT NULL DEFAULT '[]',
	agent_id               TEXT    NOT NULL REFERENCES agents (id),
	agent_role             TEXT    NOT NULL,
	session_id             TEXT,
	recorded_at            TEXT    NOT NULL,
	status                 TEXT    NOT NULL CHECK (status IN ('active', 'draft', 'superseded', 'retracted', 'contested', 'pending_enrichment')),
	epoch                  INTEGER NOT NULL
);
CREATE INDEX units_agent ON units (agent_id);

CREATE TABLE relations (
	unit_id     TEXT NOT NULL REFERENCES units (id),
	type        TEXT NOT NULL,
	target_id   TEXT NOT NULL,
	description TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (unit_id, type, target_id)
) WITHOUT ROWID;
CREATE INDEX relations_target ON relations (target_id, type, unit_id);

CREATE TABLE conflicts (
	seq               INTEGER PRIMARY KEY,
	id                TEXT    NOT NULL UNIQUE,
	type              TEXT    NOT NULL CHECK (type IN ('factual', 'interpretive', 'strategic', 'priority')),
	status            TEXT    NOT NULL CHECK (status IN ('detected', 'resolving', 'resolved', 'escalated', 'pending_vote')),
	unit_a            TEXT    NOT NULL REFERENCES units (id),
	unit_b            TEXT    NOT NULL REFERENCES units (id),
	description       TEXT    NOT NULL DEFAULT '',
	detected_by       TEXT    NOT NULL CHECK (detected_by IN ('explicit', 'semantic', 'logical', 'temporal')),
	detected_at       TEXT    NOT NULL,
	epoch             INTEGER NOT NULL,
	version           INTEGER NOT NULL DEFAULT 1,
	escalated_by      TEXT,
	escalated_reason  TEXT,
	escalated_epoch   INTEGER,
	escalated_at      TEXT,
	vote_opened_by    TEXT,
	vote_reason       TEXT,
	vote_opened_epoch INTEGER,
	vote_opened_at    TEXT,
	strategy          TEXT,
	winner_id         TEXT,
	synthesis_unit_id TEXT,
	rationale         TEXT,
	resolved_by       TEXT,
	epoch_resolved    INTEGER,
	resolved_at       TEXT,
	CHECK (unit_a <> unit_b),
	CHECK ((status = 'resolved') = (strategy IS NOT NULL))
);
CREATE INDEX conflicts_status ON conflicts (status, epoch);
CREATE INDEX conflicts_unit_a ON conflicts (unit_a);
CREATE INDEX conflicts_unit_b ON conflicts (unit_b);

CREATE TABLE votes (
	conflict_id TEXT    NOT NULL REFERENCES conflicts (id),
	voter_id    TEXT    NOT NULL REFERENCES agents (id),
	choice      TEXT    NOT NULL REFERENCES units (id),
	rationale   TEXT    NOT NULL CHECK (rationale <> ''),
	epoch       INTEGER NOT NULL,
	cast_at     TEXT    NOT NULL,
	PRIMARY KEY (conflict_id, voter_id)
) WITHOUT ROWID;

CREATE TABLE notifications (
	id              INTEGER PRIMARY KEY,
	agent_id        TEXT    NOT NULL REFERENCES agents (id),
	event           TEXT    NOT NULL,
	epoch           INTEGER NOT NULL,
	relevance_score REAL    NOT NULL DEFAULT 1,
	summary         TEXT    NOT NULL,
	unit_id         TEXT,
	conflict_id     TEXT,
	requires_action INTEGER NOT NULL DEFAULT 0,
	created_at      TEXT    NOT NULL
);
CREATE INDEX notifications_agent ON notifications (agent_id, id);
CREATE INDEX notifications_conflict ON notifications (conflict_id) WHERE conflict_id IS NOT NULL;

CREATE TABLE events (
	id          INTEGER PRIMARY KEY,
	epoch       INTEGER NOT NULL,
	operation   TEXT    NOT NULL,
	agent_id    TEXT    NOT NULL,
	conflict_id TEXT,
	unit_id     TEXT,
	payload     TEXT    NOT NULL DEFAULT '{}',
	at          TEXT    NOT NULL
);
CREATE INDEX events_conflict ON events (conflict_id, id) WHERE conflict_id IS NOT NULL;
CREATE INDEX events_unit ON events (unit_id, id) WHERE unit_id IS NOT NULL;
CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
`,
	// 2: indexes for large fields (docs/performance.md, "A million-unit
	// field"). Pages of the queue over every status, oldest first or by
	// type, read the conflicts in order and stop at the page's end instead
	// of sorting them all; the queue's agents come from units_author
	// without reading the units themselves (their content).
	`
CREATE INDEX conflicts_epoch ON conflicts (epoch);
CREATE INDEX conflicts_type ON conflicts (type, epoch);
CREATE INDEX units_author ON units (id, agent_id, agent_role);
`,
	// 3: the review queue read from one small index (docs/performance.md,
	// "A million-unit field"). Each conflict carries its units' authors
	// and its ballot counts, kept by triggers whoever writes, so listing
	// needs no join. conflicts_review holds the conflicts open for review
	// in queue order, each with its whole queue row packed into one text
	// (reviewRow): the queue is one scan of the index, one column a row.
	// conflict_counts keeps the number of conflicts in each status, which
	// the queue's header shows after every change, instead of counting
	// 100,000 index entries each time. units_author served the join and
	// goes.
	`
ALTER TABLE conflicts ADD COLUMN agent_a TEXT;
ALTER TABLE conflicts ADD COLUMN role_a  TEXT;
ALTER TABLE conflicts ADD COLUMN agent_b TEXT;
ALTER TABLE conflicts ADD COLUMN role_b  TEXT;
ALTER TABLE conflicts ADD COLUMN votes_a INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conflicts ADD COLUMN votes_b INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER conflicts_authors AFTER INSERT ON conflicts BEGIN
	UPDATE conflicts SET
		(agent_a, role_a) = (SELECT agent_id, agent_role FROM units WHERE id = NEW.unit_a),
		(agent_b, role_b) = (SELECT agent_id, agent_role FROM units WHERE id = NEW.unit_b)
	WHERE seq = NEW.seq;
END;
CREATE TRIGGER conflicts_authors_units AFTER UPDATE OF unit_a, unit_b ON conflicts BEGIN
	UPDATE conflicts SET
		(agent_a, role_a) = (SELECT agent_id, agent_role FROM units WHERE id = NEW.unit_a),
		(agent_b, role_b) = (SELECT agent_id, agent_role FROM units WHERE id = NEW.unit_b)
	WHERE seq = NEW.seq;
END;
UPDATE conflicts SET
	(agent_a, role_a) = (SELECT agent_id, agent_role FROM units WHERE id = conflicts.unit_a),
	(agent_b, role_b) = (SELECT agent_id, agent_role FROM units WHERE id = conflicts.unit_b);

CREATE TRIGGER votes_tally_insert AFTER INSERT ON votes BEGIN
	UPDATE conflicts SET ` + countBallots + ` WHERE id = NEW.conflict_id;
END;
CREATE TRIGGER votes_tally_update AFTER UPDATE ON votes BEGIN
	UPDATE conflicts SET ` + countBallots + ` WHERE id IN (OLD.conflict_id, NEW.conflict_id);
END;
CREATE TRIGGER votes_tally_delete AFTER DELETE ON votes BEGIN
	UPDATE conflicts SET ` + countBallots + ` WHERE id = OLD.conflict_id;
END;
UPDATE conflicts SET ` + countBallots + ` WHERE id IN (SELECT conflict_id FROM votes);

CREATE INDEX conflicts_review ON conflicts (epoch, seq, status, type, (` + reviewRow + `))
	WHERE status IN ('escalated', 'pending_vote');

CREATE TABLE conflict_counts (
	status TEXT    PRIMARY KEY,
	n      INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO conflict_counts (status, n)
	SELECT s.status, (SELECT count(*) FROM conflicts c WHERE c.status = s.status)
	FROM (SELECT 'detected' AS status UNION ALL SELECT 'resolving' UNION ALL SELECT 'resolved'
		UNION ALL SELECT 'escalated' UNION ALL SELECT 'pending_vote') s;
CREATE TRIGGER conflict_counts_insert AFTER INSERT ON conflicts BEGIN
	UPDATE conflict_counts SET n = n + 1 WHERE status = NEW.status;
END;
CREATE TRIGGER conflict_counts_update AFTER UPDATE OF status ON conflicts WHEN OLD.status <> NEW.status BEGIN
	UPDATE conflict_counts SET n = n - 1 WHERE status = OLD.status;
	UPDATE conflict_counts SET n = n + 1 WHERE status = NEW.status;
END;
CREATE TRIGGER conflict_counts_delete AFTER DELETE ON conflicts BEGIN
	UPDATE conflict_counts SET n = n - 1 WHERE status = OLD.status;
END;
DROP INDEX units_author;
`,
	// 4: governance options (docs/field-format.md): recusal keeps an
	// author from deciding or voting on a conflict about their own unit;
	// operator_override lets a human operator close a stalled vote. A
	// field upgraded to this format keeps both off, as it behaved.
	// conflicts_text indexes each conflict's words — its description and
	// both units' text — for the queue's filter (contentless: it holds
	// the index, not the text again), kept by triggers whoever writes.
	`
ALTER TABLE policy ADD COLUMN recusal INTEGER NOT NULL DEFAULT 0 CHECK (recusal IN (0, 1));
ALTER TABLE policy ADD COLUMN operator_override INTEGER NOT NULL DEFAULT 0 CHECK (operator_override IN (0, 1));

CREATE VIRTUAL TABLE conflicts_text USING fts5(body, content='', contentless_delete=1,
	tokenize='unicode61 remove_diacritics 2', prefix='2 3');
INSERT INTO conflicts_text (rowid, body) SELECT seq, ` + conflictText("conflicts") + ` FROM conflicts;
CREATE TRIGGER conflicts_text_insert AFTER INSERT ON conflicts BEGIN
	INSERT INTO conflicts_text (rowid, body) VALUES (NEW.seq, ` + conflictText("NEW") + `);
END;
CREATE TRIGGER conflicts_text_update AFTER UPDATE OF seq, description, unit_a, unit_b ON conflicts BEGIN
	DELETE FROM conflicts_text WHERE rowid = OLD.seq;
	INSERT INTO conflicts_text (rowid, body) VALUES (NEW.seq, ` + conflictText("NEW") + `);
END;
CREATE TRIGGER conflicts_text_delete AFTER DELETE ON conflicts BEGIN
	DELETE FROM conflicts_text WHERE rowid = OLD.seq;
END;
CREATE TRIGGER conflicts_text_units AFTER UPDATE OF content ON units BEGIN
	DELETE FROM conflicts_text WHERE rowid IN (SELECT seq FROM conflicts WHERE unit_a = NEW.id OR unit_b = NEW.id);
	INSERT INTO conflicts_text (rowid, body)
		SELECT seq, ` + conflictText("conflicts") + ` FROM conflicts WHERE unit_a = NEW.id OR unit_b = NEW.id;
END;

ALTER TABLE policy ADD COLUMN owners_decide INTEGER NOT NULL DEFAULT 0 CHECK (owners_decide IN (0, 1));
ALTER TABLE policy ADD COLUMN escalation_timeout_ms INTEGER NOT NULL DEFAULT 0 CHECK (escalation_timeout_ms >= 0);
ALTER TABLE policy ADD COLUMN escalation_fallback TEXT NOT NULL DEFAULT '';
ALTER TABLE policy ADD COLUMN vote_min_ballots INTEGER NOT NULL DEFAULT 1 CHECK (vote_min_ballots >= 1);
CREATE TABLE owners (
	conflict_type TEXT PRIMARY KEY CHECK (conflict_type IN ('factual', 'interpretive', 'strategic', 'priority')),
	owner         TEXT NOT NULL
);

ALTER TABLE conflicts ADD COLUMN owner              TEXT;
ALTER TABLE conflicts ADD COLUMN routed_at          TEXT;
ALTER TABLE conflicts ADD COLUMN deadline           TEXT;
ALTER TABLE conflicts ADD COLUMN remind_at          TEXT;
ALTER TABLE conflicts ADD COLUMN fallback           TEXT;
ALTER TABLE conflicts ADD COLUMN reminded           INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conflicts ADD COLUMN proposed_by        TEXT;
ALTER TABLE conflicts ADD COLUMN proposal_winner    TEXT;
ALTER TABLE conflicts ADD COLUMN proposal_synthesis TEXT;
ALTER TABLE conflicts ADD COLUMN rework_by          TEXT;
ALTER TABLE conflicts ADD COLUMN rework_reason      TEXT;
ALTER TABLE conflicts ADD COLUMN rework_epoch       INTEGER;
ALTER TABLE conflicts ADD COLUMN rework_at          TEXT;
ALTER TABLE conflicts ADD COLUMN rework_of          TEXT;
CREATE INDEX conflicts_deadline ON conflicts (deadline)
	WHERE deadline IS NOT NULL AND (fallback IS NOT NULL OR reminded < 2);
CREATE INDEX conflicts_remind ON conflicts (remind_at) WHERE remind_at IS NOT NULL AND reminded = 0;
CREATE INDEX conflicts_rework_of ON conflicts (rework_of) WHERE rework_of IS NOT NULL;

DROP INDEX conflicts_review;
CREATE INDEX conflicts_queue ON conflicts (epoch, seq, status, type, id, owner, deadline, remind_at, agent_a, agent_b, (` + queueRow + `))
	WHERE status IN ('escalated', 'pending_vote');
`,
	// 5: the database role bound to each agent (register --db-role). A
	// SQLite file stores and shows it; whoever can write the file may
	// act as anyone, so nothing here enforces it (PostgreSQL does).
	`
ALTER TABLE agents ADD COLUMN db_role TEXT;
`,
	// 6: notifications: hooks deliver every notice to an agent or person to
	// a URL; deliveries are the outbox, written with the notice
	// (docs/notifications.md).
	`
CREATE TABLE hooks (
	id         TEXT NOT NULL PRIMARY KEY,
	agent_id   TEXT NOT NULL REFERENCES agents (id),
	url        TEXT NOT NULL,
	format     TEXT NOT NULL CHECK (format IN ('standard', 'slack')),
	events     TEXT NOT NULL DEFAULT '',
	secret     TEXT NOT NULL,
	created_by TEXT NOT NULL,
	created_at TEXT NOT NULL
);
CREATE INDEX hooks_agent ON hooks (agent_id);
CREATE TABLE deliveries (
	id              TEXT    NOT NULL PRIMARY KEY,
	hook_id         TEXT    NOT NULL REFERENCES hooks (id) ON DELETE CASCADE,
	notification_id INTEGER NOT NULL REFERENCES notifications (id),
	state           TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'dead')),
	attempts        INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
	next_at         TEXT    NOT NULL,
	claimed_by      TEXT,
	claimed_until   TEXT,
	last_error      TEXT    NOT NULL DEFAULT '',
	created_at      TEXT    NOT NULL,
	delivered_at    TEXT
);
CREATE INDEX deliveries_due ON deliveries (next_at) WHERE state = 'pending';
CREATE INDEX deliveries_hook ON deliveries (hook_id);
`,
	// 7: arbiter serve — people's SSH keys and agents' bearer tokens (the
	// SHA-256 of each token, never the token), and units_text, each
	// unit's words for the search tool of MCP, indexed as
	// conflicts_text indexes a conflict's.
	`
CREATE TABLE ssh_keys (
	fingerprint TEXT PRIMARY KEY,
	agent_id    TEXT NOT NULL REFERENCES agents (id),
	public_key  TEXT NOT NULL,
	comment     TEXT NOT NULL DEFAULT '',
	added_by    TEXT NOT NULL,
	added_at    TEXT NOT NULL
);
CREATE INDEX ssh_keys_agent ON ssh_keys (agent_id);
CREATE TABLE tokens (
	hash      TEXT PRIMARY KEY CHECK (length(hash) = 64),
	prefix    TEXT NOT NULL,
	agent_id  TEXT NOT NULL REFERENCES agents (id),
	issued_by TEXT NOT NULL,
	issued_at TEXT NOT NULL
);
CREATE INDEX tokens_agent ON tokens (agent_id);
CREATE INDEX tokens_prefix ON tokens (prefix);

CREATE VIRTUAL TABLE units_text USING fts5(body, content='', contentless_delete=1,
	tokenize='unicode61 remove_diacritics 2', prefix='2 3');
INSERT INTO units_text (rowid, body) SELECT seq, content FROM units;
CREATE TRIGGER units_text_insert AFTER INSERT ON units BEGIN
	INSERT INTO units_text (rowid, body) VALUES (NEW.seq, NEW.content);
END;
CREATE TRIGGER units_text_update AFTER UPDATE OF seq, content ON units BEGIN
	DELETE FROM units_text WHERE rowid = OLD.seq;
	INSERT INTO units_text (rowid, body) VALUES (NEW.seq, NEW.content);
END;
CREATE TRIGGER units_text_delete AFTER DELETE ON units BEGIN
	DELETE FROM units_text WHERE rowid = OLD.seq;
END;
`,
	// 8: stats (arbiter stats, the stats screen): the conflicts opened or
	// decided since a time are read from these indexes, with the open
	// ones from conflicts_status, instead of a scan of every conflict.
	`
CREATE INDEX conflicts_detected_at ON conflicts (detected_at);
CREATE INDEX conflicts_resolved_at ON conflicts (resolved_at) WHERE resolved_at IS NOT NULL;
`,
	// 9: forks and joins (docs/fork-join.md): field_links holds the
	// field's identity, the field it was forked from and the forks taken
	// from it, each with the epoch of the fork and of the last join;
	// provenance says where each unit or conflict a join brought came
	// from; units_epoch finds what a fork recorded since it was forked.
	`
CREATE TABLE field_links (
	uid          TEXT    PRIMARY KEY CHECK (uid <> ''),
	kind         TEXT    NOT NULL CHECK (kind IN ('self', 'origin', 'fork')),
	name         TEXT    NOT NULL,
	base_epoch   INTEGER NOT NULL CHECK (base_epoch >= 0),
	joined_epoch INTEGER NOT NULL DEFAULT 0 CHECK (joined_epoch >= 0)
);
CREATE UNIQUE INDEX field_links_one ON field_links (kind) WHERE kind IN ('self', 'origin');

CREATE TABLE provenance (
	kind      TEXT    NOT NULL CHECK (kind IN ('unit', 'conflict')),
	id        TEXT    NOT NULL,
	fork_uid  TEXT    NOT NULL,
	fork_name TEXT    NOT NULL,
	fork_id   TEXT    NOT NULL,
	epoch     INTEGER NOT NULL,
	PRIMARY KEY (kind, id),
	UNIQUE (fork_uid, kind, fork_id)
);
CREATE INDEX units_epoch ON units (epoch);
`,
	// 10: what the field keeps for each person at the review screen
	// (docs/field-format.md): inbox_read, the notice each has read up
	// to; drafts, the decisions and ballots being written, one per
	// person, conflict and form, until written.
	`
CREATE TABLE inbox_read (
	agent_id        TEXT    NOT NULL PRIMARY KEY REFERENCES agents (id),
	notification_id INTEGER NOT NULL CHECK (notification_id >= 0),
	read_at         TEXT    NOT NULL
);
CREATE TABLE drafts (
	agent_id    TEXT NOT NULL REFERENCES agents (id),
	conflict_id TEXT NOT NULL REFERENCES conflicts (id),
	form        TEXT NOT NULL CHECK (form IN ('decide', 'vote')),
	strategy    TEXT NOT NULL DEFAULT '',
	choice      TEXT NOT NULL DEFAULT '',
	rationale   TEXT NOT NULL DEFAULT '',
	synthesis   TEXT NOT NULL DEFAULT '',
	saved_at    TEXT NOT NULL,
	PRIMARY KEY (agent_id, conflict_id, form)
);
`,
	// 11: decisions held in their undo window (docs/serve.md, "Decisions
	// survive the connection"): one row per request a person made on the
	// screen, from the moment the screen says it will be written until
	// it is written or undone; a sweep carries out those whose screen
	// ended first, and keeps what came of them for that person's next
	// screen.
	`
CREATE TABLE held_decisions (
	id          TEXT NOT NULL PRIMARY KEY,
	agent_id    TEXT NOT NULL REFERENCES agents (id),
	conflict_id TEXT NOT NULL,
	kind        TEXT NOT NULL CHECK (kind IN ('merge', 'vote', 'rework')),
	request     TEXT NOT NULL,
	held_at     TEXT NOT NULL,
	due_at      TEXT NOT NULL,
	done_at     TEXT,
	outcome     TEXT,
	CHECK ((done_at IS NULL) = (outcome IS NULL))
);
CREATE INDEX held_decisions_due ON held_decisions (due_at) WHERE done_at IS NULL;
CREATE INDEX held_decisions_agent ON held_decisions (agent_id);
`,
	// 12: hooks that outlive their receivers (docs/notifications.md): a
	// hook's format is any channel's name (a new channel needs no new
	// format); allow_private is hooks add --allow-private, checked at
	// every send; disabled_at and disabled_why say the receiver answered
	// 410 Gone. A delivery keeps its notice's conflict_id: deliveries_order
	// finds a hook's earlier pending notice of the same conflict, which a
	// claim waits for. deliveries_claimed finds the claims that hold
	// deliveries back; claimed_by now holds the claim's token. SQLite
	// cannot drop a CHECK in place: both tables are rebuilt, deliveries
	// first so that dropping hooks cascades to nothing.
	`
CREATE TABLE hooks_v12 (
	id            TEXT    NOT NULL PRIMARY KEY,
	agent_id      TEXT    NOT NULL REFERENCES agents (id),
	url           TEXT    NOT NULL,
	format        TEXT    NOT NULL CHECK (format <> ''),
	events        TEXT    NOT NULL DEFAULT '',
	secret        TEXT    NOT NULL,
	created_by    TEXT    NOT NULL,
	created_at    TEXT    NOT NULL,
	allow_private INTEGER NOT NULL DEFAULT 0 CHECK (allow_private IN (0, 1)),
	disabled_at   TEXT,
	disabled_why  TEXT    NOT NULL DEFAULT ''
);
INSERT INTO hooks_v12 (id, agent_id, url, format, events, secret, created_by, created_at)
	SELECT id, agent_id, url, format, events, secret, created_by, created_at FROM hooks;
CREATE TABLE deliveries_v12 (
	id              TEXT    NOT NULL PRIMARY KEY,
	hook_id         TEXT    NOT NULL REFERENCES hooks_v12 (id) ON DELETE CASCADE,
	notification_id INTEGER NOT NULL REFERENCES notifications (id),
	state           TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'dead')),
	attempts        INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
	next_at         TEXT    NOT NULL,
	claimed_by      TEXT,
	claimed_until   TEXT,
	last_error      TEXT    NOT NULL DEFAULT '',
	created_at      TEXT    NOT NULL,
	delivered_at    TEXT,
	conflict_id     TEXT
);
INSERT INTO deliveries_v12 (id, hook_id, notification_id, state, attempts, next_at, claimed_by, claimed_until,
		last_error, created_at, delivered_at, conflict_id)
	SELECT d.id, d.hook_id, d.notification_id, d.state, d.attempts, d.next_at, d.claimed_by, d.claimed_until,
		d.last_error, d.created_at, d.delivered_at, n.conflict_id
	FROM deliveries d JOIN notifications n ON n.id = d.notification_id;
DROP TABLE deliveries;
DROP TABLE hooks;
ALTER TABLE hooks_v12 RENAME TO hooks;
ALTER TABLE deliveries_v12 RENAME TO deliveries;
CREATE INDEX hooks_agent ON hooks (agent_id);
CREATE INDEX deliveries_due ON deliveries (next_at) WHERE state = 'pending';
CREATE INDEX deliveries_hook ON deliveries (hook_id);
CREATE INDEX deliveries_order ON deliveries (hook_id, conflict_id, notification_id)
	WHERE state = 'pending' AND conflict_id IS NOT NULL;
CREATE INDEX deliveries_claimed ON deliveries (claimed_until) WHERE state = 'pending' AND claimed_until IS NOT NULL;
`,
	// 13: contradictions the field detects itself (docs/detection.md):
	// the policy's detection_sensitivity (off in a field made before,
	// which then detects nothing unasked); why a detected conflict was
	// detected; the pairs people said are not a contradiction; where the
	// field's scan stands; and units_purpose, for the units of one
	// purpose (the first 200 characters of it, as sqlcore.PurposeKey).
	`
ALTER TABLE policy ADD COLUMN detection_sensitivity TEXT NOT NULL DEFAULT 'off'
	CHECK (detection_sensitivity IN ('off', 'low', 'medium', 'high'));
ALTER TABLE conflicts ADD COLUMN detection TEXT;
CREATE TABLE detect_dismissed (
	unit_a       TEXT NOT NULL,
	unit_b       TEXT NOT NULL,
	dismissed_by TEXT NOT NULL,
	dismissed_at TEXT NOT NULL,
	conflict_id  TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (unit_a, unit_b),
	CHECK (unit_a < unit_b)
);
CREATE TABLE detect_scan (
	id          INTEGER PRIMARY KEY CHECK (id = 1),
	since_epoch INTEGER NOT NULL CHECK (since_epoch >= 0),
	cursor_seq  INTEGER NOT NULL CHECK (cursor_seq >= 0),
	sensitivity TEXT    NOT NULL CHECK (sensitivity IN ('off', 'low', 'medium', 'high')),
	units_done  INTEGER NOT NULL CHECK (units_done >= 0),
	found       INTEGER NOT NULL CHECK (found >= 0),
	started_at  TEXT    NOT NULL,
	updated_at  TEXT    NOT NULL,
	finished_at TEXT
);
CREATE INDEX units_purpose ON units (substr(intent_purpose, 1, 200));
`,
}

// conflictText is the text conflicts_text indexes for the conflict row
// named row: its description and both units' content.
func conflictText(row string) string {
	return row + `.description || char(10) ||
		coalesce((SELECT content FROM units WHERE id = ` + row + `.unit_a), '') || char(10) ||
		coalesce((SELECT content FROM units WHERE id = ` + row + `.unit_b), '')`
}

// countBallots sets a conflict's ballot counts from its votes.
const countBallots = `
	votes_a = (SELECT count(*) FROM votes v WHERE v.conflict_id = conflicts.id AND v.choice = conflicts.unit_a),
	votes_b = (SELECT count(*) FROM votes v WHERE v.conflict_id = conflicts.id AND v.choice = conflicts.unit_b)`

// reviewRow is a queue row packed into one text, as migration 3's
// conflicts_review stored it: for each of reviewCols, '-' if it is NULL,
// else its length in bytes, ':' and its text. Never change it (migration
// 3 is released and builds the index from it); queueRow replaced it.
var reviewRow = packColumns(reviewCols)

var reviewCols = []string{"id", "type", "status", "unit_a", "unit_b", "description", "detected_by",
	"detected_at", "epoch", "version",
	"escalated_by", "escalated_reason", "escalated_epoch", "escalated_at",
	"vote_opened_by", "vote_reason", "vote_opened_epoch", "vote_opened_at",
	"strategy", "winner_id", "synthesis_unit_id", "rationale", "resolved_by", "epoch_resolved", "resolved_at",
	"agent_a", "role_a", "agent_b", "role_b", "votes_a", "votes_b"}

// queueRow is a queue row packed into one text, as conflicts_queue
// (migration 4) stores it, packed as reviewRow was. Never change it once
// released: SQLite reads the packed rows from the index only for a query
// that spells the expression the same way.
var queueRow = packColumns(queueCols)

// queueCols are a queue row's columns, in the order Tx.ConflictEach scans
// them: the conflict's, its units' authors, its ballot counts, its route.
var queueCols = append(slices.Clone(reviewCols), "owner", "routed_at", "deadline", "fallback", "reminded")

// Version is the field format this arbiter writes.
var Version = len(migrations)
