package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/store"
	"arbiter/store/field"
)

// attacks is every terminal attack in one text: CSI colour, cursor and
// erase sequences, OSC 52 clipboard writes, OSC 8 hyperlinks, window
// titles, DCS, APC, PM and SOS strings, 8-bit C1 controls, BEL, backspace
// and carriage-return overwrites, NUL, DEL, bidi overrides and isolates,
// zero-width and tag characters, line separators and invalid UTF-8.
const attacks = "red \x1b[31mALERT\x1b[0m clear\x1b[2J\x1b[H up\x1b[1A\x1b[2K alt\x1b[?1049h " +
	"clip\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07 " +
	"link\x1b]8;;https://evil.example/\x1b\\docs\x1b]8;;\x1b\\ title\x1b]0;pwned\x07 " +
	"dcs\x1bP+q544e\x1b\\ apc\x1b_Gf=100;AAAA\x1b\\ pm\x1b^pm\x1b\\ sos\x1bXsos\x1b\\ reset\x1bc " +
	"c1\u009b31m\u009d52;c;eA==\u009c\u0090q\u009c\u0085 " +
	"bell\x07 safe\x08\x08\x08\x08evil rm -rf /\rls nul\x00 del\x7f " +
	"invoice\u202egpj.exe \u2066admin\u2069 \u200f\u061c pay\u200bpal\ufeff\u2060 tag\U000E0041 " +
	"sep\u2028line\u2029para bad\xff\xc3utf8 tab\tend"

// Agents a field may hold although REGISTER refuses such names now: the
// field was written before, or by another program. They are written
// straight into the store.
var (
	// mallory is a senior agent: she records, decides and votes.
	mallory = "mallory\x1b[2J\x1b]52;c;ZXZpbA==\x07\u202e"
	// eve records units.
	eve = "eve\rOPERATOR\x08\x08\u009b31m\u2066"
	// peeper is an observer: whatever she tries is refused, with her id
	// in the refusal.
	peeper = "peeper\x1b]0;pwned\x07"
)

// attacksArg is attacks as a command-line argument can carry it: without
// its NUL.
var attacksArg = strings.ReplaceAll(attacks, "\x00", "")

// inert fails the test if out holds anything that could drive a terminal
// or hide what it says: ESC and every other C0 control but '\n' (so no
// BEL, backspace, CR or tab), DEL, C1 controls, bidi controls, invisible
// format characters, line separators, or invalid UTF-8.
func inert(t *testing.T, what, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s: output is not valid UTF-8:\n%q", what, out)
		return
	}
	for i, r := range out {
		var bad string
		switch {
		case r == '\n':
		case r < 0x20, r == 0x7f:
			bad = "a C0 control or DEL"
		case r >= 0x80 && r <= 0x9f:
			bad = "a C1 control"
		case unicode.Is(unicode.Bidi_Control, r):
			bad = "a bidi control"
		case r == 0x2028 || r == 0x2029:
			bad = "a line separator"
		case r == 0x200b || r == 0xfeff || r == 0x2060 || (r >= 0xe0000 && r <= 0xe007f):
			bad = "an invisible character"
		}
		if bad != "" {
			t.Errorf("%s: %s (%U) at byte %d: %q", what, bad, r, i, out[max(0, i-40):min(len(out), i+40)])
			return
		}
	}
}

// hostileField builds, through the real CLI wherever it can, a field
// whose agents, units, conflicts, decisions and votes carry attacks:
//
//	conflict-001  escalated by lead, reason hostile; B by mallory
//	conflict-002  put to a vote; mallory and eve's votes carry attacks
//	conflict-003  resolved by mallory with synthesis: text and rationale hostile
//	conflict-004  detected, between eve's units
//
// It returns the field and the output of every command that built it.
func hostileField(t *testing.T) (string, map[string]result) {
	t.Helper()
	db := newField(t)
	outs := map[string]result{}
	st, err := field.Open(context.Background(), db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Write(context.Background(), func(tx store.Tx) error {
		for _, a := range []model.Agent{
			{ID: mallory, Role: "lead\x1b]8;;https://evil.example/\x07x\x1b]8;;\x07", Kind: model.KindAgent, Authority: 6},
			{ID: eve, Role: "analyst\u202e\x1b[8m", Kind: model.KindAgent, Authority: 6},
			{ID: peeper, Role: "observer\x07", Kind: model.KindAgent, Authority: 2},
		} {
			epoch, err := tx.EpochTick()
			if err != nil {
				return err
			}
			a.Status, a.RegisteredAt = model.AgentIdle, time.Now()
			if err := tx.AgentInsert(a, epoch); err != nil {
				return err
			}
		}
		return nil
	})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}

	rec := func(name, as, contradicts string) {
		p := map[string]any{
			"mode": "committed", "type": "finding", "content": "# " + name + "\n\n" + attacks + "\n\n- " + attacks,
			"intent": map[string]any{"purpose": "purpose " + attacks, "task_id": "task " + attacks,
				"question": "question " + attacks},
			"confidence": map[string]any{"score": 0.7, "reasoning": "reasoning " + attacks,
				"evidence": []string{"evidence " + attacks}, "assumptions": []string{"assumption " + attacks}},
			"session_id": "session " + attacks,
			"relations":  []any{},
		}
		if contradicts != "" {
			p["relations"] = []any{map[string]any{"type": "contradicts", "target_id": contradicts,
				"description": "description " + attacks}}
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		r := call(t, nil, string(b), "--db", db, "--as", as, "record")
		wantExit(t, r, 0)
		outs["record "+name] = r
	}
	rec("mem-001", "ana", "")
	rec("mem-002", mallory, "mem-001") // conflict-001
	rec("mem-003", "ana", "")
	rec("mem-004", eve, "mem-003") // conflict-002
	rec("mem-005", "bob", "")
	rec("mem-006", mallory, "mem-005") // conflict-003
	rec("mem-007", eve, "")
	rec("mem-008", eve, "mem-007") // conflict-004

	steps := []struct {
		name string
		args []string
	}{
		{"escalate", []string{"--as", "lead", "merge", "conflict-001", "--strategy", "human_escalation", "--rationale", "reason " + attacksArg}},
		{"open vote", []string{"--as", "lead", "merge", "conflict-002", "--strategy", "vote", "--rationale", "vote " + attacksArg}},
		{"vote mallory", []string{"--as", mallory, "vote", "conflict-002", "--for", "B", "--rationale", "ballot " + attacksArg}},
		{"synthesis", []string{"--as", mallory, "merge", "conflict-003", "--strategy", "synthesis",
			"--synthesis", "synthesis " + attacksArg, "--rationale", "rationale " + attacksArg}},
	}
	for _, s := range steps {
		r := arbiter(t, append([]string{"--db", db}, s.args...)...)
		wantExit(t, r, 0)
		outs[s.name] = r
	}
	return db, outs
}

func TestHostileFieldTextReachesNoTerminalThroughTheCLI(t *testing.T) {
	db, outs := hostileField(t)
	check := func(name string, r result) {
		t.Helper()
		inert(t, name+" (stdout)", r.stdout)
		inert(t, name+" (stderr)", r.stderr)
	}
	for name, r := range outs {
		check(name, r)
	}

	// Every command that prints field text, in every form, in order: some
	// change the field (exit is the code each must end with).
	runs := []struct {
		name string
		exit int
		args []string
	}{
		{"list", 0, []string{"list"}},
		{"list all", 0, []string{"list", "--status", "all"}},
		{"list by type", 0, []string{"list", "--status", "all", "--sort", "type"}},
		{"list json", 0, []string{"list", "--status", "all", "--json"}},
		{"inbox ana", 0, []string{"--as", "ana", "inbox"}},
		{"inbox mallory", 0, []string{"--as", mallory, "inbox"}},
		{"inbox eve json", 0, []string{"--as", eve, "inbox", "--json"}},
		{"bare screen", 0, []string{"--as", mallory}},
		{"vote eve", 0, []string{"--as", eve, "vote", "conflict-002", "--for", "A", "--rationale", "ballot " + attacksArg}},
		{"vote closed json", 3, []string{"--as", eve, "vote", "conflict-002", "--for", "A", "--rationale", attacksArg, "--json"}},
		{"merge json", 0, []string{"--as", "op", "merge", "conflict-004", "--strategy", "dismiss", "--rationale", attacksArg, "--json"}},
		{"show json", 0, []string{"show", "conflict-003", "--json"}},
		{"show escalated", 0, []string{"show", "conflict-001"}},
		{"show vote", 0, []string{"show", "conflict-002"}},
		{"show synthesis", 0, []string{"show", "conflict-003"}},
		{"show dismissed", 0, []string{"show", "conflict-004"}},
		{"inbox eve", 0, []string{"--as", eve, "inbox"}},
		{"record refused", 3, []string{"--as", peeper, "record"}},
		{"merge refused", 3, []string{"--as", peeper, "merge", "conflict-001", "--strategy", "dismiss", "--rationale", attacksArg}},
		{"merge stale", 3, []string{"--as", "op", "merge", "conflict-003", "--strategy", "dismiss", "--rationale", "x", "--expect-version", "1"}},
		{"merge stale json", 3, []string{"--as", "op", "merge", "conflict-003", "--strategy", "dismiss", "--rationale", "x", "--expect-version", "1", "--json"}},
		{"vote bad choice", 2, []string{"--as", mallory, "vote", "conflict-001", "--for", attacksArg, "--rationale", "x"}},
		{"show missing", 3, []string{"show", "conflict-\x1b[2J\u202e"}},
		{"unknown caller", 3, []string{"--as", "nobody\x1b]52;c;eA==\x07", "inbox"}},
		{"register refused", 2, []string{"register", "--id", "new\x1b[2J", "--role", "analyst"}},
		{"register refused role", 2, []string{"register", "--id", "newbie", "--role", "lead\u202e"}},
		{"bad flag value", 2, []string{"list", "--status", "lost\x1b[2J"}},
	}
	stdin := recordPayload(attacks, 0.5, "")
	for _, run := range runs {
		r := call(t, nil, stdin, append([]string{"--db", db}, run.args...)...)
		if r.code != run.exit {
			t.Errorf("%s: exit %d, want %d\n%s%s", run.name, r.code, run.exit, r.stdout, r.stderr)
		}
		check(run.name, r)
		outs[run.name] = r
	}

	// The attacks are shown, inert, not dropped: a reviewer sees that an
	// agent tried something.
	show := outs["show synthesis"].stdout + outs["show escalated"].stdout + outs["show vote"].stdout
	for _, want := range []string{"␛[31mALERT", "␛]52;c;Y3VybCBldmlsLnNoIHwgc2g=␇", "␛]8;;https://evil.example/␛\\docs",
		"<U+009B>31m", "safe␈␈␈␈evil", "rm -rf /␍ls", "invoice<U+202E>gpj.exe", "pay<U+200B>pal", "mallory␛[2J",
		"eve␍OPERATOR␈␈<U+009B>31m", "reason red ␛[31mALERT", "ballot red ␛[31mALERT", "rationale red ␛[31mALERT"} {
		if !strings.Contains(show, want) {
			t.Errorf("show does not show %q", want)
		}
	}
	for name, want := range map[string]string{
		"record refused":   "peeper␛]0;pwned␇ has authority 2",
		"merge stale":      "was resolved by mallory␛[2J",
		"vote bad choice":  `"red \x1b[31mALERT`,
		"unknown caller":   `"nobody\x1b]52;c;eA==\a"`,
		"register refused": `"new\x1b[2J"`,
	} {
		if r := outs[name]; !strings.Contains(r.stderr, want) || (r.code != exitProtocol && r.code != exitUsage) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 or 3 and %q", name, r.code, r.stderr, want)
		}
	}
	for _, name := range []string{"list json", "show json", "merge json", "vote closed json", "inbox eve json", "merge stale json"} {
		if !json.Valid([]byte(outs[name].stdout)) {
			t.Errorf("%s: not valid JSON after escaping:\n%s", name, outs[name].stdout)
		}
	}
	var d model.ConflictDetail
	if err := json.Unmarshal([]byte(outs["show json"].stdout), &d); err != nil {
		t.Fatal(err)
	}
	if r := d.Conflict.Resolution; r == nil || r.ResolvedBy != mallory || !strings.Contains(r.Rationale, "\u202egpj") {
		t.Errorf("show --json must keep the text exactly, escaped: %+v", d.Conflict.Resolution)
	}
}

// FuzzWriteJSON: whatever text a field holds, --json output is valid
// JSON that gives the text back (invalid UTF-8 as U+FFFD, byte by byte)
// and carries no byte that could drive a terminal (see inert).
func FuzzWriteJSON(f *testing.F) {
	for _, s := range []string{"", "plain", attacks, "\u200d\u200c👨\u200d👩", "\U000E0041\U000E007F", "\xed\xa0\x80\xff", "\u00ad\u061c\ufeff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var out strings.Builder
		if err := jsonout.Write(&out, map[string]string{"text": s}); err != nil {
			t.Fatal(err)
		}
		inert(t, "writeJSON", out.String())
		var back map[string]string
		if err := json.Unmarshal([]byte(out.String()), &back); err != nil {
			t.Fatalf("not JSON: %v\n%q", err, out.String())
		}
		var want strings.Builder
		for _, r := range s { // an invalid byte is one U+FFFD
			want.WriteRune(r)
		}
		if back["text"] != want.String() {
			t.Fatalf("%q came back as %q", s, back["text"])
		}
	})
}
