package suggest

import (
	"slices"
	"testing"
)

func TestClosestFindsSlipsAndParts(t *testing.T) {
	ids := []string{"ops-maya", "maya", "lead-priya", "lead-tomas", "ana", "bob", "cy"}
	for _, c := range []struct {
		name string
		want []string
	}{
		{"mya", []string{"maya"}},
		{"maya", []string{"ops-maya"}},
		{"ops-mya", []string{"ops-maya"}},
		{"lead-pryia", []string{"lead-priya"}},
		{"priya", []string{"lead-priya"}},
		{"zed", nil},
		{"anna", []string{"ana"}},
		{"ANA", []string{"ana"}},
	} {
		if got := Closest(c.name, ids); !slices.Equal(got, c.want) {
			t.Errorf("Closest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestPhraseNamesOneOrMore(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"maya"}, "did you mean maya?"},
		{[]string{"ana", "bob", "cy"}, "did you mean ana, bob or cy?"},
	} {
		if got := Phrase(c.names); got != c.want {
			t.Errorf("Phrase(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}
