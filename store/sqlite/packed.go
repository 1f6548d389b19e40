package sqlite

import (
	"fmt"
	"strconv"
	"strings"

	"arbiter/model"
	"arbiter/store/sqlcore"
)

// Reading a column through the driver costs about as much as SQLite's
// whole scan of a row of the queue (each value is two or three calls into
// SQLite, each taking its mutex), so the review queue is read as one text
// per row instead of thirty-one values: conflicts_queue stores the text,
// computed by SQLite as the row enters the index, and the scan reads it
// from the index alone. On a million-unit field that made reading the
// 10,000 open conflicts 18 ms instead of 100.

// packColumns is the SQL expression that packs cols into one text: for
// each, '-' if it is NULL, else its length in bytes, ':' and its text.
func packColumns(cols []string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = fmt.Sprintf("ifnull(length(CAST(%s AS BLOB)) || ':' || %s, '-')", c, c)
	}
	return strings.Join(parts, " || ")
}

// scanPacked reads a queue row packed as queueRow packs it: the same
// values scanConflict and ConflictEach read from queueCols' columns.
func scanPacked(text string) (model.ConflictSummary, int, int, error) {
	u := unpacker{rest: text}
	var s model.ConflictSummary
	c := &s.Conflict
	c.ID = u.str()
	c.Type = model.ConflictType(u.str())
	c.Status = model.ConflictStatus(u.str())
	c.UnitA = u.str()
	c.UnitB = u.str()
	c.Description = u.str()
	c.DetectedBy = model.DetectedBy(u.str())
	c.DetectedAt = sqlcore.ParseTime(u.str())
	c.Epoch = u.int()
	c.Version = u.int()
	c.Escalation = u.step()
	c.VoteOpened = u.step()
	strategy, resolved := u.next()
	winner, synth, rationale, by, epoch, at := u.ptr(), u.ptr(), u.str(), u.str(), u.int(), u.str()
	if resolved {
		c.Resolution = &model.Resolution{Strategy: model.Strategy(strategy), WinnerID: winner, SynthesisUnitID: synth,
			Rationale: rationale, ResolvedBy: by, EpochResolved: epoch, ResolvedAt: sqlcore.ParseTime(at)}
	}
	s.AgentA = u.str()
	s.RoleA = u.str()
	s.AgentB = u.str()
	s.RoleB = u.str()
	forA, forB := u.int(), u.int()
	owner, since, deadline, fallback, reminded := u.str(), u.ptr(), u.ptr(), u.str(), u.int()
	if since != nil {
		r := &model.Route{Owner: owner, Since: sqlcore.ParseTime(*since), Fallback: model.Fallback(fallback), Reminded: int(reminded)}
		if deadline != nil {
			d := sqlcore.ParseTime(*deadline)
			r.Deadline = &d
		}
		c.Route = r
	}
	if u.err == nil && u.rest != "" {
		u.err = fmt.Errorf("more than %d values", u.n)
	}
	if u.err != nil {
		return s, 0, 0, fmt.Errorf("a packed queue row: %w", u.err)
	}
	return s, int(forA), int(forB), nil
}

// unpacker reads the values of a packed row in order. After the first
// error it reads only empty values; err says what was wrong.
type unpacker struct {
	rest string
	n    int // values read
	err  error
}

// next is the next value, and false if it is NULL.
func (u *unpacker) next() (string, bool) {
	if u.err != nil {
		return "", false
	}
	u.n++
	if strings.HasPrefix(u.rest, "-") {
		u.rest = u.rest[1:]
		return "", false
	}
	colon := strings.IndexByte(u.rest, ':')
	size, err := strconv.Atoi(u.rest[:max(colon, 0)])
	if colon < 0 || err != nil || size < 0 || size > len(u.rest)-colon-1 {
		u.err = fmt.Errorf("value %d is damaged or missing", u.n)
		return "", false
	}
	v := u.rest[colon+1 : colon+1+size]
	u.rest = u.rest[colon+1+size:]
	return v, true
}

func (u *unpacker) str() string {
	v, _ := u.next()
	return v
}

func (u *unpacker) ptr() *string {
	if v, ok := u.next(); ok {
		return &v
	}
	return nil
}

func (u *unpacker) int() int64 {
	v, ok := u.next()
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil && u.err == nil {
		u.err = fmt.Errorf("value %d: %q is not an integer", u.n, v)
	}
	return n
}

// step reads an escalation or a vote's opening: by, reason, epoch, at.
func (u *unpacker) step() *model.Escalation {
	by, ok := u.next()
	reason, epoch, at := u.str(), u.int(), u.str()
	if !ok {
		return nil
	}
	return &model.Escalation{By: by, Reason: reason, Epoch: epoch, At: sqlcore.ParseTime(at)}
}
