package sqlite

import (
	"encoding/json"
	"strings"
	"time"

	"arbiter/store/sqlcore"
)

// dialect is SQLite's words for the statements both engines share.
var dialect = sqlcore.NewDialect(sqlcore.Words{
	JSONArrayAgg: "json_group_array", JSONArray: "json_array", JSONObjectAgg: "json_group_object",
	Millis: func(from, to string) string {
		return "CAST(round((julianday(" + to + ") - julianday(" + from + ")) * 86400000) AS INTEGER)"
	},
	Day: func(t string) string { return "substr(" + t + ", 1, 10)" },
	// A list of hooks to skip is a JSON array.
	NotIn: func(col, p string) string { return col + " NOT IN (SELECT value FROM json_each(" + p + "))" },
	SkipList: func(values []string) any {
		b, _ := json.Marshal(append([]string{}, values...))
		return string(b)
	},
	Greatest: "max",
	Renew: `UPDATE deliveries SET claimed_until = $1 FROM json_each($2) h
		WHERE deliveries.id = h.key AND deliveries.claimed_by = h.value AND deliveries.state = 'pending'
		RETURNING deliveries.id`,
	RenewArgs: func(held map[string]string) []any {
		b, _ := json.Marshal(held)
		return []any{string(b)}
	},
	// The words of a unit's text are in units_text (FTS5), each asked
	// for as a prefix: "word"*.
	UnitMatch: `seq IN (SELECT rowid FROM units_text WHERE units_text MATCH $1)`,
	UnitWords: func(words []string) string {
		match := make([]string, len(words))
		for i, w := range words {
			match[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"*`
		}
		return strings.Join(match, " AND ")
	},
})

// bind writes the times among args as the field keeps them (TimeText):
// the shared statements take time.Time, which the driver would write in
// a format of its own. It gives the driver the values of nullable
// arguments too, which database/sql would find by reflection.
func bind(args []any) []any {
	for i, a := range args {
		switch v := a.(type) {
		case time.Time:
			args[i] = sqlcore.FormatTime(v)
		case *time.Time:
			args[i] = nil
			if v != nil {
				args[i] = sqlcore.FormatTime(*v)
			}
		case *string:
			args[i] = nil
			if v != nil {
				args[i] = *v
			}
		case *float64:
			args[i] = nil
			if v != nil {
				args[i] = *v
			}
		}
	}
	return args
}
