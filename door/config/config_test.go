package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"arbiter/internal/keymap"

	"github.com/spf13/pflag"
)

// isolate points the default config file into a fresh directory and
// clears every ARBITER_* variable the caller's shell may have set.
func isolate(t *testing.T) (configHome string) {
	t.Helper()
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "ARBITER_") {
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
	configHome = t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", configHome)
	return configHome
}

// flags returns the global flags as main defines them, parsed from args.
func flags(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("arbiter", pflag.ContinueOnError)
	fs.String("db", "", "")
	fs.String("as", "", "")
	fs.Bool("read-only", false, "")
	fs.String("config", "", "")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func load(t *testing.T, fs *pflag.FlagSet) Config {
	t.Helper()
	cfg, err := Load(fs)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return cfg
}

func TestDefaultsWithNothingGiven(t *testing.T) {
	isolate(t)
	cfg := load(t, flags(t))
	want := Config{Theme: "auto", Keys: keymap.Default()}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("got %+v, want %+v", cfg, want)
	}
}

func TestFlagBeatsEnvironmentBeatsFileBeatsDefault(t *testing.T) {
	home := isolate(t)
	writeFile(t, filepath.Join(home, "arbiter", "config.yaml"),
		"db: file.db\nas: file-agent\ntheme: light\nread_only: true\nbusy_timeout: 2s\n")
	t.Setenv("ARBITER_DB", "env.db")
	t.Setenv("ARBITER_AS", "env-agent")

	cfg := load(t, flags(t, "--db", "flag.db"))
	if cfg.DB != "flag.db" {
		t.Errorf("DB = %q, want the flag's flag.db", cfg.DB)
	}
	if cfg.As != "env-agent" {
		t.Errorf("As = %q, want the environment's env-agent", cfg.As)
	}
	if cfg.Theme != "light" || !cfg.ReadOnly || cfg.BusyTimeout != 2*time.Second {
		t.Errorf("theme %q, read-only %v, busy %v: want the file's light, true, 2s", cfg.Theme, cfg.ReadOnly, cfg.BusyTimeout)
	}
	if cfg.DecisionsOut != "" {
		t.Errorf("DecisionsOut = %q, want the default empty", cfg.DecisionsOut)
	}
	if want := filepath.Join(home, "arbiter", "config.yaml"); cfg.ConfigFile != want {
		t.Errorf("ConfigFile = %q, want %q", cfg.ConfigFile, want)
	}
}

func TestEnvironmentOverridesFileForReadOnlyAndTheme(t *testing.T) {
	home := isolate(t)
	writeFile(t, filepath.Join(home, "arbiter", "config.yaml"), "read_only: true\ntheme: light\n")
	t.Setenv("ARBITER_READ_ONLY", "false")
	t.Setenv("ARBITER_THEME", "dark")
	cfg := load(t, flags(t))
	if cfg.ReadOnly || cfg.Theme != "dark" {
		t.Fatalf("read-only %v, theme %q: want the environment's false, dark", cfg.ReadOnly, cfg.Theme)
	}
}

func TestReadOnlyFlagBeatsEnvironment(t *testing.T) {
	isolate(t)
	t.Setenv("ARBITER_READ_ONLY", "0")
	if cfg := load(t, flags(t, "--read-only")); !cfg.ReadOnly {
		t.Fatal("--read-only did not win over ARBITER_READ_ONLY=0")
	}
}

func TestUnsetFlagDoesNotHideEnvironment(t *testing.T) {
	isolate(t)
	t.Setenv("ARBITER_DB", "env.db")
	if cfg := load(t, flags(t, "--as", "me")); cfg.DB != "env.db" {
		t.Fatalf("DB = %q, want env.db: a flag left at its default must not override", cfg.DB)
	}
}

func TestExplicitConfigFileReplacesDefaultFile(t *testing.T) {
	home := isolate(t)
	writeFile(t, filepath.Join(home, "arbiter", "config.yaml"), "db: default.db\n")
	other := writeFile(t, filepath.Join(t.TempDir(), "team.yaml"), "db: team.db\nas: lead\n")
	cfg := load(t, flags(t, "--config", other))
	if cfg.DB != "team.db" || cfg.As != "lead" || cfg.ConfigFile != other {
		t.Fatalf("got %+v, want team.db, lead from %s", cfg, other)
	}
}

func TestConfigFileFromEnvironment(t *testing.T) {
	isolate(t)
	other := writeFile(t, filepath.Join(t.TempDir(), "team.json"), `{"db": "team.db"}`)
	t.Setenv("ARBITER_CONFIG", other)
	if cfg := load(t, flags(t)); cfg.DB != "team.db" {
		t.Fatalf("DB = %q, want team.db from ARBITER_CONFIG's JSON file", cfg.DB)
	}
}

func TestMissingDefaultFileIsFine(t *testing.T) {
	isolate(t)
	if cfg := load(t, flags(t)); cfg.ConfigFile != "" {
		t.Fatalf("ConfigFile = %q, want none", cfg.ConfigFile)
	}
}

func TestMissingExplicitFileIsAnError(t *testing.T) {
	isolate(t)
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	_, err := Load(flags(t, "--config", missing))
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("err = %v, want a no-such-file error naming %s", err, missing)
	}
}

func TestMalformedFileIsOneClearError(t *testing.T) {
	home := isolate(t)
	path := writeFile(t, filepath.Join(home, "arbiter", "config.yaml"), "db: [unclosed\nas: x\n")
	_, err := Load(flags(t))
	if err == nil {
		t.Fatal("a malformed file loaded")
	}
	msg := err.Error()
	if !strings.Contains(msg, path) || !strings.Contains(msg, "malformed") || strings.Contains(msg, "\n") {
		t.Fatalf("err = %q, want one line naming %s as malformed", msg, path)
	}
}

func TestUnknownSettingIsAnError(t *testing.T) {
	home := isolate(t)
	writeFile(t, filepath.Join(home, "arbiter", "config.yaml"), "dbpath: x.db\n")
	_, err := Load(flags(t))
	if err == nil || !strings.Contains(err.Error(), `"dbpath"`) {
		t.Fatalf("err = %v, want the unknown setting named", err)
	}
}

func TestBadValuesAreRefused(t *testing.T) {
	for name, env := range map[string][2]string{
		"theme":        {"ARBITER_THEME", "purple"},
		"read-only":    {"ARBITER_READ_ONLY", "maybe"},
		"busy timeout": {"ARBITER_BUSY_TIMEOUT", "soon"},
	} {
		t.Run(name, func(t *testing.T) {
			isolate(t)
			t.Setenv(env[0], env[1])
			_, err := Load(flags(t))
			if err == nil || !strings.Contains(err.Error(), env[0]) {
				t.Fatalf("err = %v, want a refusal naming %s", err, env[0])
			}
		})
	}
}

func TestKeysAndOtherFileSettings(t *testing.T) {
	home := isolate(t)
	writeFile(t, filepath.Join(home, "arbiter", "config.yaml"), `
decisions_out: decisions.jsonl
busy_timeout: 1.5
keys:
  quit: [q, ctrl+q]
  decide: e
`)
	cfg := load(t, flags(t))
	if got := cfg.Keys.Quit.Keys(); !reflect.DeepEqual(got, []string{"q", "ctrl+q"}) {
		t.Errorf("quit keys = %v, want [q ctrl+q]", got)
	}
	if got := cfg.Keys.Decide.Keys(); !reflect.DeepEqual(got, []string{"e"}) {
		t.Errorf("decide keys = %v, want [e]", got)
	}
	if cfg.DecisionsOut != "decisions.jsonl" || cfg.BusyTimeout != 1500*time.Millisecond {
		t.Errorf("decisions-out %q, busy %v: want decisions.jsonl, 1.5s", cfg.DecisionsOut, cfg.BusyTimeout)
	}
}

// loadKeys loads a config file whose keys section is keys.
func loadKeys(t *testing.T, keys string) (Config, error) {
	t.Helper()
	home := isolate(t)
	writeFile(t, filepath.Join(home, "arbiter", "config.yaml"), "keys:\n"+keys)
	return Load(flags(t))
}

func TestRebindingsLoadWhateverTheSpellingOfTheirNames(t *testing.T) {
	cfg, err := loadKeys(t, `
  back: [ctrl+b]
  decide: [e]
  PageDown: [pgdown, ctrl+d, space]
  mark: [x]
  open: [o]
  all-statuses: "Z"
`)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	for name, got := range map[string][]string{"back": cfg.Keys.Back.Keys(), "decide": cfg.Keys.Decide.Keys(),
		"page_down": cfg.Keys.PageDown.Keys(), "open": cfg.Keys.Open.Keys(), "all_statuses": cfg.Keys.AllStatuses.Keys()} {
		want := map[string][]string{"back": {"ctrl+b"}, "decide": {"e"}, "page_down": {"pgdown", "ctrl+d", "space"},
			"open": {"o"}, "all_statuses": {"Z"}}[name]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s keys = %v, want %v", name, got, want)
		}
	}
	if h := cfg.Keys.Back.Help().Key; h != "ctrl+b" {
		t.Errorf("back's help names %q, want its new key ctrl+b", h)
	}
	if got := cfg.Keys.Quit.Keys(); !reflect.DeepEqual(got, []string{"q"}) {
		t.Errorf("quit keys = %v: a binding left alone keeps its default", got)
	}
}

func TestUnknownBindingNameIsAnErrorListingTheNames(t *testing.T) {
	_, err := loadKeys(t, "  bogus_action: x\n  decide: e\n")
	if err == nil {
		t.Fatal("an unknown binding name loaded")
	}
	msg := err.Error()
	for _, want := range append([]string{`"bogus_action"`, "config.yaml"}, keymap.Names()...) {
		if !strings.Contains(msg, want) {
			t.Errorf("err = %q, want it to name %s", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("err = %q, want one line", msg)
	}
}

func TestKeySharedByTwoBindingsOfOneScreenIsAnError(t *testing.T) {
	_, err := loadKeys(t, "  open: [space]\n")
	if err == nil {
		t.Fatal("open on space loaded, though mark holds space on the queue")
	}
	for _, want := range []string{`"space"`, "open", "mark", "the queue"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %q, want it to name %s", err, want)
		}
	}
}

func TestBindingsOfDifferentScreensMayShareAKey(t *testing.T) {
	// tab: next pane on a conflict, next field in a form; y: only in a
	// confirmation.
	cfg, err := loadKeys(t, "  next_pane: [ctrl+n]\n  next: [ctrl+n]\n  confirm: [s]\n")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got := cfg.Keys.Next.Keys(); !reflect.DeepEqual(got, []string{"ctrl+n"}) {
		t.Errorf("next keys = %v", got)
	}
}

func TestEmptyKeyListIsAnError(t *testing.T) {
	for _, keys := range []string{"  open: []\n", "  open:\n", "  open: \"\"\n"} {
		_, err := loadKeys(t, keys)
		if err == nil || !strings.Contains(err.Error(), "open") {
			t.Errorf("keys %q: err = %v, want a refusal naming open", keys, err)
		}
	}
}

func TestLoadWithoutFlags(t *testing.T) {
	isolate(t)
	t.Setenv("ARBITER_DB", "env.db")
	if cfg := load(t, nil); cfg.DB != "env.db" {
		t.Fatalf("DB = %q, want env.db", cfg.DB)
	}
}

// listen_db comes from the config file, ARBITER_LISTEN_DB or
// --listen-db, the flag first.
func TestListenDBFromFileEnvironmentOrFlag(t *testing.T) {
	home := isolate(t)
	writeFile(t, filepath.Join(home, "arbiter", "config.yaml"), "listen_db: postgres://db.example/file\n")
	withListen := func(args ...string) *pflag.FlagSet {
		fs := flags(t)
		fs.String("listen-db", "", "")
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return fs
	}
	if got := load(t, withListen()).ListenDB; got != "postgres://db.example/file" {
		t.Errorf("from the file: %q", got)
	}
	t.Setenv("ARBITER_LISTEN_DB", "postgres://db.example/env")
	if got := load(t, withListen()).ListenDB; got != "postgres://db.example/env" {
		t.Errorf("from the environment: %q", got)
	}
	if got := load(t, withListen("--listen-db", "postgres://db.example/flag")).ListenDB; got != "postgres://db.example/flag" {
		t.Errorf("from the flag: %q", got)
	}
}

func TestViewsLoadInTheFilesOrder(t *testing.T) {
	home := isolate(t)
	writeFile(t, filepath.Join(home, "arbiter", "config.yaml"), `
views:
  - name: Mine
    query: mine
  - name: Overdue escalations
    query: status:escalated due:overdue
  - name: Factual
    query: type:factual owner:me
`)
	cfg := load(t, flags(t))
	var names []string
	for _, v := range cfg.Views {
		names = append(names, v.Name)
	}
	if !reflect.DeepEqual(names, []string{"Mine", "Overdue escalations", "Factual"}) {
		t.Fatalf("views %v", names)
	}
	if v := cfg.Views[1]; !v.Overdue || len(v.Statuses) != 1 || v.Statuses[0] != "escalated" {
		t.Errorf("the second view is %+v", v)
	}
	if !cfg.Views[0].Mine || cfg.Views[2].Owner != "me" {
		t.Errorf("views %+v", cfg.Views)
	}
}

func TestABadViewIsOneErrorNamingTheFileAndTheView(t *testing.T) {
	for text, want := range map[string]string{
		"views:\n  - name: Soon\n    query: due:soonish\n":                     `view 1: view "Soon": due:soonish is not overdue or a duration`,
		"views:\n  - name: A\n    query: mine\n  - name: a\n    query: mine\n": `view 2: two views are named "a"`,
		"views:\n  - name: A\n    query: mine\n    colour: red\n":              `view 1: unknown field "colour"`,
		"views:\n  - name: A\n": `view "A" has no query`,
		"views: mine\n":         "must be a list of views",
	} {
		home := isolate(t)
		file := writeFile(t, filepath.Join(home, "arbiter", "config.yaml"), text)
		_, err := Load(flags(t))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), file+": views: ") {
			t.Errorf("%q: %v, want an error saying %q", text, err, want)
		}
	}
}
