package akashiklog

import (
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
)

// Pair is two live entries the SDK's rule says conflict. A comes before B in
// replay order.
type Pair struct {
	A, B *Entry
	Keys []string // the shared keys whose primitive values differ, sorted
}

// Reckon applies the SDK's conflict rule: two live entries (committed or
// draft) conflict when they have the same topic and share another top-level
// key whose values are both JSON primitives (string, number, boolean, null)
// and differ. Object and array values never conflict. Numbers compare by
// value (1 equals 1.0), strings after unescaping, and values of different
// kinds always differ. Entries are grouped by topic first, so only entries on
// the same topic are compared. Pairs are ordered by A's then B's position in
// s.Entries.
func Reckon(s *State) []Pair {
	type candidate struct {
		entry  *Entry
		values map[string]primitive
	}
	groups := map[string][]candidate{}
	for _, e := range s.Entries {
		if !e.Live() || !e.HasTopic {
			continue
		}
		fields, ok := objectFields(e.Raw)
		if !ok {
			continue
		}
		values := make(map[string]primitive, len(fields))
		for k, raw := range fields {
			if p, ok := decodePrimitive(raw); ok && k != "topic" {
				values[k] = p
			}
		}
		groups[e.Topic] = append(groups[e.Topic], candidate{e, values})
	}

	var pairs []Pair
	for _, group := range groups {
		for i, a := range group {
			for _, b := range group[i+1:] {
				if keys := differingKeys(a.values, b.values); len(keys) > 0 {
					pairs = append(pairs, Pair{A: a.entry, B: b.entry, Keys: keys})
				}
			}
		}
	}
	slices.SortFunc(pairs, func(p, q Pair) int {
		return cmp.Or(cmp.Compare(p.A.Index, q.A.Index), cmp.Compare(p.B.Index, q.B.Index))
	})
	return pairs
}

func differingKeys(a, b map[string]primitive) []string {
	if len(b) < len(a) {
		a, b = b, a
	}
	var keys []string
	for k, va := range a {
		if vb, ok := b[k]; ok && va != vb {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// primitive is a decoded JSON primitive, comparable with == the way
// JavaScript's === compares parsed values.
type primitive struct {
	kind kind
	str  string
	num  float64
	b    bool
}

func decodePrimitive(raw json.RawMessage) (primitive, bool) {
	p := primitive{kind: kindOf(raw)}
	switch p.kind {
	case kindString:
		s, ok := stringValue(raw)
		p.str = s
		return p, ok
	case kindNumber:
		// Out of range numbers come back as ±Inf or 0, as JSON.parse makes them.
		n, err := strconv.ParseFloat(string(raw), 64)
		p.num = n
		return p, err == nil || errors.Is(err, strconv.ErrRange)
	case kindBool:
		p.b = string(raw) == "true"
		return p, true
	case kindNull:
		return p, true
	}
	return p, false
}
