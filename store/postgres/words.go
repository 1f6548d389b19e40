package postgres

import (
	"strings"
	"unicode"

	"arbiter/store/sqlcore"
)

// dialect is PostgreSQL's words for the statements both engines share.
var dialect = sqlcore.NewDialect(sqlcore.Words{
	JSONArrayAgg: "json_agg", JSONArray: "json_build_array", JSONObjectAgg: "json_object_agg",
	SkipLocked: " FOR UPDATE OF d SKIP LOCKED",
	NotIn:      func(col, p string) string { return col + " <> ALL (" + p + "::text[])" },
	SkipList:   func(values []string) any { return append([]string{}, values...) },
	Greatest:   "greatest",
	Renew: `UPDATE deliveries d SET claimed_until = $1 FROM unnest($2::text[], $3::text[]) AS h(id, claim)
		WHERE d.id = h.id AND d.claimed_by = h.claim AND d.state = 'pending' RETURNING d.id`,
	RenewArgs: func(held map[string]string) []any {
		ids, claims := make([]string, 0, len(held)), make([]string, 0, len(held))
		for id, c := range held {
			ids, claims = append(ids, id), append(claims, c)
		}
		return []any{ids, claims}
	},
	Millis: func(from, to string) string {
		return "round(extract(epoch FROM " + to + " - " + from + ") * 1000)::bigint"
	},
	Day: func(t string) string { return "to_char(" + t + " AT TIME ZONE 'UTC', 'YYYY-MM-DD')" },
	// A unit's words are its content's, folded as conflict_words folds
	// them; every word of a search is asked for as a prefix.
	UnitMatch: `to_tsvector('simple', fold(left(content, 262144))) @@ to_tsquery('simple', fold($1))`,
	UnitWords: func(words []string) string {
		var parts []string
		for _, w := range words {
			if q := prefixQuery(w); q != "" {
				parts = append(parts, "("+q+")")
			}
		}
		return strings.Join(parts, " & ")
	},
})

// prefixQuery is word as a tsquery: its runs of letters and digits one
// after the other, the last a prefix ("eu-west" → 'eu' <-> 'west':*); ""
// if it has none.
func prefixQuery(word string) string {
	parts := strings.FieldsFunc(word, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	if len(parts) == 0 {
		return ""
	}
	for i, p := range parts {
		parts[i] = "'" + p + "'"
	}
	return strings.Join(parts, " <-> ") + ":*"
}
