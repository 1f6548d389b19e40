package cli

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"arbiter/internal/testwait"
	"arbiter/model"
	"arbiter/service/review"
	"arbiter/store/field"
	"arbiter/store/sqlite"

	"github.com/charmbracelet/x/ansi"
	_ "modernc.org/sqlite"
)

// fieldCommands are every command that opens a field, as the CLI runs
// them, each with the stdin it needs. "screen" is the bare command: the
// review screen (without a terminal it prints the queue instead, after
// opening the field the same way).
var fieldCommands = []struct {
	name  string
	write bool
	stdin string
	args  []string
}{
	{"list", false, "", []string{"list"}},
	{"show", false, "", []string{"show", "conflict-001"}},
	{"inbox", false, "", []string{"--as", "ana", "inbox"}},
	{"screen", false, "", []string{"--as", "op"}},
	{"register", true, "", []string{"register", "--id", "newbie", "--role", "analyst"}},
	{"record", true, recordPayload("p99 is 55 ms", 0.5, ""), []string{"--as", "ana", "record"}},
	{"merge", true, "", []string{"--as", "lead", "merge", "conflict-001", "--strategy", "dismiss", "--rationale", "not a conflict"}},
	{"vote", true, "", []string{"--as", "ana", "vote", "conflict-002", "--for", "A", "--rationale", "lab numbers"}},
}

// dirState is every file of a directory and the sha256 of its bytes.
func dirState(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][32]byte{}
	for _, e := range entries {
		if e.IsDir() {
			out[e.Name()+"/"] = [32]byte{}
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = sha256.Sum256(b)
	}
	return out
}

func wantSameDir(t *testing.T, what string, before, after map[string][32]byte) {
	t.Helper()
	if !maps.Equal(before, after) {
		t.Errorf("%s changed the directory: %v before, %v after", what, slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
		for name, sum := range after {
			if b, ok := before[name]; ok && b != sum {
				t.Errorf("%s changed %s", what, name)
			}
		}
	}
}

// bigField writes, in-process, a field like newField's with a conflict
// (conflict-001, detected) and one put to a vote (conflict-002), and n
// more units of about 2 KB, so that it spans many pages.
func bigField(t *testing.T, dir string, n int) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(dir, "field.db")
	p := model.DefaultPolicy()
	p.Quorum = 2
	st, err := field.Create(ctx, path, p)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := review.New(st)
	for _, a := range []model.Agent{{ID: "ana", Role: "analyst", Authority: 6}, {ID: "bob", Role: "analyst", Authority: 4},
		{ID: "lead", Role: "lead", Authority: 6}, {ID: "op", Role: "operator", Kind: model.KindHuman, Authority: 10}} {
		if _, err := svc.Register(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	rec := func(as, content, contradicts string) {
		req := model.RecordRequest{Type: model.TypeFinding, Content: content,
			Intent:     model.Intent{Purpose: "measure the checkout latency"},
			Confidence: model.Confidence{Score: model.Ptr(0.6), Reasoning: "measured"}}
		if contradicts != "" {
			req.Relations = []model.Relation{{Type: model.RelContradicts, TargetID: contradicts}}
		}
		if _, err := svc.Record(ctx, as, req); err != nil {
			t.Fatal(err)
		}
	}
	rec("ana", "p99 is 40 ms", "")
	rec("bob", "p99 is 90 ms", "mem-001")
	rec("ana", "p50 is 12 ms", "")
	rec("bob", "p50 is 30 ms", "mem-003")
	if _, err := svc.Merge(ctx, "lead", model.MergeRequest{ConflictID: "conflict-002", Strategy: model.Vote,
		Resolution: model.MergeResolution{Rationale: "let the seniors decide"}}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		rec("bob", fmt.Sprintf("## Run %d\n\n%s", i, strings.Repeat("latency sample 42 ms; ", 100)), "")
	}
	return path
}

// overwrite fills n bytes of path at off with a pattern.
func overwrite(t *testing.T, path string, off int64, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte(strings.Repeat("\xde\xad\xbe\xef", n/4)), off); err != nil {
		t.Fatal(err)
	}
}

// pageOf returns the page size of the field at path and the first page
// of its table.
func pageOf(t *testing.T, path, table string) (size, page int64) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1") // leaves no -wal or -shm behind
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow("PRAGMA page_size").Scan(&size); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT rootpage FROM sqlite_master WHERE name = ?", table).Scan(&page); err != nil {
		t.Fatal(err)
	}
	return size, page
}

// TestBadFieldsGetOneClearMessageAndAreLeftAlone opens, with every
// command, files that are not usable fields. Each command must exit 1
// with one line naming the problem, print nothing else, and leave the
// directory as it was: no file created, none changed.
func TestBadFieldsGetOneClearMessageAndAreLeftAlone(t *testing.T) {
	cases := []struct {
		name  string
		make  func(t *testing.T, dir string) string
		wants string
	}{
		{"missing", func(t *testing.T, dir string) string { return filepath.Join(dir, "nowhere.db") }, "no such field"},
		{"directory", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "field.db")
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}, "is a directory, not a field"},
		{"empty", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "field.db")
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, "is an empty file, not an arbiter field"},
		{"not SQLite", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "field.db")
			if err := os.WriteFile(p, []byte(strings.Repeat("# notes, not a database\n", 200)), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, "is not an arbiter field (not a SQLite database)"},
		{"SQLite but not a field", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "other.db")
			db, err := sql.Open("sqlite", p)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO photos (name) VALUES ('cat')"); err != nil {
				t.Fatal(err)
			}
			return p
		}, "is a SQLite database but not an arbiter field"},
		{"from a newer arbiter", func(t *testing.T, dir string) string {
			p := bigField(t, dir, 0)
			db, err := sql.Open("sqlite", p)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", sqlite.Version+1)); err != nil {
				t.Fatal(err)
			}
			return p
		}, "was written by a newer arbiter"},
		{"truncated", func(t *testing.T, dir string) string {
			p := bigField(t, dir, 40)
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, fi.Size()/3); err != nil {
				t.Fatal(err)
			}
			return p
		}, "is damaged"},
		{"damaged clock page", func(t *testing.T, dir string) string {
			p := bigField(t, dir, 40)
			size, page := pageOf(t, p, "clock")
			overwrite(t, p, (page-1)*size, int(size))
			return p
		}, "is damaged"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := c.make(t, dir)
			before := dirState(t, dir)
			for _, cmd := range fieldCommands {
				r := call(t, nil, cmd.stdin, append([]string{"--db", path}, cmd.args...)...)
				if r.code != exitFailure || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 ||
					!strings.HasPrefix(r.stderr, "arbiter: "+path+": ") || !strings.Contains(r.stderr, c.wants) {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and one line saying %q",
						cmd.name, r.code, r.stdout, r.stderr, c.wants)
				}
				wantSameDir(t, cmd.name, before, dirState(t, dir))
			}
		})
	}
}

// TestDamagedPagesInTheMiddleAreReportedNotHidden overwrites pages in the
// middle of a real field — the first page of its conflicts, and a run of
// pages halfway through the file: SQLite finds the damage only when a
// command reads those pages. Each command either works or says, in one
// line, that the field is damaged; none panics, and none that fails
// changes a byte.
func TestDamagedPagesInTheMiddleAreReportedNotHidden(t *testing.T) {
	dir := t.TempDir()
	path := bigField(t, dir, 200)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	size, page := pageOf(t, path, "conflicts")
	overwrite(t, path, (page-1)*size, int(size))
	overwrite(t, path, (fi.Size()/2/size)*size, 8*int(size))
	damaged := 0
	for _, cmd := range fieldCommands {
		before := dirState(t, dir)
		r := call(t, nil, cmd.stdin, append([]string{"--db", path}, cmd.args...)...)
		switch {
		case r.code == exitOK:
			if !cmd.write {
				wantSameDir(t, cmd.name, before, dirState(t, dir))
			}
		case (r.code == exitFailure || r.code == exitProtocol) && strings.Count(r.stderr, "\n") == 1 &&
			strings.Contains(r.stderr, "damaged"):
			damaged++
			wantSameDir(t, cmd.name, before, dirState(t, dir))
		default:
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want success or one line saying the field is damaged",
				cmd.name, r.code, r.stdout, r.stderr)
		}
		t.Logf("%s: exit %d %s", cmd.name, r.code, strings.TrimSpace(r.stderr))
	}
	if damaged == 0 {
		t.Error("no command noticed the damaged conflicts")
	}
}

// TestReadOnlyFilesAndDirectoriesAreReadButNeverWritten: a field the
// caller may not write opens read-only with a notice; reading works,
// and every write is refused with READ_ONLY without a byte changing or a
// -wal or -shm file appearing.
func TestReadOnlyFilesAndDirectoriesAreReadButNeverWritten(t *testing.T) {
	for _, c := range []struct {
		name, notice string
		lock         func(dir, path string) error
	}{
		{"file", "the file is not writable", func(_, path string) error { return os.Chmod(path, 0o444) }},
		{"directory", "its directory is not writable", func(dir, _ string) error { return os.Chmod(dir, 0o555) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ro")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := bigField(t, dir, 5)
			if err := c.lock(dir, path); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o755); os.Chmod(path, 0o644) })
			before := dirState(t, dir)
			for _, cmd := range fieldCommands {
				r := call(t, nil, cmd.stdin, append([]string{"--db", path}, cmd.args...)...)
				notice := "arbiter: opened read-only: " + c.notice + "\n"
				switch {
				case !cmd.write && (r.code != exitOK || r.stderr != notice):
					t.Errorf("%s: exit %d, stderr %q; want exit 0 and the notice %q", cmd.name, r.code, r.stderr, notice)
				case cmd.write && (r.code != exitProtocol || !strings.HasPrefix(r.stderr, notice+"arbiter: READ_ONLY: ")):
					t.Errorf("%s: exit %d, stderr %q; want exit 3 and READ_ONLY after the notice", cmd.name, r.code, r.stderr)
				}
				wantSameDir(t, cmd.name, before, dirState(t, dir))
			}
		})
	}
}

// holdWriteLock takes the field's write lock from this process, as a
// long writer in another program would, until release is called.
func holdWriteLock(t *testing.T, path string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "UPDATE clock SET epoch = epoch + 1000"); err != nil {
		t.Fatal(err)
	}
	return func() {
		conn.ExecContext(context.Background(), "ROLLBACK")
		conn.Close()
		db.Close()
	}
}

// TestALongWriterMakesWritesWaitThenRefuseWithFieldBusy: while another
// program holds the write lock longer than the busy timeout (here
// ARBITER_BUSY_TIMEOUT=300ms), reads go on (WAL) and every write waits
// that long, then is refused with FIELD_BUSY; nothing is written. Once
// the lock is gone, writing works again.
func TestALongWriterMakesWritesWaitThenRefuseWithFieldBusy(t *testing.T) {
	dir := t.TempDir()
	path := bigField(t, dir, 5)
	release := holdWriteLock(t, path)
	defer release()
	before := sha(t, path)
	env := []string{"ARBITER_BUSY_TIMEOUT=300ms"}
	for _, cmd := range fieldCommands {
		start := time.Now()
		r := call(t, env, cmd.stdin, append([]string{"--db", path}, cmd.args...)...)
		took := time.Since(start)
		switch {
		case !cmd.write && r.code != exitOK:
			t.Errorf("%s: exit %d, stderr %q; reads must go on beside a writer", cmd.name, r.code, r.stderr)
		case cmd.write && (r.code != exitProtocol || !strings.HasPrefix(r.stderr, "arbiter: FIELD_BUSY: ") ||
			strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "busy timeout")):
			t.Errorf("%s: exit %d, stderr %q; want exit 3 and one FIELD_BUSY line", cmd.name, r.code, r.stderr)
		case cmd.write && (took < 300*time.Millisecond || took > 4*time.Second):
			t.Errorf("%s: refused after %s; want the 300ms busy timeout, not the 5 s default", cmd.name, took)
		}
		if strings.Contains(r.stderr, "locked") && !strings.Contains(r.stderr, "kept the field locked") {
			t.Errorf("%s: SQLite's own words reached the user: %q", cmd.name, r.stderr)
		}
	}
	if sha(t, path) != before {
		t.Error("refused writes changed the field")
	}
	release()
	ok(t, "--db", path, "--as", "lead", "merge", "conflict-001", "--strategy", "dismiss", "--rationale", "the lock is gone")
}

// tinyDisk mounts a tmpfs of size bytes at a new directory and returns
// it, or skips the test where mounting is not allowed.
func tinyDisk(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d,mode=0755", size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("cannot mount a tmpfs here to fill (%v: %s); the full-disk test needs root or CAP_SYS_ADMIN", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

// TestAFullDiskRefusesWritesWithStorageFullAndKeepsTheField fills a tiny
// tmpfs around a field: writes are refused with STORAGE_FULL and change
// nothing; reads go on; after room is made, writing works again.
func TestAFullDiskRefusesWritesWithStorageFullAndKeepsTheField(t *testing.T) {
	disk := tinyDisk(t, 8<<20) // the field and its log while thirteen migrations and the units are written
	path := bigField(t, disk, 20)
	// Leave 96 KB: room to open the field (its -shm), not to record a
	// 1 MB unit.
	filler := fillDisk(t, disk, 96<<10)
	before := dirState(t, disk)
	big := recordPayload(strings.Repeat("a long measurement log line\n", 40_000), 0.5, "")
	r := call(t, nil, big, "--db", path, "--as", "ana", "record")
	if r.code != exitProtocol || !strings.HasPrefix(r.stderr, "arbiter: STORAGE_FULL: ") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("record on a full disk: exit %d, stderr %q; want exit 3 and one STORAGE_FULL line", r.code, r.stderr)
	}
	wantSameDir(t, "record on a full disk", before, dirState(t, disk))
	if r := arbiter(t, "--db", path, "list", "--status", "all"); r.code != exitOK || !strings.Contains(r.stdout, "conflict-002") {
		t.Errorf("list on a full disk: exit %d, stderr %q", r.code, r.stderr)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if r := call(t, nil, big, "--db", path, "--as", "ana", "record"); r.code != exitOK {
		t.Errorf("record once there is room: exit %d, stderr %q", r.code, r.stderr)
	}
}

// fillDisk fills the disk at dir but for about room bytes and returns the
// filler file.
func fillDisk(t *testing.T, dir string, room int64) string {
	t.Helper()
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	f.Close()
	fi, err := os.Stat(filler)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filler, fi.Size()-room); err != nil {
		t.Fatal(err)
	}
	return filler
}

// TestANearlyFullDiskStillReads leaves 16 KB free beside a closed field,
// less than SQLite's shared-memory file takes: reads work, --read-only
// too, writes are refused with STORAGE_FULL, and no -wal or -shm stub is
// left behind. (It used to be "disk I/O error (4874)" for every command,
// leaving the stubs, which then failed --read-only too.)
func TestANearlyFullDiskStillReads(t *testing.T) {
	disk := tinyDisk(t, 8<<20) // the field and its log while thirteen migrations and the units are written
	path := bigField(t, disk, 20)
	filler := fillDisk(t, disk, 16<<10)
	before := dirState(t, disk)
	for _, args := range [][]string{{"list", "--status", "all"}, {"--read-only", "list", "--status", "all"}, {"list", "--status", "all"}} {
		r := arbiter(t, append([]string{"--db", path}, args...)...)
		if r.code != exitOK || !strings.Contains(r.stdout, "conflict-002") {
			t.Errorf("%v on a nearly full disk: exit %d, stderr %q", args, r.code, r.stderr)
		}
		if strings.Contains(r.stderr, "I/O error") {
			t.Errorf("%v: SQLite's words reached the user: %q", args, r.stderr)
		}
		wantSameDir(t, fmt.Sprint(args), before, dirState(t, disk))
	}
	if r := arbiter(t, "--db", path, "show", "conflict-001"); r.code != exitOK {
		t.Errorf("show on a nearly full disk: exit %d, stderr %q", r.code, r.stderr)
	}
	r := arbiter(t, "--db", path, "--as", "lead", "merge", "conflict-001", "--strategy", "dismiss", "--rationale", "no room")
	if r.code != exitProtocol || !strings.Contains(r.stderr, "arbiter: STORAGE_FULL: ") || !strings.Contains(r.stderr, "free disk space") {
		t.Errorf("merge on a nearly full disk: exit %d, stderr %q; want exit 3 and STORAGE_FULL", r.code, r.stderr)
	}
	wantSameDir(t, "merge on a nearly full disk", before, dirState(t, disk))
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	ok(t, "--db", path, "--as", "lead", "merge", "conflict-001", "--strategy", "dismiss", "--rationale", "room again")
}

// onTerminal runs arbiter with args on a pseudo-terminal (script(1)),
// typing keys once the screen is drawn (or never, if arbiter ends
// first), and returns what the terminal received and the exit code. It
// skips the test where script is missing.
func onTerminal(t *testing.T, keys string, args ...string) (string, int) {
	t.Helper()
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed: no pseudo-terminal to open the screen on")
	}
	line := shellQuote(bin)
	for _, a := range args {
		line += " " + shellQuote(a)
	}
	cmd := exec.Command(script, "-qefc", line, "/dev/null")
	cmd.Env = cleanEnv()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	exited := false
	drawn := func() bool {
		select {
		case err := <-done:
			done <- err
			exited = true
			return true
		default:
		}
		// The screen is drawn: the alternate screen, then the queue's header.
		o := out.String()
		i := strings.Index(o, "\x1b[?1049h")
		return i >= 0 && strings.Contains(ansi.Strip(o[i:]), "arbiter")
	}
	if !testwait.Until(testwait.Deadline, drawn) {
		cmd.Process.Kill()
		t.Fatalf("arbiter %v on a terminal drew nothing and did not exit; it printed:\n%q", args, out.String())
	}
	if !exited {
		in.Write([]byte(keys))
	}
	select {
	case <-done:
	case <-time.After(testwait.Deadline):
		cmd.Process.Kill()
		t.Fatalf("arbiter %v on a terminal did not exit; it printed:\n%q", args, out.String())
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// lockedBuffer is a buffer a process writes to while a test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestTheScreenRefusesABadFieldBeforeDrawing: on a real terminal, the
// bare command opens the field before it takes over the screen, so a bad
// field is one plain line and exit 1, with not one escape sequence sent.
// A good field opens the screen, and q leaves it.
func TestTheScreenRefusesABadFieldBeforeDrawing(t *testing.T) {
	dir := t.TempDir()
	good := bigField(t, dir, 0)
	out, code := onTerminal(t, "q", "--db", good, "--as", "op")
	if code != exitOK || !strings.Contains(out, "\x1b[?1049h") {
		t.Fatalf("a good field: exit %d, want 0 and the screen drawn; got %q", code, out[:min(len(out), 300)])
	}
	notSQLite := filepath.Join(dir, "notes.db")
	if err := os.WriteFile(notSQLite, []byte(strings.Repeat("plain text\n", 50)), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "nowhere.db"): "no such field",
		notSQLite:                        "not a SQLite database",
	} {
		before := dirState(t, dir)
		out, code := onTerminal(t, "q", "--db", path, "--as", "op")
		if code != exitFailure || strings.ContainsRune(out, 0x1b) || strings.Count(out, "\n") != 1 || !strings.Contains(out, want) {
			t.Errorf("%s on a terminal: exit %d, output %q; want exit 1 and one plain line saying %q", path, code, out, want)
		}
		wantSameDir(t, "the screen on "+path, before, dirState(t, dir))
	}
}
