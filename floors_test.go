package main

import (
	"os/exec"
	"strings"
	"testing"
)

// floorOf is the floor of a package of this module (docs/architecture.md):
// the doors above the service, the service above the store, the store
// above the model and the libraries.
func floorOf(pkg string) int {
	switch p := strings.TrimPrefix(pkg, "arbiter/"); {
	case p == "arbiter", p == "reliability":
		return 5
	case strings.HasPrefix(p, "door/"):
		return 4
	case strings.HasPrefix(p, "service/"):
		return 3
	case p == "store", strings.HasPrefix(p, "store/"):
		return 2
	default: // model, internal/…
		return 1
	}
}

// TestTheFloorsHold reads the imports of every package (not of its tests)
// and fails on one that runs up a floor, on model importing any package of
// arbiter, and on a library importing more than model and other libraries.
func TestTheFloorsHold(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	packages := 0
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		from := fields[0]
		packages++
		for _, to := range fields[1:] {
			if !strings.HasPrefix(to, "arbiter/") {
				continue
			}
			switch {
			case from == "arbiter/model":
				t.Errorf("model imports %s: it imports no package of arbiter", to)
			case strings.HasPrefix(from, "arbiter/internal/") && to != "arbiter/model" && !strings.HasPrefix(to, "arbiter/internal/"):
				t.Errorf("the library %s imports %s: a library imports only model and other libraries", from, to)
			case floorOf(to) > floorOf(from):
				t.Errorf("%s (floor %d) imports %s (floor %d), a floor above it", from, floorOf(from), to, floorOf(to))
			}
		}
	}
	if packages < 30 {
		t.Errorf("go list named %d packages; the module has more than 30:\n%s", packages, out)
	}
}
