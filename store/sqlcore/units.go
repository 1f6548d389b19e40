package sqlcore

import (
	"encoding/json"
	"strconv"
	"strings"

	"arbiter/model"
	"arbiter/store"
)

// UnitCols are a unit's columns, in ScanUnit's order.
const UnitCols = `id, mode, type, content, intent_purpose, intent_task_id, intent_question,
	confidence_score, confidence_reasoning, confidence_evidence, confidence_assumptions,
	agent_id, agent_role, session_id, recorded_at, status, epoch`

// UnitColumns are the columns a unit is written with, in UnitArgs'
// order: for INSERT and COPY.
var UnitColumns = append([]string{"seq"}, strings.Fields(strings.ReplaceAll(UnitCols, ",", ""))...)

// Statements of units.
var (
	InsertUnit       = `INSERT INTO units (` + strings.Join(UnitColumns, ", ") + `) VALUES (` + Places(1, len(UnitColumns)) + `)`
	InsertRelation   = `INSERT INTO relations (unit_id, type, target_id, description) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`
	RelationColumns  = []string{"unit_id", "type", "target_id", "description"}
	UnitExistsSQL    = `SELECT 1 FROM units WHERE id = $1`
	SetUnitStatusSQL = `UPDATE units SET status = $1 WHERE id = $2`
	RelationsSQL     = `SELECT type, target_id, description FROM relations WHERE unit_id = $1 ORDER BY type, target_id`
	RelationsToSQL   = `SELECT unit_id, type, description FROM relations WHERE target_id = $1 ORDER BY type, unit_id`
	// SupportersSQL reads supports relations from units that still
	// stand: retracted and superseded units no longer lend their weight.
	SupportersSQL = `SELECT r.unit_id FROM relations r JOIN units s ON s.id = r.unit_id
	WHERE r.target_id = $1 AND r.type = 'supports' AND s.status NOT IN ('retracted', 'superseded')
	ORDER BY s.seq`
	// SupersedesSQL reads the relations' primary key (unit_id, type,
	// target_id) and the units' unique id index.
	SupersedesSQL = `SELECT r.target_id FROM relations r JOIN units u ON u.id = r.target_id
	WHERE r.unit_id = $1 AND r.type = 'supersedes' ORDER BY r.target_id`
)

// ScanUnit reads UnitCols, then extra.
func ScanUnit(r Row, extra ...any) (model.Unit, error) {
	var u model.Unit
	var evidence, assumptions string
	var task, question, session Text
	var score Float
	var at Time
	err := r.Scan(append([]any{&u.ID, &u.Mode, &u.Type, &u.Content, &u.Intent.Purpose, &task, &question,
		&score, &u.Confidence.Reasoning, &evidence, &assumptions,
		&u.Source.AgentID, &u.Source.AgentRole, &session, &at, &u.Status, &u.Epoch}, extra...)...)
	if err != nil {
		return u, err
	}
	u.Intent.TaskID, u.Intent.Question, u.Source.SessionID = task.Ptr(), question.Ptr(), session.Ptr()
	u.Confidence.Score, u.Source.Timestamp = score.Ptr(), at.T
	if err := json.Unmarshal([]byte(evidence), &u.Confidence.Evidence); err != nil {
		return u, err
	}
	err = json.Unmarshal([]byte(assumptions), &u.Confidence.Assumptions)
	return u, err
}

// UnitArgs are InsertUnit's arguments for u stored at seq.
func UnitArgs(seq int64, u model.Unit) []any {
	evidence, _ := json.Marshal(nonNil(u.Confidence.Evidence))
	assumptions, _ := json.Marshal(nonNil(u.Confidence.Assumptions))
	return []any{seq, u.ID, string(u.Mode), string(u.Type), u.Content, u.Intent.Purpose,
		u.Intent.TaskID, u.Intent.Question,
		u.Confidence.Score, u.Confidence.Reasoning, string(evidence), string(assumptions),
		u.Source.AgentID, u.Source.AgentRole, u.Source.SessionID,
		u.Source.Timestamp, string(u.Status), u.Epoch}
}

// RelationArgs are InsertRelation's arguments for u's relation r.
func RelationArgs(id string, r model.Relation) []any {
	return []any{id, string(r.Type), r.TargetID, r.Description}
}

// relationsOf reads relations aggregated as [[type, target, description],
// …]; NULL is none.
func relationsOf(agg *string) ([]model.Relation, error) {
	out := []model.Relation{}
	if agg == nil {
		return out, nil
	}
	var rows [][3]string
	if err := json.Unmarshal([]byte(*agg), &rows); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out = append(out, model.Relation{Type: model.RelationType(r[0]), TargetID: r[1], Description: r[2]})
	}
	return out, nil
}

// Unit looks up a unit with its relations, in one statement;
// ErrNotFound if there is none. A write on PostgreSQL locks its row.
func (t *Tx) Unit(id string) (model.Unit, error) {
	var rels *string
	u, err := ScanUnit(QueryRow(t.E, t.D.unit+t.E.Lock(), id), &rels)
	if err != nil {
		return u, err
	}
	u.Relations, err = relationsOf(rels)
	return u, err
}

// UnitExists reports whether a unit with id is in the field (locking it,
// as Unit does).
func (t *Tx) UnitExists(id string) (bool, error) {
	var one int
	err := QueryRow(t.E, UnitExistsSQL+t.E.Lock(), id).Scan(&one)
	if err == store.ErrNotFound {
		return false, nil
	}
	return err == nil, err
}

// UnitInsert stores u with its relations. An empty u.ID gets the next
// "mem-NNN" id; the id used is returned.
func (t *Tx) UnitInsert(u model.Unit) (string, error) {
	seq, err := t.E.Seq("units")
	if err != nil {
		return "", err
	}
	if u.ID == "" {
		u.ID = FormatID("mem", seq)
	}
	if err := t.E.Later(InsertUnit, UnitArgs(seq, u), nil); err != nil {
		return "", err
	}
	for _, r := range u.Relations {
		if err := t.E.Later(InsertRelation, RelationArgs(u.ID, r), nil); err != nil {
			return "", err
		}
	}
	return u.ID, nil
}

// UnitSetStatus changes a unit's status; ErrNotFound (on PostgreSQL, with
// the next statement) when there is no such unit.
func (t *Tx) UnitSetStatus(id string, s model.UnitStatus) error {
	return t.E.Later(SetUnitStatusSQL, []any{string(s), id}, changed(store.ErrNotFound))
}

// Relations lists the relations a unit carries.
func (t *Tx) Relations(id string) ([]model.Relation, error) {
	return Collect(t.E, RelationsSQL, []any{id}, func(r Row) (model.Relation, error) {
		var v model.Relation
		err := r.Scan(&v.Type, &v.TargetID, &v.Description)
		return v, err
	})
}

// RelationsTo lists the relations other units carry to id, by type and
// then by the carrying unit.
func (t *Tx) RelationsTo(id string) ([]model.Link, error) {
	return Collect(t.E, RelationsToSQL, []any{id}, func(r Row) (model.Link, error) {
		var l model.Link
		err := r.Scan(&l.From, &l.Type, &l.Description)
		return l, err
	})
}

// Supporters lists the live units that support id, oldest first.
func (t *Tx) Supporters(id string) ([]string, error) {
	return Collect(t.E, SupportersSQL, []any{id}, ScanText)
}

// Supersedes lists the units id carries a supersedes relation to, by id;
// a relation to a unit the field does not hold (written by another
// program) is left out. The walk back to a conflict's common ancestor
// (review) asks it once per unit it reaches.
func (t *Tx) Supersedes(id string) ([]string, error) {
	out, err := Collect(t.E, SupersedesSQL, []any{id}, ScanText)
	if len(out) == 0 {
		out = nil
	}
	return out, err
}

// UnitCount counts the units in any of the statuses (all units if none).
func (t *Tx) UnitCount(statuses ...model.UnitStatus) (int64, error) {
	q := `SELECT count(*) FROM units`
	args := make([]any, len(statuses))
	for i, s := range statuses {
		args[i] = string(s)
	}
	if len(statuses) > 0 {
		q += ` WHERE status IN (` + Places(1, len(statuses)) + `)`
	}
	var n int64
	err := QueryRow(t.E, q, args...).Scan(&n)
	return n, err
}

// UnitEach yields every unit by sequence number, with its relations.
func (t *Tx) UnitEach(fn func(int64, model.Unit) error) error {
	return t.unitEach(t.D.unitEach, nil, fn)
}

// UnitEachSince yields the units recorded after epoch, by sequence
// number, with their relations.
func (t *Tx) UnitEachSince(epoch int64, fn func(int64, model.Unit) error) error {
	return t.unitEach(t.D.unitEachSince, []any{epoch}, fn)
}

func (t *Tx) unitEach(query string, args []any, fn func(int64, model.Unit) error) error {
	return Each(t.E, query, args, func(r Row) error {
		var seq int64
		var rels *string
		u, err := ScanUnit(r, &seq, &rels)
		if err != nil {
			return err
		}
		if u.Relations, err = relationsOf(rels); err != nil {
			return err
		}
		return fn(seq, u)
	})
}

// UnitSearch lists the units whose text has every word of words as the
// beginning of one of its words (the engine's word index), after seq
// after, at most limit. Relations are not read.
func (t *Tx) UnitSearch(words []string, after int64, limit int) ([]model.UnitHit, error) {
	match := t.D.UnitWords(words)
	if match == "" {
		return nil, nil
	}
	out, err := Collect(t.E, t.D.unitSearch, []any{match, after, limit}, func(r Row) (model.UnitHit, error) {
		var h model.UnitHit
		var err error
		h.Unit, err = ScanUnit(rowAfter{r, []any{&h.Seq}})
		return h, err
	})
	if len(out) == 0 {
		out = nil
	}
	return out, err
}

// rowAfter scans its first columns into first, then the rest as asked.
type rowAfter struct {
	r     Row
	first []any
}

func (r rowAfter) Scan(dest ...any) error { return r.r.Scan(append(r.first, dest...)...) }

// Queries for importing Akashik SDK logs.

// UnitCommit turns a draft unit into a committed, active one. A unit that
// is not a draft is left alone; ErrNotFound if there is no such unit.
func (t *Tx) UnitCommit(id string) error {
	if ok, err := t.UnitExists(id); err != nil {
		return err
	} else if !ok {
		return store.ErrNotFound
	}
	return t.exec(`UPDATE units SET mode = 'committed', status = 'active' WHERE id = $1 AND mode = 'draft'`, id)
}

// Standings returns the standing of those of ids that are units of the
// field; ids that are not are missing from the map.
func (t *Tx) Standings(ids []string) (map[string]store.Standing, error) {
	const chunk = 500
	out := make(map[string]store.Standing, len(ids))
	for len(ids) > 0 {
		n := min(chunk, len(ids))
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		err := Each(t.E, `SELECT id, mode, status, agent_id FROM units WHERE id IN (`+Places(1, n)+`)`, args, func(r Row) error {
			var id string
			var s store.Standing
			err := r.Scan(&id, &s.Mode, &s.Status, &s.AgentID)
			out[id] = s
			return err
		})
		if err != nil {
			return nil, err
		}
		ids = ids[n:]
	}
	return out, nil
}

// UnitSeqAlign moves a unit stored with an id of arbiter's own form
// (mem-NNN) but another sequence number to sequence number NNN, when that
// is free, so that the ids arbiter gives later (from the largest seq)
// never collide with it. Other ids are left alone.
func (t *Tx) UnitSeqAlign(id string) error {
	n, ok := SeqOfID(id)
	if !ok {
		return nil
	}
	return t.exec(`UPDATE units SET seq = $1 WHERE id = $2 AND seq <> $1
		AND NOT EXISTS (SELECT 1 FROM units WHERE seq = $1)`, n, id)
}

// SeqOfID is the sequence number NNN of a unit id of arbiter's own form,
// mem-NNN; false for another id.
func SeqOfID(id string) (int64, bool) {
	digits, ok := strings.CutPrefix(id, "mem-")
	if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	return n, err == nil && n > 0
}

// UnitSeqNext is the sequence number the next unit gets: one more than
// the largest stored (an import numbers its units from it).
func (t *Tx) UnitSeqNext() (int64, error) {
	var n int64
	err := QueryRow(t.E, `SELECT coalesce(max(seq), 0) + 1 FROM units`).Scan(&n)
	return n, err
}
