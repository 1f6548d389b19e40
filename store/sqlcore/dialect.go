package sqlcore

// Words are where the engines' SQL differs in the statements they share:
// each engine says its own once.
type Words struct {
	// JSONArrayAgg aggregates values into a JSON array (it takes ORDER
	// BY), JSONArray builds one, JSONObjectAgg aggregates keys and values
	// into a JSON object.
	JSONArrayAgg, JSONArray, JSONObjectAgg string
	// SkipLocked ends the choice of the deliveries (d) a claim takes: rows
	// another transaction is claiming are passed over ("" where a write
	// holds the whole field).
	SkipLocked string
	// NotIn is the condition that col is none of a list given as the
	// parameter p, which SkipList makes of the list's values.
	NotIn    func(col, p string) string
	SkipList func(values []string) any
	// Greatest is the function of the largest of its arguments.
	Greatest string
	// Renew is the statement that extends the claims held on deliveries
	// to $1, given RenewArgs(held) after it (delivery id → the token of
	// the claim holding it): one statement, whatever the count.
	Renew     string
	RenewArgs func(held map[string]string) []any
	// Millis is the whole milliseconds from the time from to the time to;
	// Day is a time's UTC day as YYYY-MM-DD.
	Millis func(from, to string) string
	Day    func(t string) string
	// UnitMatch is the condition a unit whose text has every word of a
	// search meets, given UnitWords(words) as $1 (each word a prefix of
	// a word of the text: the engine's word index); UnitWords is "" when
	// words hold nothing to look for.
	UnitMatch string
	UnitWords func(words []string) string
}

// Dialect is an engine's words and the statements built from them, once,
// when the engine's package starts.
type Dialect struct {
	Words
	unit, unitEach, unitEachSince, unitSearch, policy, stats string
	claim, deliveryNext                                      string
}

// NewDialect builds the statements whose words differ from w.
func NewDialect(w Words) *Dialect {
	d := &Dialect{Words: w}
	rels := `(SELECT ` + w.JSONArrayAgg + `(` + w.JSONArray + `(r.type, r.target_id, r.description) ORDER BY r.type, r.target_id)
		FROM relations r WHERE r.unit_id = units.id)`
	d.unit = `SELECT ` + UnitCols + `, ` + rels + ` FROM units WHERE id = $1`
	d.unitEach = `SELECT ` + UnitCols + `, seq, ` + rels + ` FROM units ORDER BY seq`
	d.unitEachSince = `SELECT ` + UnitCols + `, seq, ` + rels + ` FROM units WHERE epoch > $1 ORDER BY seq`
	d.unitSearch = `SELECT seq, ` + UnitCols + ` FROM units WHERE ` + w.UnitMatch + ` AND seq > $2 ORDER BY seq LIMIT $3`
	d.policy = `SELECT level, quorum, tie, voter_min_authority, voter_roles, recusal, operator_override,
		owners_decide, escalation_timeout_ms, escalation_fallback, vote_min_ballots, detection_sensitivity,
		(SELECT coalesce(` + w.JSONObjectAgg + `(conflict_type, owner), '{}') FROM owners),
		(SELECT coalesce(` + w.JSONObjectAgg + `(conflict_type, role), '{}') FROM authority_roles)
		FROM policy WHERE id = 1`
	d.stats = statsSQL(w)
	d.claim, d.deliveryNext = claimSQL(w)
	return d
}

// UnitSQL is the statement that reads a unit with its relations (for a
// test of the engine's query plans).
func (d *Dialect) UnitSQL() string { return d.unit }
