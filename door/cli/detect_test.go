package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/fieldgen"
	"arbiter/store"
	"arbiter/store/field"
)

// plain is a RECORD payload without relations, on purpose.
func plain(content, purpose string) string {
	b, _ := json.Marshal(map[string]any{"type": "finding", "content": content, "intent": map[string]any{"purpose": purpose},
		"confidence": map[string]any{"score": 0.7, "reasoning": "read off the bill"}})
	return string(b)
}

// A new field detects at medium: RECORD opens the contradiction nobody
// declared and says so; show says why; detect lists and checks it;
// dismissing it keeps the pair, and a scan opens nothing on it.
func TestDetectedConflictIsShownListedAndDismissed(t *testing.T) {
	db := newField(t)
	if !strings.Contains(ok(t, "policy", "--db", db), "detection    medium:") {
		t.Fatal("a new field's policy does not say it detects at medium")
	}
	record(t, db, "ana", plain("Our monthly AWS bill for the data platform is about $48k.", "Cloud cost review"))
	out := record(t, db, "bob", plain("The data platform costs us $81k a month on AWS, mostly EMR.", "Cloud cost review"))
	if !strings.Contains(out, "opened conflict-001 (factual, version 1, detected: quantity") {
		t.Fatalf("record did not say it opened a detected conflict:\n%s", out)
	}
	show := ok(t, "show", "--db", db, "conflict-001")
	for _, want := range []string{"detected   logical at epoch", "why        quantity, score", "“48k” against “81k”",
		"A says “Our monthly AWS bill for the data platform is about $48k”", "B says “The data platform costs us $81k a month on AWS, mostly EMR”",
		"`arbiter merge conflict-001 --strategy dismiss --rationale TEXT` says so"} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q:\n%s", want, show)
		}
	}
	if list := ok(t, "detect", "--db", db, "--mode", "list"); !strings.Contains(list, "conflict-001  factual  detected  mem-002 against mem-001  logical: quantity, score") {
		t.Errorf("detect --mode list:\n%s", list)
	}
	var res model.DetectResult
	if err := json.Unmarshal([]byte(ok(t, "detect", "--db", db, "--mode", "check", "--units", "mem-001", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Units) != 1 || len(res.Units[0].Conflicts) != 1 || res.Units[0].Conflicts[0].Detection == nil {
		t.Fatalf("detect --mode check --json: %+v", res)
	}
	r := arbiter(t, "detect", "--db", db, "--mode", "check", "--units", "mem-001,mem-404")
	wantExit(t, r, exitProtocol)
	if !strings.Contains(r.stderr, `UNIT_NOT_FOUND: there is no unit "mem-404"`) {
		t.Errorf("an unknown unit: %s", r.stderr)
	}

	ok(t, "merge", "conflict-001", "--db", db, "--as", "op", "--strategy", "dismiss", "--rationale", "one is with the discount")
	if show := ok(t, "show", "--db", db, "conflict-001"); strings.Contains(show, "not a contradiction?") {
		t.Errorf("a dismissed conflict still offers to dismiss it:\n%s", show)
	}
	scan := ok(t, "detect", "--db", db, "--as", "op", "--mode", "scan")
	if !strings.Contains(scan, "scanned 2 units in ") || !strings.Contains(scan, ": opened 0 conflicts (0 conflicts in the whole scan, 2 units); the scan is finished") {
		t.Errorf("a scan after the dismissal:\n%s", scan)
	}
}

// The sensitivity is set by a human operator, one of four names; init
// takes it too. Wrong values are usage errors; a scan with detection off
// is refused, naming the command that turns it on.
func TestDetectionSensitivityIsPolicy(t *testing.T) {
	db := newField(t)
	r := arbiter(t, "policy", "set", "--db", db, "--as", "op", "--detection-sensitivity", "loud")
	wantExit(t, r, exitUsage)
	if !strings.Contains(r.stderr, `--detection-sensitivity: detection sensitivity "loud": use off, low, medium or high`) {
		t.Errorf("a wrong level: %s", r.stderr)
	}
	if out := ok(t, "policy", "set", "--db", db, "--as", "op", "--detection-sensitivity", "off"); !strings.Contains(out, "detection sensitivity: off (was medium)") {
		t.Errorf("policy set: %s", out)
	}
	var p struct {
		Sensitivity model.Sensitivity `json:"detection_sensitivity"`
	}
	if err := json.Unmarshal([]byte(ok(t, "policy", "--db", db, "--json")), &p); err != nil || p.Sensitivity != model.SensitivityOff {
		t.Errorf("policy --json: %+v (%v)", p, err)
	}
	wantExit(t, arbiter(t, "policy", "set", "--db", db, "--as", "ana", "--detection-sensitivity", "high"), exitProtocol)
	r = arbiter(t, "detect", "--db", db, "--as", "op", "--mode", "scan")
	wantExit(t, r, exitProtocol)
	if !strings.Contains(r.stderr, "detection is off in this field (turn it on with: arbiter policy set --detection-sensitivity medium)") {
		t.Errorf("a scan at off: %s", r.stderr)
	}
	wantExit(t, arbiter(t, "detect", "--db", db, "--mode", "scan"), exitUsage)
	wantExit(t, arbiter(t, "detect", "--db", db, "--mode", "everything"), exitUsage)

	quiet := filepath.Join(t.TempDir(), "quiet.db")
	ok(t, "init", "--db", quiet, "--detection-sensitivity", "off")
	if !strings.Contains(ok(t, "policy", "--db", quiet), "detection    off:") {
		t.Error("init --detection-sensitivity off did not make a field that detects nothing")
	}
}

// ctrl+c stops a scan between two of its batches: what it committed
// stays, it exits 130 saying so, and the next scan goes on from there and
// finishes; a third opens nothing.
func TestScanStoppedByAnInterruptGoesOnNextTime(t *testing.T) {
	db := filepath.Join(t.TempDir(), "gen.db")
	ok(t, "gen", "--db", db, "--units", "20000", "--conflicts", "500", "--open", "20", "--seed", "5")
	ok(t, "policy", "set", "--db", db, "--as", fieldgen.Operator, "--detection-sensitivity", "medium")

	cmd := exec.Command(bin, "detect", "--db", db, "--as", fieldgen.Operator, "--mode", "scan")
	cmd.Env = cleanEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Opened to write, as another process would: read-only, a file
	// without a writer's log yet would be read as an immutable snapshot.
	st, err := field.Open(context.Background(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	scanned := func() model.ScanState {
		var s model.ScanState
		err := st.Read(context.Background(), func(tx store.Tx) (err error) { s, err = tx.DetectScan(); return err })
		if err != nil && err != store.ErrNotFound {
			t.Fatalf("reading the scan's place: %v", err)
		}
		return s
	}
	testwait.For(t, "the scan's first batch", func() bool { return scanned().Done > 0 })
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("the interrupted scan exited %d (%v), want %d\nstdout: %s\nstderr: %s", code, err, exitInterrupted, stdout.String(), stderr.String())
	}
	stopped := scanned()
	if stopped.Finished() || stopped.Done >= 20000 || !strings.Contains(stderr.String(), "the scan stopped:") ||
		!strings.Contains(stderr.String(), "`arbiter detect --mode scan` goes on from there") {
		t.Fatalf("after the interrupt the scan stands at %+v; stderr:\n%s", stopped, stderr.String())
	}

	r := arbiter(t, "detect", "--db", db, "--as", fieldgen.Operator, "--mode", "scan", "--json")
	wantExit(t, r, 0)
	if !strings.Contains(r.stderr, "going on with the scan begun") {
		t.Errorf("the second scan did not say it goes on: %s", r.stderr)
	}
	var res model.DetectResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.Scan == nil || !res.Scan.Finished() || res.Scan.Done != 20000 || res.Scan.Found < stopped.Found {
		t.Fatalf("the scan that went on: %+v (stopped at %+v)", res.Scan, stopped)
	}
	third := ok(t, "detect", "--db", db, "--as", fieldgen.Operator, "--mode", "scan")
	if !strings.Contains(third, "scanned 20000 units") || !strings.Contains(third, ": opened 0 conflicts (0 conflicts in the whole scan, 20000 units)") {
		t.Errorf("a third scan:\n%s", third)
	}
}
