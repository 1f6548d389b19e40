package cli

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tourHeading is the README section from which on every sh block runs,
// as one script: the tour, and the sections after it, which go on with
// the tour's field.
const tourHeading = "## A tour of the command line"

// tourScript is the sh blocks of the README from the tour section on, in
// order. Blocks of any other kind (console, cron, json) are not part of
// it: they say so, and why (a server, the network, a file of yours).
func tourScript(t *testing.T, readme string) string {
	t.Helper()
	start := strings.Index(readme, "\n"+tourHeading+"\n")
	if start < 0 {
		t.Fatalf("the README has no %q section", tourHeading)
	}
	section := readme[start+1:]
	var script strings.Builder
	in, blocks := false, 0
	sc := bufio.NewScanner(strings.NewReader(section))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !in && line == "```sh":
			in = true
			blocks++
		case in && line == "```":
			in = false
		case in:
			script.WriteString(line + "\n")
		}
	}
	if in || blocks < 2 {
		t.Fatalf("the tour has %d sh blocks (the last one open: %v)", blocks, in)
	}
	return script.String()
}

// TestTheReadmeTourRuns runs the shell blocks of the README's tour in
// order, as one script, in an empty directory with arbiter on the PATH
// and nothing of the user's settings: every line must succeed, so the
// tour can never name a file it did not make or a conflict it did not
// open.
func TestTheReadmeTourRuns(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	script := tourScript(t, string(readme))
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	dir := t.TempDir()
	cmd := exec.Command(bash, "-e", "-o", "pipefail", "-x", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's tour failed (%v); its last lines:\n%s", err, lastLines(string(out), 25))
	}
	// The tour did what its comments say.
	for _, want := range []string{"recorded mem-001", "opened conflict-001", "opened conflict-002", "opened conflict-003",
		"reopened conflict-001", "ana cast ballot on conflict-002", "resolved conflict-003", "built big.db",
		"signing secret (shown once", "applied 1, already applied 0, refused 0", "appended 1 event to field.jsonl",
		"joined site-b.db into team.db", "joined      from site-b.db as mem-009",
		"opened conflict-004 (factual, version 1, detected: quantity", "resolved conflict-004"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the tour's output lacks %q", want)
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// The tour's script is its sh blocks only, from the tour on: the
// alternatives shown in a console block, the cron line and what comes
// before the tour are not run.
func TestTheTourScriptIsItsShBlocksOnly(t *testing.T) {
	readme := "# x\n\n```sh\necho before\n```\n\n" + tourHeading + "\n\n```sh\necho one\n```\n\n### Sub\n\n```console\n$ echo not run\n```\n\n" +
		"```cron\n* * * * * not run\n```\n\n```sh\necho two\n```\n\n## Next\n\n```sh\necho three\n```\n"
	if got := tourScript(t, readme); got != "echo one\necho two\necho three\n" {
		t.Errorf("script %q, want the three sh blocks from the tour on", got)
	}
}
