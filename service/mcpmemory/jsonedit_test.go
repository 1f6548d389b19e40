package mcpmemory

import (
	"encoding/json"
	"testing"
)

func TestSetMembersKeepsEveryOtherByte(t *testing.T) {
	set := []member{{"resolved_by", `"maya"`}, {"rationale", `"a <b> & c"`}}
	for _, c := range []struct{ in, want string }{
		{`{"similarity": 0.97, "divergence": 0.31}`, `{"similarity": 0.97, "divergence": 0.31, "resolved_by": "maya", "rationale": "a <b> & c"}`},
		{`{}`, `{"resolved_by": "maya", "rationale": "a <b> & c"}`},
		{` { } `, ` {"resolved_by": "maya", "rationale": "a <b> & c" } `},
		{"{\n  \"a\": [1, 2],\n  \"resolved_by\": \"ana\"\n}", "{\n  \"a\": [1, 2],\n  \"resolved_by\": \"maya\", \"rationale\": \"a <b> & c\"\n}"},
		{`{"x":1e3,"y":{"z":"}"}}`, `{"x":1e3,"y":{"z":"}"}, "resolved_by": "maya", "rationale": "a <b> & c"}`},
		{``, `{"resolved_by": "maya", "rationale": "a <b> & c"}`},
		{`null`, `{"resolved_by": "maya", "rationale": "a <b> & c"}`},
		{`[1]`, `{"resolved_by": "maya", "rationale": "a <b> & c"}`},
		{`{"a": 1} trailing`, `{"resolved_by": "maya", "rationale": "a <b> & c"}`},
	} {
		got := setMembers(c.in, set)
		if got != c.want {
			t.Errorf("setMembers(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("not JSON: %q", got)
		}
	}
}

func TestAppendMemberGrowsTheArray(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"source": "x"}`, `{"source": "x", "h": [{"a": 1}]}`},
		{`{"h": [], "source": "x"}`, `{"h": [{"a": 1}], "source": "x"}`},
		{`{"h": [{"a": 0}]}`, `{"h": [{"a": 0}, {"a": 1}]}`},
		{`{"h": [ 7 ] }`, `{"h": [ 7, {"a": 1} ] }`},
		{`{"h": "odd"}`, `{"h": ["odd", {"a": 1}]}`},
		{`not json`, `{"h": [{"a": 1}]}`},
	} {
		if got := appendMember(c.in, "h", `{"a": 1}`); got != c.want {
			t.Errorf("appendMember(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestTagsLoseOnlyTheConflictTagAsTheirResolveWrites(t *testing.T) {
	for _, c := range []struct {
		in    string
		valid bool
		want  any
	}{
		{"perf, checkout,conflict:unresolved", true, "perf,checkout"},
		{"conflict:unresolved", true, ""},
		{"a,,b", true, "a,,b"},
		{"", true, nil},
		{"", false, nil},
	} {
		if got := withoutConflictTag(c.in, c.valid); got != c.want {
			t.Errorf("%q: %v, want %v", c.in, got, c.want)
		}
	}
}
