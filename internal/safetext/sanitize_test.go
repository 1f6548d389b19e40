package safetext

import "testing"

// example is one input and what the reader should see instead.
type example struct {
	name, in, want string
}

func checkAll(t *testing.T, sanitize func(string) string, examples []example) {
	t.Helper()
	for _, ex := range examples {
		if got := sanitize(ex.in); got != ex.want {
			t.Errorf("%s: got %q, want %q (input %q)", ex.name, got, ex.want, ex.in)
		}
	}
}

func TestCleanTextComesBackWithoutAllocating(t *testing.T) {
	for name, fn := range map[string]func(string) string{"Block": Block, "Line": Line} {
		for _, in := range []string{"printable ASCII only", "prose in 日本語 and émoji 😀"} {
			if allocs := testing.AllocsPerRun(100, func() { fn(in) }); allocs != 0 {
				t.Errorf("%s(%q) allocated %v times", name, in, allocs)
			}
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { Block("two\nlines") }); allocs != 0 {
		t.Errorf("Block with newlines allocated %v times", allocs)
	}
}
