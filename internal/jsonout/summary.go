package jsonout

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"arbiter/model"
)

// AppendSummary appends s as an element of WriteArray's array: byte
// for byte what AppendJSON appends (encoding/json, indented, then
// EscapeControls). encoding/json spends most of list --json's time on
// reflection and re-indenting (100 ms of 10,000 open conflicts); this
// writes the same text directly. TestAppendSummaryPrintsWhatEncodingJSONPrints
// holds the two together, and fails when a field is added to the types.
func AppendSummary(b []byte, s model.ConflictSummary) ([]byte, error) {
	o := jsonObject{b: b, indent: "\n  "}
	o.open()
	o.str("id", s.ID)
	o.str("type", string(s.Type))
	o.str("status", string(s.Status))
	o.str("unit_a", s.UnitA)
	o.str("unit_b", s.UnitB)
	o.str("description", s.Description)
	o.str("detected_by", string(s.DetectedBy))
	o.time("detected_at", s.DetectedAt)
	o.int("epoch", s.Epoch)
	o.int("version", s.Version)
	o.step("escalation", s.Escalation)
	o.step("vote_opened", s.VoteOpened)
	o.step("rework", s.Rework)
	if r := s.Route; r != nil {
		o.key("route")
		o.open()
		if r.Owner != "" {
			o.str("owner", r.Owner)
		}
		o.time("since", r.Since)
		if r.Deadline != nil {
			o.time("deadline", *r.Deadline)
		}
		if r.Fallback != "" {
			o.str("fallback", string(r.Fallback))
		}
		if r.Reminded != 0 {
			o.int("reminded", int64(r.Reminded))
		}
		o.close()
	}
	if p := s.Proposal; p != nil {
		o.key("proposal")
		o.open()
		o.str("by", p.By)
		if p.WinnerID != nil {
			o.str("winner_id", *p.WinnerID)
		}
		if p.Synthesis != nil {
			o.str("synthesis", *p.Synthesis)
		}
		o.close()
	}
	if s.ReworkOf != "" {
		o.str("rework_of", s.ReworkOf)
	}
	if r := s.Resolution; r != nil {
		o.key("resolution")
		o.open()
		o.str("strategy", string(r.Strategy))
		if o.key("winner_id"); r.WinnerID == nil {
			o.b = append(o.b, "null"...)
		} else {
			o.b = appendJSONString(o.b, *r.WinnerID)
		}
		if r.SynthesisUnitID != nil {
			o.str("synthesis_unit_id", *r.SynthesisUnitID)
		}
		o.str("rationale", r.Rationale)
		o.str("resolved_by", r.ResolvedBy)
		o.int("epoch_resolved", r.EpochResolved)
		o.time("resolved_at", r.ResolvedAt)
		o.close()
	}
	if d := s.Detection; d != nil {
		o.encoded("detection", d)
	}
	o.str("agent_a", s.AgentA)
	o.str("role_a", s.RoleA)
	o.str("agent_b", s.AgentB)
	o.str("role_b", s.RoleB)
	if t := s.Tally; t != nil {
		o.key("tally")
		o.open()
		o.int("for_a", int64(t.ForA))
		o.int("for_b", int64(t.ForB))
		o.int("quorum", int64(t.Quorum))
		o.close()
	}
	o.close()
	return o.b, o.err
}

// jsonObject writes nested JSON objects, indented as encoding/json
// indents them inside an array.
type jsonObject struct {
	b      []byte
	indent string // a newline and the indentation of the current level
	first  bool   // no key yet at the current level
	err    error
}

func (o *jsonObject) open() {
	o.b = append(o.b, '{')
	o.indent += "  "
	o.first = true
}

func (o *jsonObject) close() {
	o.indent = o.indent[:len(o.indent)-2]
	o.b = append(o.b, o.indent...)
	o.b = append(o.b, '}')
	o.first = false
}

func (o *jsonObject) key(k string) {
	if !o.first {
		o.b = append(o.b, ',')
	}
	o.first = false
	o.b = append(o.b, o.indent...)
	o.b = append(o.b, '"')
	o.b = append(o.b, k...)
	o.b = append(o.b, `": `...)
}

// encoded writes v as encoding/json writes it at this depth: for a value
// few rows have (a detected conflict's reasons), not worth writing by hand.
func (o *jsonObject) encoded(k string, v any) {
	o.key(k)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(o.indent[1:], "  ")
	if err := enc.Encode(v); err != nil && o.err == nil {
		o.err = err
	}
	o.b = append(o.b, EscapeControls(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))...)
}

func (o *jsonObject) str(k, v string) {
	o.key(k)
	o.b = appendJSONString(o.b, v)
}

func (o *jsonObject) int(k string, v int64) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
}

func (o *jsonObject) time(k string, t time.Time) {
	o.key(k)
	text, err := t.MarshalJSON()
	if err != nil && o.err == nil {
		o.err = err
	}
	o.b = append(o.b, text...)
}

func (o *jsonObject) step(k string, e *model.Escalation) {
	if e == nil {
		return
	}
	o.key(k)
	o.open()
	o.str("by", e.By)
	o.str("reason", e.Reason)
	o.int("epoch", e.Epoch)
	o.time("at", e.At)
	o.close()
}

// appendJSONString appends s quoted as encoding/json quotes it (HTML
// escaping off) and as EscapeControls then rewrites it: invalid UTF-8
// becomes \ufffd, and C0, DEL, C1, U+2028, U+2029 and the invisible
// format characters are escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		if c < 0x80 {
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, `\b`...)
			case '\f':
				b = append(b, `\f`...)
			case '\n':
				b = append(b, `\n`...)
			case '\r':
				b = append(b, `\r`...)
			case '\t':
				b = append(b, `\t`...)
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029' || isRawControl(r):
			if r > 0xffff {
				hi, lo := utf16.EncodeRune(r)
				b = appendU(b, hi)
				b = appendU(b, lo)
			} else {
				b = appendU(b, r)
			}
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendU(b []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}
