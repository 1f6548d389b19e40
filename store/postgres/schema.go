package postgres

import "strings"

// Application names a schema as an arbiter field, in its field_format
// table, as the SQLite file's application_id does.
const Application = "arbiter"

// migrations build the PostgreSQL field format one version at a time;
// field_format.version is the number applied. The numbers are the
// PostgreSQL format's own: version 1 holds what SQLite's formats 1 to 5
// built, in PostgreSQL's terms (docs/field-format.md). Never edit a
// released one: append.
//
// Everything is created in the field's schema, the connection's
// search_path when Create runs; every function pins that search_path
// (SET search_path FROM CURRENT), so that triggers work whatever path
// the session writing the tables has.
var migrations = []string{
	// 1: the tables, the triggers that keep the derived columns and the
	// word index, the change signal, and the checks of who acts.
	`
CREATE TABLE field_format (
	id          integer PRIMARY KEY CHECK (id = 1),
	application text    NOT NULL CHECK (application = 'arbiter'),
	version     integer NOT NULL
);
INSERT INTO field_format (id, application, version) VALUES (1, 'arbiter', 0);

CREATE TABLE clock (
	id    integer PRIMARY KEY CHECK (id = 1),
	epoch bigint  NOT NULL CHECK (epoch >= 0)
);
INSERT INTO clock (id, epoch) VALUES (1, 0);

CREATE TABLE policy (
	id                    integer PRIMARY KEY CHECK (id = 1),
	level                 integer NOT NULL CHECK (level BETWEEN 1 AND 3),
	quorum                integer NOT NULL CHECK (quorum >= 1),
	tie                   text    COLLATE "C" NOT NULL CHECK (tie IN ('stay', 'escalate')),
	voter_min_authority   integer NOT NULL CHECK (voter_min_authority BETWEEN 0 AND 10),
	voter_roles           json    NOT NULL DEFAULT '[]',
	recusal               boolean NOT NULL DEFAULT false,
	operator_override     boolean NOT NULL DEFAULT false,
	owners_decide         boolean NOT NULL DEFAULT false,
	escalation_timeout_ms bigint  NOT NULL DEFAULT 0 CHECK (escalation_timeout_ms >= 0),
	escalation_fallback   text    COLLATE "C" NOT NULL DEFAULT '',
	vote_min_ballots      integer NOT NULL DEFAULT 1 CHECK (vote_min_ballots >= 1)
);

CREATE TABLE authority_roles (
	conflict_type text COLLATE "C" PRIMARY KEY CHECK (conflict_type IN ('factual', 'interpretive', 'strategic', 'priority')),
	role          text COLLATE "C" NOT NULL
);

CREATE TABLE owners (
	conflict_type text COLLATE "C" PRIMARY KEY CHECK (conflict_type IN ('factual', 'interpretive', 'strategic', 'priority')),
	owner         text COLLATE "C" NOT NULL
);

CREATE TABLE agents (
	id            text        COLLATE "C" PRIMARY KEY,
	role          text        COLLATE "C" NOT NULL,
	kind          text        COLLATE "C" NOT NULL CHECK (kind IN ('agent', 'human')),
	authority     integer     NOT NULL CHECK (authority BETWEEN 0 AND 10),
	status        text        COLLATE "C" NOT NULL DEFAULT 'idle',
	registered_at timestamptz NOT NULL,
	epoch         bigint      NOT NULL,
	db_role       text        COLLATE "C"
);

CREATE TABLE units (
	seq                    bigint           PRIMARY KEY,
	id                     text             COLLATE "C" NOT NULL UNIQUE,
	mode                   text             COLLATE "C" NOT NULL CHECK (mode IN ('draft', 'committed')),
	type                   text             COLLATE "C" NOT NULL,
	content                text             NOT NULL,
	intent_purpose         text             NOT NULL CHECK (intent_purpose <> ''),
	intent_task_id         text             COLLATE "C",
	intent_question        text,
	confidence_score       double precision CHECK (confidence_score IS NULL OR confidence_score BETWEEN 0 AND 1),
	confidence_reasoning   text             NOT NULL DEFAULT '',
	confidence_evidence    json             NOT NULL DEFAULT '[]',
	confidence_assumptions json             NOT NULL DEFAULT '[]',
	agent_id               text             COLLATE "C" NOT NULL REFERENCES agents (id),
	agent_role             text             COLLATE "C" NOT NULL,
	session_id             text             COLLATE "C",
	recorded_at            timestamptz      NOT NULL,
	status                 text             COLLATE "C" NOT NULL CHECK (status IN ('active', 'draft', 'superseded', 'retracted', 'contested', 'pending_enrichment')),
	epoch                  bigint           NOT NULL
);
CREATE INDEX units_agent ON units (agent_id);

CREATE TABLE relations (
	unit_id     text COLLATE "C" NOT NULL REFERENCES units (id),
	type        text COLLATE "C" NOT NULL,
	target_id   text COLLATE "C" NOT NULL,
	description text NOT NULL DEFAULT '',
	PRIMARY KEY (unit_id, type, target_id)
);
CREATE INDEX relations_target ON relations (target_id, type, unit_id);

CREATE TABLE conflicts (
	seq                bigint      PRIMARY KEY,
	id                 text        COLLATE "C" NOT NULL UNIQUE,
	type               text        COLLATE "C" NOT NULL CHECK (type IN ('factual', 'interpretive', 'strategic', 'priority')),
	status             text        COLLATE "C" NOT NULL CHECK (status IN ('detected', 'resolving', 'resolved', 'escalated', 'pending_vote')),
	unit_a             text        COLLATE "C" NOT NULL REFERENCES units (id),
	unit_b             text        COLLATE "C" NOT NULL REFERENCES units (id),
	description        text        NOT NULL DEFAULT '',
	detected_by        text        COLLATE "C" NOT NULL CHECK (detected_by IN ('explicit', 'semantic', 'logical', 'temporal')),
	detected_at        timestamptz NOT NULL,
	epoch              bigint      NOT NULL,
	version            bigint      NOT NULL DEFAULT 1,
	escalated_by       text        COLLATE "C",
	escalated_reason   text,
	escalated_epoch    bigint,
	escalated_at       timestamptz,
	vote_opened_by     text        COLLATE "C",
	vote_reason        text,
	vote_opened_epoch  bigint,
	vote_opened_at     timestamptz,
	strategy           text        COLLATE "C",
	winner_id          text        COLLATE "C",
	synthesis_unit_id  text        COLLATE "C",
	rationale          text,
	resolved_by        text        COLLATE "C",
	epoch_resolved     bigint,
	resolved_at        timestamptz,
	agent_a            text        COLLATE "C",
	role_a             text        COLLATE "C",
	agent_b            text        COLLATE "C",
	role_b             text        COLLATE "C",
	votes_a            integer     NOT NULL DEFAULT 0,
	votes_b            integer     NOT NULL DEFAULT 0,
	owner              text        COLLATE "C",
	routed_at          timestamptz,
	deadline           timestamptz,
	remind_at          timestamptz,
	fallback           text        COLLATE "C",
	reminded           integer     NOT NULL DEFAULT 0,
	proposed_by        text        COLLATE "C",
	proposal_winner    text        COLLATE "C",
	proposal_synthesis text,
	rework_by          text        COLLATE "C",
	rework_reason      text,
	rework_epoch       bigint,
	rework_at          timestamptz,
	rework_of          text        COLLATE "C",
	CHECK (unit_a <> unit_b),
	CHECK ((status = 'resolved') = (strategy IS NOT NULL))
);
CREATE INDEX conflicts_status ON conflicts (status, epoch, seq);
CREATE INDEX conflicts_epoch ON conflicts (epoch, seq);
CREATE INDEX conflicts_type ON conflicts (type, epoch, seq);
CREATE INDEX conflicts_unit_a ON conflicts (unit_a);
CREATE INDEX conflicts_unit_b ON conflicts (unit_b);
CREATE INDEX conflicts_queue ON conflicts (epoch, seq) WHERE status IN ('escalated', 'pending_vote');
CREATE INDEX conflicts_queue_type ON conflicts (type, epoch, seq) WHERE status IN ('escalated', 'pending_vote');
CREATE INDEX conflicts_deadline ON conflicts (deadline)
	WHERE deadline IS NOT NULL AND (fallback IS NOT NULL OR reminded < 2);
CREATE INDEX conflicts_remind ON conflicts (remind_at) WHERE remind_at IS NOT NULL AND reminded = 0;
CREATE INDEX conflicts_rework_of ON conflicts (rework_of) WHERE rework_of IS NOT NULL;

CREATE TABLE votes (
	conflict_id text        COLLATE "C" NOT NULL REFERENCES conflicts (id),
	voter_id    text        COLLATE "C" NOT NULL REFERENCES agents (id),
	choice      text        COLLATE "C" NOT NULL REFERENCES units (id),
	rationale   text        NOT NULL CHECK (rationale <> ''),
	epoch       bigint      NOT NULL,
	cast_at     timestamptz NOT NULL,
	PRIMARY KEY (conflict_id, voter_id)
);
CREATE INDEX votes_voter ON votes (voter_id);

CREATE TABLE notifications (
	id              bigint           PRIMARY KEY,
	agent_id        text             COLLATE "C" NOT NULL REFERENCES agents (id),
	event           text             COLLATE "C" NOT NULL,
	epoch           bigint           NOT NULL,
	relevance_score double precision NOT NULL DEFAULT 1,
	summary         text             NOT NULL,
	unit_id         text             COLLATE "C",
	conflict_id     text             COLLATE "C",
	requires_action boolean          NOT NULL DEFAULT false,
	created_at      timestamptz      NOT NULL
);
CREATE INDEX notifications_agent ON notifications (agent_id, id);
CREATE INDEX notifications_conflict ON notifications (conflict_id) WHERE conflict_id IS NOT NULL;

CREATE TABLE events (
	id          bigint      PRIMARY KEY,
	epoch       bigint      NOT NULL,
	operation   text        COLLATE "C" NOT NULL,
	agent_id    text        COLLATE "C" NOT NULL,
	conflict_id text        COLLATE "C",
	unit_id     text        COLLATE "C",
	payload     json        NOT NULL DEFAULT '{}',
	at          timestamptz NOT NULL
);
CREATE INDEX events_conflict ON events (conflict_id, id) WHERE conflict_id IS NOT NULL;
CREATE INDEX events_unit ON events (unit_id, id) WHERE unit_id IS NOT NULL;
CREATE INDEX events_decisions ON events (id) WHERE operation IN ('MERGE', 'VOTE');

-- The counts the queue's header shows, and the word index of the
-- filter: kept by the triggers below, whoever writes.
CREATE TABLE conflict_counts (
	status text   COLLATE "C" PRIMARY KEY,
	n      bigint NOT NULL
);
INSERT INTO conflict_counts (status, n)
	VALUES ('detected', 0), ('resolving', 0), ('resolved', 0), ('escalated', 0), ('pending_vote', 0);

CREATE TABLE conflict_words (
	seq   bigint   PRIMARY KEY,
	words tsvector NOT NULL
);
CREATE INDEX conflict_words_words ON conflict_words USING gin (words);

-- fold is how text is compared by the filter: lower case, Latin letters
-- without their diacritics (SQLite's unicode61 remove_diacritics 2).
-- Text of ASCII alone (as many bytes as characters) skips translate,
-- which looks up every character in its list and was half the time of
-- writing a generated field.
CREATE FUNCTION fold(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
	RETURN CASE WHEN octet_length(t) = char_length(t) THEN lower(t)
		ELSE translate(lower(t), ` + foldFrom + `, ` + foldTo + `) END;

-- words_of is the word index of a conflict: its description and both
-- units' text (the first 256 KiB of each, within what a tsvector holds).
CREATE FUNCTION words_of(description text, unit_a text, unit_b text) RETURNS tsvector LANGUAGE sql STABLE
	SET search_path FROM CURRENT
	AS $$ SELECT to_tsvector('simple', fold(left(description, 262144) || E'\n' ||
		coalesce((SELECT left(content, 262144) FROM units WHERE id = unit_a), '') || E'\n' ||
		coalesce((SELECT left(content, 262144) FROM units WHERE id = unit_b), ''))) $$;

-- A new unit or conflict stored without seq gets the next one.
CREATE FUNCTION next_seq() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
	IF TG_TABLE_NAME = 'units' THEN
		NEW.seq := (SELECT coalesce(max(seq), 0) + 1 FROM units);
	ELSE
		NEW.seq := (SELECT coalesce(max(seq), 0) + 1 FROM conflicts);
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER units_seq BEFORE INSERT ON units FOR EACH ROW WHEN (NEW.seq IS NULL) EXECUTE FUNCTION next_seq();
CREATE TRIGGER conflicts_seq BEFORE INSERT ON conflicts FOR EACH ROW WHEN (NEW.seq IS NULL) EXECUTE FUNCTION next_seq();

-- next_ids are the largest sequence numbers and ids, read as the clock's
-- holder calls it: a VOLATILE function's statement takes a snapshot of
-- its own, so it sees every write that committed before the caller got
-- the clock, even one it waited for (its own statement's snapshot was
-- taken before it waited).
CREATE FUNCTION next_ids() RETURNS bigint[] LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
BEGIN
	RETURN ARRAY[(SELECT coalesce(max(seq), 0) FROM units), (SELECT coalesce(max(seq), 0) FROM conflicts),
		(SELECT coalesce(max(id), 0) FROM notifications), (SELECT coalesce(max(id), 0) FROM events)];
END $$;

-- A notification or event stored without an id gets the next one: ids
-- are given, like sequence numbers, as the largest plus one by the write
-- that holds the clock, so they follow commit order and leave no gaps.
CREATE FUNCTION next_id() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
	IF TG_TABLE_NAME = 'notifications' THEN
		NEW.id := (SELECT coalesce(max(id), 0) + 1 FROM notifications);
	ELSE
		NEW.id := (SELECT coalesce(max(id), 0) + 1 FROM events);
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER notifications_id BEFORE INSERT ON notifications FOR EACH ROW WHEN (NEW.id IS NULL) EXECUTE FUNCTION next_id();
CREATE TRIGGER events_id BEFORE INSERT ON events FOR EACH ROW WHEN (NEW.id IS NULL) EXECUTE FUNCTION next_id();

-- A conflict carries its units' authors.
CREATE FUNCTION conflict_authors() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
	SELECT agent_id, agent_role INTO NEW.agent_a, NEW.role_a FROM units WHERE id = NEW.unit_a;
	SELECT agent_id, agent_role INTO NEW.agent_b, NEW.role_b FROM units WHERE id = NEW.unit_b;
	RETURN NEW;
END $$;
CREATE TRIGGER conflicts_authors BEFORE INSERT OR UPDATE OF unit_a, unit_b ON conflicts
	FOR EACH ROW EXECUTE FUNCTION conflict_authors();

-- ... and its ballot counts. (SECURITY DEFINER: a voter may not update
-- conflicts, yet its ballot recounts them.)
CREATE FUNCTION count_ballots() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
	ids text[];
BEGIN
	IF TG_OP = 'DELETE' THEN
		ids := ARRAY[OLD.conflict_id];
	ELSIF TG_OP = 'UPDATE' THEN
		ids := ARRAY[OLD.conflict_id, NEW.conflict_id];
	ELSE
		ids := ARRAY[NEW.conflict_id];
	END IF;
	UPDATE conflicts c SET
		votes_a = (SELECT count(*) FROM votes v WHERE v.conflict_id = c.id AND v.choice = c.unit_a),
		votes_b = (SELECT count(*) FROM votes v WHERE v.conflict_id = c.id AND v.choice = c.unit_b)
	WHERE c.id = ANY (ids);
	RETURN NULL;
END $$;
CREATE TRIGGER votes_tally AFTER INSERT OR UPDATE OR DELETE ON votes FOR EACH ROW EXECUTE FUNCTION count_ballots();

-- The counts per status, a statement at a time (a bulk copy of 100,000
-- conflicts updates each count once).
CREATE FUNCTION on_conflicts_inserted() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
	UPDATE conflict_counts c SET n = c.n + x.k
		FROM (SELECT status, count(*) AS k FROM new_rows GROUP BY status) x WHERE c.status = x.status;
	INSERT INTO conflict_words (seq, words)
		SELECT seq, words_of(description, unit_a, unit_b) FROM new_rows;
	RETURN NULL;
END $$;
CREATE TRIGGER conflicts_inserted AFTER INSERT ON conflicts REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION on_conflicts_inserted();

CREATE FUNCTION on_conflicts_updated() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
	UPDATE conflict_counts c SET n = c.n + x.k FROM (
		SELECT status, sum(k) AS k FROM (
			SELECT o.status, -1 AS k FROM old_rows o JOIN new_rows n ON n.seq = o.seq WHERE o.status <> n.status
			UNION ALL
			SELECT n.status, 1 FROM old_rows o JOIN new_rows n ON n.seq = o.seq WHERE o.status <> n.status
		) d GROUP BY status) x
	WHERE c.status = x.status;
	RETURN NULL;
END $$;
CREATE TRIGGER conflicts_updated AFTER UPDATE ON conflicts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION on_conflicts_updated();

CREATE FUNCTION on_conflicts_deleted() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
	UPDATE conflict_counts c SET n = c.n - x.k
		FROM (SELECT status, count(*) AS k FROM old_rows GROUP BY status) x WHERE c.status = x.status;
	DELETE FROM conflict_words WHERE seq IN (SELECT seq FROM old_rows);
	RETURN NULL;
END $$;
CREATE TRIGGER conflicts_deleted AFTER DELETE ON conflicts REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION on_conflicts_deleted();

-- The word index follows a conflict's text and its units'.
CREATE FUNCTION reindex_conflict() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
	DELETE FROM conflict_words WHERE seq = OLD.seq;
	INSERT INTO conflict_words (seq, words) VALUES (NEW.seq, words_of(NEW.description, NEW.unit_a, NEW.unit_b));
	RETURN NULL;
END $$;
CREATE TRIGGER conflicts_words AFTER UPDATE OF seq, description, unit_a, unit_b ON conflicts
	FOR EACH ROW EXECUTE FUNCTION reindex_conflict();

CREATE FUNCTION reindex_unit() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
	UPDATE conflict_words w SET words = words_of(c.description, c.unit_a, c.unit_b)
		FROM conflicts c WHERE w.seq = c.seq AND (c.unit_a = NEW.id OR c.unit_b = NEW.id);
	RETURN NULL;
END $$;
CREATE TRIGGER units_words AFTER UPDATE OF content ON units FOR EACH ROW EXECUTE FUNCTION reindex_unit();

-- The log is append-only.
CREATE FUNCTION append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'the event log is append-only' USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events FOR EACH ROW EXECUTE FUNCTION append_only();
CREATE TRIGGER events_append_only_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION append_only();

-- Every write ticks the clock: its change is the field's change signal,
-- sent when (and only if) the writing transaction commits.
CREATE FUNCTION announce() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('arbiter ' || TG_TABLE_SCHEMA, NEW.epoch::text);
	RETURN NULL;
END $$;
CREATE TRIGGER clock_announce AFTER UPDATE ON clock FOR EACH ROW WHEN (NEW.epoch <> OLD.epoch) EXECUTE FUNCTION announce();

-- Who acts. A session whose user is a member of the role that owns the
-- schema (the field's administrator) may act as anyone. Any other may
-- act only as an agent bound to its user or to a role its user is a
-- member of (agents.db_role), named for the transaction in the setting
-- arbiter.agent; every statement that writes checks it, and the rows
-- that name who acted must name that agent.
CREATE FUNCTION is_admin() RETURNS boolean LANGUAGE sql STABLE SET search_path FROM CURRENT
	AS $$ SELECT pg_has_role(session_user, (SELECT nspowner FROM pg_namespace WHERE nspname = current_schema()), 'MEMBER') $$;

CREATE FUNCTION acting_agent() RETURNS text LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
	agent text := nullif(current_setting('arbiter.agent', true), '');
	bound text;
BEGIN
	IF is_admin() THEN
		RETURN agent;
	END IF;
	IF agent IS NULL THEN
		RAISE EXCEPTION 'role % names no agent to act as', session_user
			USING ERRCODE = 'insufficient_privilege',
			HINT = 'write through arbiter, or set arbiter.agent for the transaction (docs/postgres.md)';
	END IF;
	SELECT db_role INTO bound FROM agents WHERE id = agent;
	IF NOT FOUND THEN
		RAISE EXCEPTION '% is not a registered agent', agent USING ERRCODE = 'insufficient_privilege';
	END IF;
	IF bound IS NULL OR NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = bound)
		OR NOT pg_has_role(session_user, bound, 'MEMBER') THEN
		RAISE EXCEPTION 'role % may not act as agent %', session_user, agent
			USING ERRCODE = 'insufficient_privilege',
			HINT = 'log in as the role bound to the agent (arbiter agents shows it)';
	END IF;
	RETURN agent;
END $$;

CREATE FUNCTION check_actor() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
	PERFORM acting_agent();
	RETURN NULL;
END $$;
` + actorTriggers + `

-- A human operator: authority 10, kind human.
CREATE FUNCTION is_operator(agent text) RETURNS boolean LANGUAGE sql STABLE SET search_path FROM CURRENT
	AS $$ SELECT EXISTS (SELECT 1 FROM agents WHERE id = agent AND kind = 'human' AND authority >= 10) $$;

-- signs reports whether a change signed name may come from agent who: it
-- is who, or the field's own signature of what a deadline did (fallback)
-- in a human operator's session.
CREATE FUNCTION signs(name text, who text) RETURNS boolean LANGUAGE sql STABLE SET search_path FROM CURRENT
	AS $$ SELECT name IS NULL OR name = who OR (name = 'fallback' AND is_operator(who)) $$;

-- Rows that name who acted must name the acting agent.
CREATE FUNCTION check_authors() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
	who  text;
	bad  text;
BEGIN
	IF is_admin() THEN
		RETURN NULL;
	END IF;
	who := acting_agent();
	IF TG_TABLE_NAME = 'votes' THEN
		SELECT voter_id INTO bad FROM new_rows WHERE voter_id <> who LIMIT 1;
	ELSIF TG_TABLE_NAME = 'conflicts' THEN
		SELECT id INTO bad FROM new_rows WHERE status = 'resolved' LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION 'agent % may not store % as already resolved', who, bad USING ERRCODE = 'insufficient_privilege';
		END IF;
		RETURN NULL;
	ELSE
		-- What a deadline does is signed by the field itself (fallback,
		-- sweep); a human operator's session may write it.
		SELECT agent_id INTO bad FROM new_rows WHERE agent_id <> who
			AND NOT (agent_id IN ('fallback', 'sweep') AND is_operator(who)) LIMIT 1;
	END IF;
	IF FOUND THEN
		RAISE EXCEPTION 'agent % may not write a row of % in the name of %', who, TG_TABLE_NAME, bad
			USING ERRCODE = 'insufficient_privilege';
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER units_authors_acting AFTER INSERT ON units REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION check_authors();
CREATE TRIGGER events_acting AFTER INSERT ON events REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION check_authors();
CREATE TRIGGER votes_acting_insert AFTER INSERT ON votes REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION check_authors();
CREATE TRIGGER votes_acting_update AFTER UPDATE ON votes REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION check_authors();
CREATE TRIGGER conflicts_acting_insert AFTER INSERT ON conflicts REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION check_authors();

-- A change of a conflict is stamped by the acting agent, and an
-- escalated conflict is taken out of escalation only by a human
-- operator, or by its owner where the policy lets owners decide.
CREATE FUNCTION check_decision() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
	who  text;
	me   agents%ROWTYPE;
	bad  record;
BEGIN
	IF is_admin() THEN
		RETURN NULL;
	END IF;
	who := acting_agent();
	SELECT * INTO me FROM agents WHERE id = who;
	FOR bad IN SELECT o.id, o.status AS old_status, n.status AS new_status, o.owner,
			(n.escalated_by IS DISTINCT FROM o.escalated_by AND NOT signs(n.escalated_by, who))
			OR (n.vote_opened_by IS DISTINCT FROM o.vote_opened_by AND NOT signs(n.vote_opened_by, who))
			OR (n.resolved_by IS DISTINCT FROM o.resolved_by AND NOT signs(n.resolved_by, who))
			OR (n.rework_by IS DISTINCT FROM o.rework_by AND NOT signs(n.rework_by, who))
			OR (n.proposed_by IS DISTINCT FROM o.proposed_by AND n.proposed_by <> who) AS forged
		FROM old_rows o JOIN new_rows n ON n.seq = o.seq
	LOOP
		IF bad.forged THEN
			RAISE EXCEPTION 'agent % may not sign a change of % in the name of another', who, bad.id
				USING ERRCODE = 'insufficient_privilege';
		END IF;
		IF bad.old_status = 'escalated' AND bad.new_status <> 'escalated'
			AND NOT (me.kind = 'human' AND me.authority >= 10)
			AND NOT (bad.owner = who AND (SELECT owners_decide FROM policy WHERE id = 1)) THEN
			RAISE EXCEPTION '% is escalated; agent % may not decide it', bad.id, who
				USING ERRCODE = 'insufficient_privilege', HINT = 'only a human operator (authority 10) decides an escalated conflict';
		END IF;
	END LOOP;
	RETURN NULL;
END $$;
CREATE TRIGGER conflicts_acting_update AFTER UPDATE ON conflicts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION check_decision();

-- Agents, leads and operators may not update conflicts themselves: a
-- decision goes through this function, which owns the right to, and
-- whose update the checks above hold like any other. It is the
-- compare-and-set of docs/field-format.md: the row count is 0 when the
-- conflict is no longer at version expect.
CREATE FUNCTION update_conflict(conflict text, expect bigint,
	status text,
	escalated_by text, escalated_reason text, escalated_epoch bigint, escalated_at timestamptz,
	vote_opened_by text, vote_reason text, vote_opened_epoch bigint, vote_opened_at timestamptz,
	strategy text, winner_id text, synthesis_unit_id text, rationale text, resolved_by text, epoch_resolved bigint, resolved_at timestamptz,
	owner text, routed_at timestamptz, deadline timestamptz, remind_at timestamptz, fallback text, reminded integer,
	proposed_by text, proposal_winner text, proposal_synthesis text,
	rework_by text, rework_reason text, rework_epoch bigint, rework_at timestamptz)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
	n integer;
BEGIN
	UPDATE conflicts c SET (status,
		escalated_by, escalated_reason, escalated_epoch, escalated_at,
		vote_opened_by, vote_reason, vote_opened_epoch, vote_opened_at,
		strategy, winner_id, synthesis_unit_id, rationale, resolved_by, epoch_resolved, resolved_at,
		owner, routed_at, deadline, remind_at, fallback, reminded,
		proposed_by, proposal_winner, proposal_synthesis,
		rework_by, rework_reason, rework_epoch, rework_at, version) =
		(update_conflict.status,
		update_conflict.escalated_by, update_conflict.escalated_reason, update_conflict.escalated_epoch, update_conflict.escalated_at,
		update_conflict.vote_opened_by, update_conflict.vote_reason, update_conflict.vote_opened_epoch, update_conflict.vote_opened_at,
		update_conflict.strategy, update_conflict.winner_id, update_conflict.synthesis_unit_id, update_conflict.rationale,
		update_conflict.resolved_by, update_conflict.epoch_resolved, update_conflict.resolved_at,
		update_conflict.owner, update_conflict.routed_at, update_conflict.deadline, update_conflict.remind_at,
		update_conflict.fallback, update_conflict.reminded,
		update_conflict.proposed_by, update_conflict.proposal_winner, update_conflict.proposal_synthesis,
		update_conflict.rework_by, update_conflict.rework_reason, update_conflict.rework_epoch, update_conflict.rework_at,
		c.version + 1)
	WHERE c.id = conflict AND c.version = expect;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END $$;
REVOKE ALL ON FUNCTION update_conflict FROM PUBLIC;

-- A sweep counts the reminders a route had (docs/field-format.md):
-- a compare-and-set on the count that leaves the version alone, by any
-- session that may act as an agent.
CREATE FUNCTION set_reminded(conflict text, expect integer, reminders integer)
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
	n integer;
BEGIN
	PERFORM acting_agent();
	UPDATE conflicts c SET reminded = reminders WHERE c.id = conflict AND c.reminded = expect;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END $$;
REVOKE ALL ON FUNCTION set_reminded FROM PUBLIC;

-- A write locks the conflict it decides on (tx.go) though the roles that
-- decide have no UPDATE on conflicts, which FOR NO KEY UPDATE needs:
-- this function takes the lock for them, for the transaction.
CREATE FUNCTION locked_conflict(conflict text) RETURNS SETOF conflicts LANGUAGE sql SECURITY DEFINER
	SET search_path FROM CURRENT
	AS $$ SELECT * FROM conflicts WHERE id = conflict FOR NO KEY UPDATE $$;
REVOKE ALL ON FUNCTION locked_conflict FROM PUBLIC;
`,

	// 2: parallel commits (docs/field-format.md, "Transactions on
	// PostgreSQL"): no row every write holds until it commits. Epochs
	// come from the ticks committed writes leave, sequence numbers and
	// ids from sequences, the counts per status from rows each write
	// adds; the log and the outboxes carry the writing transaction's id
	// for readers that tail them.
	`
CREATE TABLE ticks (
	epoch bigint NOT NULL CHECK (epoch > 0),
	xid   xid8   NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX ticks_epoch ON ticks (epoch);
CREATE INDEX ticks_xid ON ticks (xid);
INSERT INTO ticks (epoch) SELECT epoch FROM clock WHERE epoch > 0;
-- Whoever could read the log of a field made before may read its ticks.
DO $$
DECLARE
	r text;
BEGIN
	FOR r IN SELECT DISTINCT grantee FROM information_schema.role_table_grants
		WHERE table_schema = current_schema() AND table_name = 'events' AND privilege_type = 'SELECT' AND grantee <> current_user
	LOOP
		EXECUTE 'GRANT SELECT ON ticks TO ' || CASE WHEN r = 'PUBLIC' THEN 'PUBLIC' ELSE quote_ident(r) END;
	END LOOP;
END $$;

-- tick is a write's epoch: one more than the largest epoch of the writes
-- its snapshot holds, than its own last one (mine) and than one received
-- (the Lamport receive rule). Writes that see nothing of each other may
-- share an epoch. It leaves a tick and announces the change, which
-- PostgreSQL delivers at COMMIT, never for a write rolled back.
CREATE FUNCTION tick(mine bigint, received bigint) RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER
	SET search_path FROM CURRENT AS $$
DECLARE
	e bigint;
BEGIN
	PERFORM acting_agent();
	e := greatest((SELECT coalesce(max(epoch), 0) FROM ticks), mine, received) + 1;
	INSERT INTO ticks (epoch) VALUES (e);
	PERFORM pg_notify('arbiter ' || current_schema(), e::text);
	RETURN e;
END $$;

DROP TABLE clock CASCADE;
DROP FUNCTION announce();
DROP FUNCTION next_ids();

CREATE SEQUENCE unit_seqs AS bigint MINVALUE 0;
CREATE SEQUENCE conflict_seqs AS bigint MINVALUE 0;
CREATE SEQUENCE notification_ids AS bigint MINVALUE 0;
CREATE SEQUENCE event_ids AS bigint MINVALUE 0;

-- align_numbers moves each sequence past the largest number stored, after
-- rows were stored with numbers of their own (a copy, an import).
CREATE FUNCTION align_numbers() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
	PERFORM setval('unit_seqs', greatest((SELECT coalesce(max(seq), 0) FROM units), (SELECT last_value FROM unit_seqs)));
	PERFORM setval('conflict_seqs', greatest((SELECT coalesce(max(seq), 0) FROM conflicts), (SELECT last_value FROM conflict_seqs)));
	PERFORM setval('notification_ids', greatest((SELECT coalesce(max(id), 0) FROM notifications), (SELECT last_value FROM notification_ids)));
	PERFORM setval('event_ids', greatest((SELECT coalesce(max(id), 0) FROM events), (SELECT last_value FROM event_ids)));
END $$;
SELECT align_numbers();

-- next_number is the next sequence number of units or conflicts, or id of
-- notifications or events: unique, growing, with a gap where a write
-- that took one rolled back.
CREATE FUNCTION next_number(kind text) RETURNS bigint LANGUAGE sql VOLATILE SECURITY DEFINER
	SET search_path FROM CURRENT
	AS $$ SELECT nextval(CASE kind WHEN 'units' THEN 'unit_seqs' WHEN 'conflicts' THEN 'conflict_seqs'
		WHEN 'notifications' THEN 'notification_ids' ELSE 'event_ids' END::regclass) $$;

CREATE OR REPLACE FUNCTION next_seq() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
	NEW.seq := next_number(TG_TABLE_NAME);
	RETURN NEW;
END $$;
CREATE OR REPLACE FUNCTION next_id() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
	NEW.id := next_number(TG_TABLE_NAME);
	RETURN NEW;
END $$;

-- The tail of the log and of the outboxes: rows in the order of (xid,
-- id), read only below the oldest write of the field still running
-- (tail_horizon). A write says it writes the field as it begins, before
-- it has a transaction id (begin_write: a lock every write shares, which
-- no one waits for).
CREATE FUNCTION begin_write() RETURNS void LANGUAGE sql VOLATILE SET search_path FROM CURRENT
	AS $$ SELECT pg_advisory_xact_lock_shared(1634886249, hashtext(current_schema())) $$;

-- tail_horizon is the transaction id below which no write of the field
-- can commit any more, as the caller's snapshot sees the field: the
-- smallest of the transactions running at the snapshot that write the
-- field (their session holds begin_write's lock), or may have (they ended
-- since, and the snapshot cannot tell; or no session shows them); else
-- the snapshot's xmax. A transaction of another field, database or
-- program does not hold it back. A transaction is matched to its session
-- by pg_stat_activity.backend_xid (set as its id is given, before the
-- lock on the id is taken), and the session to the lock by pid.
-- tail_hold lowers h to the oldest of running (transactions a snapshot
-- showed running) that may still add rows the snapshot cannot see: one
-- whose session writes the field, or that no session shows. One that has
-- ended since counts as ended_holds says: a snapshot taken before it
-- ended cannot see what it wrote; one taken after can.
CREATE FUNCTION tail_hold(h xid8, running xid8[], ended_holds boolean) RETURNS xid8 LANGUAGE plpgsql STABLE
	SET search_path FROM CURRENT AS $$
DECLARE
	writers bigint[];
	known bigint[];
	x xid8;
BEGIN
	SELECT array_agg(a.backend_xid::text::bigint),
		array_agg(a.backend_xid::text::bigint) FILTER (WHERE a.pid IN (SELECT l.pid FROM pg_locks l
			WHERE l.locktype = 'advisory' AND l.objsubid = 2
				AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
				AND l.classid = 1634886249::oid AND l.objid = hashtext(current_schema())::oid))
		INTO known, writers
		FROM pg_stat_activity a WHERE a.backend_xid IS NOT NULL;
	FOREACH x IN ARRAY running LOOP
		IF (CASE WHEN pg_xact_status(x) <> 'in progress' THEN ended_holds
			ELSE (x::text::bigint % 4294967296) = ANY (coalesce(writers, '{}'))
				OR NOT (x::text::bigint % 4294967296) = ANY (coalesce(known, '{}')) END) THEN
			h := least(h, x);
		END IF;
	END LOOP;
	RETURN h;
END $$;

CREATE FUNCTION tail_horizon() RETURNS xid8 LANGUAGE plpgsql STABLE SET search_path FROM CURRENT AS $$
DECLARE
	snap pg_snapshot := pg_current_snapshot();
	h xid8 := pg_snapshot_xmax(snap);
	running xid8[];
	x xid8;
BEGIN
	FOR x IN SELECT * FROM pg_snapshot_xip(snap) LOOP
		IF pg_xact_status(x) = 'in progress' THEN
			running := running || x;
		ELSE
			h := least(h, x);
		END IF;
	END LOOP;
	IF running IS NULL THEN
		RETURN h;
	END IF;
	RETURN tail_hold(h, running, true);
END $$;

ALTER TABLE events ADD COLUMN xid xid8 NOT NULL DEFAULT '0';
ALTER TABLE events ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
CREATE INDEX events_tail ON events (xid, id);
ALTER TABLE notifications ADD COLUMN xid xid8 NOT NULL DEFAULT '0';
ALTER TABLE notifications ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
CREATE INDEX notifications_tail ON notifications (agent_id, xid, id);

-- The counts per status: each write adds its changes as rows (no row that
-- every write updates); compact sums them up now and then.
ALTER TABLE conflict_counts DROP CONSTRAINT conflict_counts_pkey;
CREATE INDEX conflict_counts_status ON conflict_counts (status);

CREATE OR REPLACE FUNCTION on_conflicts_inserted() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
	INSERT INTO conflict_counts (status, n) SELECT status, count(*) FROM new_rows GROUP BY status;
	INSERT INTO conflict_words (seq, words)
		SELECT seq, words_of(description, unit_a, unit_b) FROM new_rows;
	RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION on_conflicts_updated() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
	INSERT INTO conflict_counts (status, n)
		SELECT status, sum(k) FROM (
			SELECT o.status, -1 AS k FROM old_rows o JOIN new_rows n ON n.seq = o.seq WHERE o.status <> n.status
			UNION ALL
			SELECT n.status, 1 FROM old_rows o JOIN new_rows n ON n.seq = o.seq WHERE o.status <> n.status
		) d GROUP BY status;
	RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION on_conflicts_deleted() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
BEGIN
	INSERT INTO conflict_counts (status, n) SELECT status, -count(*) FROM old_rows GROUP BY status;
	DELETE FROM conflict_words WHERE seq IN (SELECT seq FROM old_rows);
	RETURN NULL;
END $$;

-- compact sums up the counts' rows, and drops the ticks more than 1024
-- epochs older than the newest (the newest is the field's epoch; the
-- change number is the newest below the horizon).
CREATE FUNCTION compact() RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path FROM CURRENT AS $$
	WITH gone AS (DELETE FROM conflict_counts RETURNING status, n)
	INSERT INTO conflict_counts (status, n) SELECT status, sum(n) FROM gone GROUP BY status;
	DELETE FROM ticks WHERE epoch < (SELECT max(epoch) FROM ticks) - 1024 $$;
`,

	// 3: notifications: hooks deliver every notice to an agent or person to
	// a URL; deliveries are the outbox, written with the notice
	// (docs/notifications.md). A deliverer claims rows with FOR UPDATE
	// SKIP LOCKED, so several never send one delivery at once.
	`
CREATE TABLE hooks (
	id         text        COLLATE "C" PRIMARY KEY,
	agent_id   text        COLLATE "C" NOT NULL REFERENCES agents (id),
	url        text        NOT NULL,
	format     text        NOT NULL CHECK (format IN ('standard', 'slack')),
	events     text        NOT NULL DEFAULT '',
	secret     text        NOT NULL,
	created_by text        COLLATE "C" NOT NULL,
	created_at timestamptz NOT NULL
);
CREATE INDEX hooks_agent ON hooks (agent_id);
CREATE TABLE deliveries (
	id              text        COLLATE "C" PRIMARY KEY,
	hook_id         text        COLLATE "C" NOT NULL REFERENCES hooks (id) ON DELETE CASCADE,
	notification_id bigint      NOT NULL REFERENCES notifications (id),
	state           text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'dead')),
	attempts        integer     NOT NULL DEFAULT 0 CHECK (attempts >= 0),
	next_at         timestamptz NOT NULL,
	claimed_by      text,
	claimed_until   timestamptz,
	last_error      text        NOT NULL DEFAULT '',
	created_at      timestamptz NOT NULL,
	delivered_at    timestamptz
);
CREATE INDEX deliveries_due ON deliveries (next_at) WHERE state = 'pending';
CREATE INDEX deliveries_hook ON deliveries (hook_id);
CREATE TRIGGER hooks_actor BEFORE INSERT OR UPDATE OR DELETE ON hooks
	FOR EACH STATEMENT EXECUTE FUNCTION check_actor();
`,
	// 4: arbiter serve: people's SSH keys and agents' bearer tokens (the
	// SHA-256 of each token, never the token), readable and writable by
	// the field's administrator alone (no grants); and units_words, each
	// unit's words for the search tool of MCP, folded and split as
	// conflict_words.
	`
CREATE TABLE ssh_keys (
	fingerprint text COLLATE "C" PRIMARY KEY,
	agent_id    text COLLATE "C" NOT NULL REFERENCES agents (id),
	public_key  text NOT NULL,
	comment     text NOT NULL DEFAULT '',
	added_by    text COLLATE "C" NOT NULL,
	added_at    timestamptz NOT NULL
);
CREATE INDEX ssh_keys_agent ON ssh_keys (agent_id);
CREATE TABLE tokens (
	hash      text COLLATE "C" PRIMARY KEY CHECK (length(hash) = 64),
	prefix    text COLLATE "C" NOT NULL,
	agent_id  text COLLATE "C" NOT NULL REFERENCES agents (id),
	issued_by text COLLATE "C" NOT NULL,
	issued_at timestamptz NOT NULL
);
CREATE INDEX tokens_agent ON tokens (agent_id);
CREATE INDEX tokens_prefix ON tokens (prefix);
REVOKE ALL ON ssh_keys, tokens FROM PUBLIC;

CREATE INDEX units_words ON units USING gin (to_tsvector('simple', fold(left(content, 262144))));
`,
	// 5: stats (arbiter stats, the stats screen): the conflicts opened or
	// decided since a time are read from these indexes, with the open
	// ones from conflicts_status, instead of a scan of every conflict.
	`
CREATE INDEX conflicts_detected_at ON conflicts (detected_at);
CREATE INDEX conflicts_resolved_at ON conflicts (resolved_at) WHERE resolved_at IS NOT NULL;
`,
	// 6: forks and joins (docs/fork-join.md): field_links holds the
	// field's identity, the field it was forked from and the forks taken
	// from it, each with the epoch of the fork and of the last join;
	// provenance says where each unit or conflict a join brought came
	// from; units_epoch finds what a fork recorded since it was forked.
	// Who writes them is checked like every other table's writer.
	`
CREATE TABLE field_links (
	uid          text   COLLATE "C" PRIMARY KEY CHECK (uid <> ''),
	kind         text   COLLATE "C" NOT NULL CHECK (kind IN ('self', 'origin', 'fork')),
	name         text   NOT NULL,
	base_epoch   bigint NOT NULL CHECK (base_epoch >= 0),
	joined_epoch bigint NOT NULL DEFAULT 0 CHECK (joined_epoch >= 0)
);
CREATE UNIQUE INDEX field_links_one ON field_links (kind) WHERE kind IN ('self', 'origin');

CREATE TABLE provenance (
	kind      text   COLLATE "C" NOT NULL CHECK (kind IN ('unit', 'conflict')),
	id        text   COLLATE "C" NOT NULL,
	fork_uid  text   COLLATE "C" NOT NULL,
	fork_name text   NOT NULL,
	fork_id   text   COLLATE "C" NOT NULL,
	epoch     bigint NOT NULL,
	PRIMARY KEY (kind, id),
	UNIQUE (fork_uid, kind, fork_id)
);
CREATE INDEX units_epoch ON units (epoch);
CREATE TRIGGER field_links_actor BEFORE INSERT OR UPDATE OR DELETE ON field_links
	FOR EACH STATEMENT EXECUTE FUNCTION check_actor();
CREATE TRIGGER provenance_actor BEFORE INSERT OR UPDATE OR DELETE ON provenance
	FOR EACH STATEMENT EXECUTE FUNCTION check_actor();
`,

	// 7: a reader sees its own commit. tail_horizon() holds the tail back
	// at every transaction that ended between its snapshot and its look
	// at the locks, since that snapshot cannot see what it wrote; on a
	// busy server that is often someone else's, and a read right after a
	// commit missed it. tail_horizon_ahead() is the horizon for a
	// snapshot taken after it returns, which sees whatever ended by then:
	// only the field's writes still running hold it back.
	// change_number() and inbox_page() take their rows in such a later
	// snapshot (a volatile function takes one per statement at READ
	// COMMITTED; at another level they fall back to tail_horizon()).
	`
CREATE FUNCTION tail_horizon_ahead() RETURNS xid8 LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
	snap pg_snapshot := pg_current_snapshot();
	h xid8 := pg_snapshot_xmax(snap);
	running xid8[];
	x xid8;
BEGIN
	FOR x IN SELECT * FROM pg_snapshot_xip(snap) LOOP
		IF pg_xact_status(x) = 'in progress' THEN
			running := running || x;
		END IF;
	END LOOP;
	IF running IS NULL THEN
		RETURN h;
	END IF;
	RETURN tail_hold(h, running, false);
END $$;

CREATE FUNCTION change_number() RETURNS bigint LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
	h xid8;
BEGIN
	IF current_setting('transaction_isolation') <> 'read committed' THEN
		RETURN (SELECT coalesce(max(xid)::text::bigint, 0) FROM ticks WHERE xid < tail_horizon());
	END IF;
	h := tail_horizon_ahead();
	RETURN (SELECT coalesce(max(xid)::text::bigint, 0) FROM ticks WHERE xid < h);
END $$;

CREATE FUNCTION inbox_page(agent text, since bigint, lim integer) RETURNS SETOF notifications
	LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
	h xid8;
BEGIN
	IF current_setting('transaction_isolation') <> 'read committed' THEN
		h := tail_horizon();
	ELSE
		h := tail_horizon_ahead();
	END IF;
	RETURN QUERY SELECT * FROM notifications n WHERE n.agent_id = agent AND n.xid < h
		AND coalesce((n.xid, n.id) > ((SELECT m.xid FROM notifications m WHERE m.agent_id = agent AND m.id = since), since), n.id > since)
		ORDER BY n.xid, n.id
		LIMIT CASE WHEN lim > 0 THEN lim END;
END $$;
`,
	// 8: what the field keeps for each person at the review screen
	// (docs/field-format.md): inbox_read, the notice each has read up
	// to; drafts, the decisions and ballots being written, one per
	// person, conflict and form, until written. A row is written only
	// by the person it belongs to (check_own), or the administrator.
	`
CREATE TABLE inbox_read (
	agent_id        text        COLLATE "C" PRIMARY KEY REFERENCES agents (id),
	notification_id bigint      NOT NULL CHECK (notification_id >= 0),
	read_at         timestamptz NOT NULL
);
CREATE TABLE drafts (
	agent_id    text        COLLATE "C" NOT NULL REFERENCES agents (id),
	conflict_id text        COLLATE "C" NOT NULL REFERENCES conflicts (id),
	form        text        COLLATE "C" NOT NULL CHECK (form IN ('decide', 'vote')),
	strategy    text        NOT NULL DEFAULT '',
	choice      text        NOT NULL DEFAULT '',
	rationale   text        NOT NULL DEFAULT '',
	synthesis   text        NOT NULL DEFAULT '',
	saved_at    timestamptz NOT NULL,
	PRIMARY KEY (agent_id, conflict_id, form)
);
CREATE FUNCTION check_own() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
	who   text := acting_agent();
	owner text;
BEGIN
	IF TG_OP = 'DELETE' THEN
		owner := OLD.agent_id;
	ELSE
		owner := NEW.agent_id;
	END IF;
	IF NOT is_admin() AND owner IS DISTINCT FROM who THEN
		RAISE EXCEPTION 'agent % may not write a row of % in the name of %', who, TG_TABLE_NAME, owner
			USING ERRCODE = 'insufficient_privilege';
	END IF;
	IF TG_OP = 'DELETE' THEN
		RETURN OLD;
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER inbox_read_own BEFORE INSERT OR UPDATE OR DELETE ON inbox_read
	FOR EACH ROW EXECUTE FUNCTION check_own();
CREATE TRIGGER drafts_own BEFORE INSERT OR UPDATE OR DELETE ON drafts
	FOR EACH ROW EXECUTE FUNCTION check_own();
`,
	// 9: decisions held in their undo window (docs/serve.md, "Decisions
	// survive the connection"), as SQLite's format 11 holds them. Only
	// the agent a row is of (or the administrator) may hold, carry out
	// or take back its decisions (check_own, of format 8).
	`
CREATE TABLE held_decisions (
	id          text        COLLATE "C" PRIMARY KEY,
	agent_id    text        COLLATE "C" NOT NULL REFERENCES agents (id),
	conflict_id text        COLLATE "C" NOT NULL,
	kind        text        COLLATE "C" NOT NULL CHECK (kind IN ('merge', 'vote', 'rework')),
	request     text        NOT NULL,
	held_at     timestamptz NOT NULL,
	due_at      timestamptz NOT NULL,
	done_at     timestamptz,
	outcome     text,
	CHECK ((done_at IS NULL) = (outcome IS NULL))
);
CREATE INDEX held_decisions_due ON held_decisions (due_at) WHERE done_at IS NULL;
CREATE INDEX held_decisions_agent ON held_decisions (agent_id);
CREATE TRIGGER held_decisions_own BEFORE INSERT OR UPDATE OR DELETE ON held_decisions
	FOR EACH ROW EXECUTE FUNCTION check_own();
`,
	// 10: hooks that outlive their receivers (docs/notifications.md): a
	// hook's format is any channel's name (a new channel needs no new
	// format); allow_private is hooks add --allow-private, checked at
	// every send; disabled_at and disabled_why say the receiver answered
	// 410 Gone. A delivery keeps its notice's conflict_id: deliveries_order
	// finds a hook's earlier pending notice of the same conflict, which a
	// claim waits for. deliveries_claimed finds the claims that hold
	// deliveries back; claimed_by now holds the claim's token.
	`
ALTER TABLE hooks DROP CONSTRAINT hooks_format_check,
	ADD CONSTRAINT hooks_format_named CHECK (format <> ''),
	ADD COLUMN allow_private boolean NOT NULL DEFAULT false,
	ADD COLUMN disabled_at timestamptz,
	ADD COLUMN disabled_why text NOT NULL DEFAULT '';
ALTER TABLE deliveries ADD COLUMN conflict_id text COLLATE "C";
UPDATE deliveries d SET conflict_id = n.conflict_id FROM notifications n WHERE n.id = d.notification_id;
CREATE INDEX deliveries_order ON deliveries (hook_id, conflict_id, notification_id)
	WHERE state = 'pending' AND conflict_id IS NOT NULL;
CREATE INDEX deliveries_claimed ON deliveries (claimed_until) WHERE state = 'pending' AND claimed_until IS NOT NULL;
`,
	// 11: contradictions the field detects itself (docs/detection.md),
	// as SQLite's format 13 keeps them: the policy's
	// detection_sensitivity (off in a field made before); why a detected
	// conflict was detected; the pairs people said are not a
	// contradiction; where the field's scan stands; units_purpose, for
	// the units of one purpose (its first 200 characters, as
	// sqlcore.PurposeKey, then seq). Who writes the new tables is checked
	// like every other table's writer.
	`
ALTER TABLE policy ADD COLUMN detection_sensitivity text COLLATE "C" NOT NULL DEFAULT 'off'
	CHECK (detection_sensitivity IN ('off', 'low', 'medium', 'high'));
ALTER TABLE conflicts ADD COLUMN detection text;
CREATE TABLE detect_dismissed (
	unit_a       text        COLLATE "C" NOT NULL,
	unit_b       text        COLLATE "C" NOT NULL,
	dismissed_by text        COLLATE "C" NOT NULL,
	dismissed_at timestamptz NOT NULL,
	conflict_id  text        COLLATE "C" NOT NULL DEFAULT '',
	PRIMARY KEY (unit_a, unit_b),
	CHECK (unit_a < unit_b)
);
CREATE TABLE detect_scan (
	id          integer     PRIMARY KEY CHECK (id = 1),
	since_epoch bigint      NOT NULL CHECK (since_epoch >= 0),
	cursor_seq  bigint      NOT NULL CHECK (cursor_seq >= 0),
	sensitivity text        COLLATE "C" NOT NULL CHECK (sensitivity IN ('off', 'low', 'medium', 'high')),
	units_done  bigint      NOT NULL CHECK (units_done >= 0),
	found       bigint      NOT NULL CHECK (found >= 0),
	started_at  timestamptz NOT NULL,
	updated_at  timestamptz NOT NULL,
	finished_at timestamptz
);
CREATE INDEX units_purpose ON units (substr(intent_purpose, 1, 200), seq);
CREATE TRIGGER detect_dismissed_actor BEFORE INSERT OR UPDATE OR DELETE ON detect_dismissed
	FOR EACH STATEMENT EXECUTE FUNCTION check_actor();
CREATE TRIGGER detect_scan_actor BEFORE INSERT OR UPDATE OR DELETE ON detect_scan
	FOR EACH STATEMENT EXECUTE FUNCTION check_actor();
`,
}

// actorTriggers check who acts at every statement that writes a table.
var actorTriggers = func() string {
	var b strings.Builder
	for _, t := range []string{"clock", "policy", "authority_roles", "owners", "agents", "units", "relations",
		"conflicts", "votes", "notifications", "events"} {
		b.WriteString("CREATE TRIGGER " + t + "_actor BEFORE INSERT OR UPDATE OR DELETE ON " + t +
			" FOR EACH STATEMENT EXECUTE FUNCTION check_actor();\n")
	}
	return b.String()
}()

// foldFrom and foldTo are fold's translation of Latin letters with
// diacritics, small and capital (lower only changes ASCII under some
// locales), to the small letters without.
const (
	foldFrom = `'àáâãäåāăąçćĉċčďđèéêëēĕėęěĝğġģĥħìíîïĩīĭįıĵķĺļľŀłñńņňòóôõöøōŏőŕŗřśŝşšţťŧùúûüũūŭůűųŵýÿŷźżžßÀÁÂÃÄÅĀĂĄÇĆĈĊČĎĐÈÉÊËĒĔĖĘĚĜĞĠĢĤĦÌÍÎÏĨĪĬĮIĴĶĹĻĽĿŁÑŃŅŇÒÓÔÕÖØŌŎŐŔŖŘŚŜŞŠŢŤŦÙÚÛÜŨŪŬŮŰŲŴÝŸŶŹŻŽ'`
	foldTo   = `'aaaaaaaaacccccddeeeeeeeeegggghhiiiiiiiiijklllllnnnnooooooooorrrsssstttuuuuuuuuuuwyyyzzzsaaaaaaaaacccccddeeeeeeeeegggghhiiiiiiiiijklllllnnnnooooooooorrrsssstttuuuuuuuuuuwyyyzzz'`
)

// Version is the PostgreSQL field format this arbiter writes.
var Version = len(migrations)
