package mcpmemory

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Editing their JSON without rewriting it: arbiter adds its keys to an
// object their server wrote and keeps every other byte as written, so
// nothing of theirs changes but what arbiter adds. New members are
// written as Python's json.dumps writes them (", " and ": ").

// member is one key of a JSON object and its value, as JSON text.
type member struct {
	key string
	raw string
}

// pyObject writes members as json.dumps would: {"k": v, "k2": v2}.
func pyObject(ms []member) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(jsonString(m.key) + ": " + m.raw)
	}
	b.WriteByte('}')
	return b.String()
}

// jsonString is s as a JSON string, without Go's escaping of <, > and &.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// jsonTime is t as their timestamps are: Unix seconds with a fraction.
func jsonTime(t time.Time) string { return jsonFloat(float64(t.UnixMicro()) / 1e6) }

// jsonFloat writes f as Python's json.dumps does for ordinary values:
// the shortest exact form, with ".0" on whole numbers.
func jsonFloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// span is where a member's value lies in the object's text.
type span struct {
	key        string
	start, end int
}

// objectMembers reads a JSON object's top-level members and where each
// value lies, and where the text after the last value (or the opening
// brace) is; ok is false when text is not exactly one JSON object.
func objectMembers(text string) (members []span, insertAt int, ok bool) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	tok, err := dec.Token()
	if d, isDelim := tok.(json.Delim); err != nil || !isDelim || d != '{' {
		return nil, 0, false
	}
	insertAt = int(dec.InputOffset())
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		if err != nil || !isKey {
			return nil, 0, false
		}
		afterKey := int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, 0, false
		}
		end := int(dec.InputOffset())
		start := afterKey
		for start < end && strings.ContainsRune(" \t\r\n:", rune(text[start])) {
			start++
		}
		members = append(members, span{key: key, start: start, end: end})
		insertAt = end
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, 0, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, 0, false
	}
	return members, insertAt, true
}

// setMembers returns the object text with each member set: a key already
// there gets its value replaced where it stands (its last occurrence, the
// one Python's json.loads keeps), a new one is appended after the last
// member. Text that is empty, null or not a JSON object becomes a new
// object of these members alone (their server reads such metadata as {}).
func setMembers(text string, set []member) string {
	spans, insertAt, ok := objectMembers(text)
	if !ok {
		return pyObject(set)
	}
	type edit struct {
		start, end int
		with       string
	}
	var edits []edit
	var added []string
	for _, m := range set {
		found := -1
		for i, s := range spans {
			if s.key == m.key {
				found = i
			}
		}
		if found >= 0 {
			edits = append(edits, edit{spans[found].start, spans[found].end, m.raw})
		} else {
			added = append(added, jsonString(m.key)+": "+m.raw)
		}
	}
	if len(added) > 0 {
		ins := strings.Join(added, ", ")
		if len(spans) > 0 {
			ins = ", " + ins
		}
		edits = append(edits, edit{insertAt, insertAt, ins})
	}
	// Apply from the end, so earlier offsets stay true.
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	out := text
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		out = out[:e.start] + e.with + out[e.end:]
	}
	return out
}

// appendMember returns the object text with raw appended to the array at
// key, which is created if missing; a value there that is not an array
// becomes the first element of one.
func appendMember(text, key, raw string) string {
	spans, _, ok := objectMembers(text)
	if !ok {
		return pyObject([]member{{key, "[" + raw + "]"}})
	}
	var current string
	for _, s := range spans {
		if s.key == key {
			current = text[s.start:s.end]
		}
	}
	var list string
	switch {
	case current == "":
		list = "[" + raw + "]"
	case strings.HasPrefix(current, "["):
		end := strings.LastIndex(current, "]")
		body := strings.TrimRight(current[:end], " \t\r\n")
		if strings.TrimSpace(body[1:]) == "" {
			list = "[" + raw + "]"
		} else {
			list = body + ", " + raw + current[len(body):end] + "]"
		}
	default:
		list = "[" + current + ", " + raw + "]"
	}
	return setMembers(text, []member{{key, list}})
}

// lookup reads one top-level string or number member of an object's text
// ("" when it is missing or not a string or number).
func lookup(text, key string) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &obj) != nil {
		return ""
	}
	raw, ok := obj[key]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&n) == nil {
		return n.String()
	}
	return ""
}

// lookupTime reads a member holding Unix seconds.
func lookupTime(text, key string) time.Time {
	f, err := strconv.ParseFloat(lookup(text, key), 64)
	if err != nil || f <= 0 {
		return time.Time{}
	}
	return unixTime(f)
}

func unixTime(f float64) time.Time {
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC()
}
