// Package config gathers arbiter's settings from, in order of precedence,
// command-line flags, ARBITER_* environment variables, a config file and
// defaults, into one typed Config.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"arbiter/internal/keymap"
	"arbiter/internal/queueview"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// Config is everything arbiter can be told before it starts.
type Config struct {
	// DB is the field's file; empty when none was given.
	DB string
	// As is the registered agent or person arbiter acts for.
	As string
	// ReadOnly opens the field without writing to it.
	ReadOnly bool
	// ConfigFile is the config file that was read; empty when none was.
	ConfigFile string
	// Theme is the review screen's colours: "auto", "dark" or "light".
	Theme string
	// Keys are the review screen's key bindings: the defaults, with the
	// config file's rebindings (keys: {name: [keys]}) applied.
	Keys keymap.Map
	// DecisionsOut is a file the review screen appends its decisions to;
	// empty for none.
	DecisionsOut string
	// BusyTimeout is how long a write waits for another writer's lock;
	// zero means the store's default.
	BusyTimeout time.Duration
	// Views are the review screen's named filters of the queue, in the
	// config file's order (views: [{name, query}]).
	Views []queueview.View
	// ListenDB is a direct connection to the field's PostgreSQL server,
	// used only to be told of changes when DB goes through a connection
	// pooler; empty for none.
	ListenDB string
}

// Setting names, as written in the config file. The environment variable
// of a setting is ARBITER_ and its name in capitals (ARBITER_READ_ONLY);
// its flag, if it has one, uses dashes (--read-only).
const (
	keyDB           = "db"
	keyAs           = "as"
	keyReadOnly     = "read_only"
	keyTheme        = "theme"
	keyKeys         = "keys"
	keyDecisionsOut = "decisions_out"
	keyBusyTimeout  = "busy_timeout"
	keyListenDB     = "listen_db"
	keyViews        = "views"
)

var settings = []string{keyAs, keyBusyTimeout, keyDB, keyDecisionsOut, keyKeys, keyListenDB, keyReadOnly, keyTheme, keyViews}

// Themes lists the accepted values of Theme.
var Themes = []string{"auto", "dark", "light"}

// ConfigFlag is the flag (and, as ARBITER_CONFIG, the environment variable)
// naming the config file explicitly.
const ConfigFlag = "config"

// Load reads the settings. flags may hold any of --db, --as, --read-only,
// --theme, --decisions-out, --busy-timeout, --listen-db and --config; those present
// and set on the command line win over everything else.
//
// The config file is --config (or ARBITER_CONFIG) when given, and must
// then exist; otherwise $XDG_CONFIG_HOME/arbiter/config.yaml (or
// ~/.config/arbiter/config.yaml), read only if it is there. It is YAML
// unless its name ends in .json or .toml.
func Load(flags *pflag.FlagSet) (Config, error) {
	v := viper.New()
	file, explicit, err := configPath(flags)
	if err != nil {
		return Config{}, err
	}
	cfg := Config{}
	if file != "" {
		if err := readFile(v, file, explicit); err != nil {
			return Config{}, err
		}
		if v.ConfigFileUsed() != "" {
			cfg.ConfigFile = file
		}
	}

	v.SetDefault(keyTheme, "auto")
	v.SetEnvPrefix("ARBITER")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	if flags != nil {
		for _, key := range settings {
			if f := flags.Lookup(strings.ReplaceAll(key, "_", "-")); f != nil {
				if err := v.BindPFlag(key, f); err != nil {
					return Config{}, err
				}
			}
		}
	}

	cfg.DB = strings.TrimSpace(v.GetString(keyDB))
	cfg.As = strings.TrimSpace(v.GetString(keyAs))
	cfg.DecisionsOut = strings.TrimSpace(v.GetString(keyDecisionsOut))
	cfg.ListenDB = strings.TrimSpace(v.GetString(keyListenDB))
	if cfg.ReadOnly, err = boolSetting(v.Get(keyReadOnly)); err != nil {
		return Config{}, settingError(keyReadOnly, err)
	}
	cfg.Theme = strings.ToLower(strings.TrimSpace(v.GetString(keyTheme)))
	if !slices.Contains(Themes, cfg.Theme) {
		return Config{}, settingError(keyTheme, fmt.Errorf("%q is not one of %s", cfg.Theme, strings.Join(Themes, ", ")))
	}
	if cfg.BusyTimeout, err = durationSetting(v.Get(keyBusyTimeout)); err != nil {
		return Config{}, settingError(keyBusyTimeout, err)
	}
	if cfg.Keys, err = keysSetting(v.Get(keyKeys)); err != nil {
		if cfg.ConfigFile != "" {
			return Config{}, fmt.Errorf("config %s: %s: %w", cfg.ConfigFile, keyKeys, err)
		}
		return Config{}, settingError(keyKeys, err)
	}
	if cfg.Views, err = viewsSetting(v.Get(keyViews)); err != nil {
		if cfg.ConfigFile != "" {
			return Config{}, fmt.Errorf("config %s: %s: %w", cfg.ConfigFile, keyViews, err)
		}
		return Config{}, settingError(keyViews, err)
	}
	return cfg, nil
}

// DefaultFile is the config file read when none is named:
// $XDG_CONFIG_HOME/arbiter/config.yaml, or ~/.config/arbiter/config.yaml.
// It is "" when neither directory can be found.
func DefaultFile() string {
	if dir := os.Getenv("XDG_CONFIG_HOME"); dir != "" {
		return filepath.Join(dir, "arbiter", "config.yaml")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "arbiter", "config.yaml")
}

// configPath returns the config file to read, and whether it was named
// explicitly (so that its absence is an error).
func configPath(flags *pflag.FlagSet) (string, bool, error) {
	if flags != nil {
		if f := flags.Lookup(ConfigFlag); f != nil && f.Changed {
			if f.Value.String() == "" {
				return "", false, errors.New("--config needs a file name")
			}
			return f.Value.String(), true, nil
		}
	}
	if file := os.Getenv("ARBITER_CONFIG"); file != "" {
		return file, true, nil
	}
	return DefaultFile(), false, nil
}

// readFile reads the config file into v. A default file that is not there
// is skipped; an explicit one must exist.
func readFile(v *viper.Viper, file string, explicit bool) error {
	if _, err := os.Stat(file); err != nil {
		if errors.Is(err, fs.ErrNotExist) && !explicit {
			return nil
		}
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("config %s: no such file", file)
		}
		return fmt.Errorf("config %s: %w", file, err)
	}
	v.SetConfigFile(file)
	switch strings.ToLower(filepath.Ext(file)) {
	case ".json":
		v.SetConfigType("json")
	case ".toml":
		v.SetConfigType("toml")
	default:
		v.SetConfigType("yaml")
	}
	if err := v.ReadInConfig(); err != nil {
		var pe viper.ConfigParseError
		if errors.As(err, &pe) {
			err = pe.Unwrap()
		}
		return fmt.Errorf("config %s is malformed: %v", file, oneLine(err.Error()))
	}
	for _, key := range v.AllKeys() {
		top, _, _ := strings.Cut(key, ".")
		if !slices.Contains(settings, top) {
			return fmt.Errorf("config %s: unknown setting %q (known: %s)", file, top, strings.Join(settings, ", "))
		}
	}
	return nil
}

func settingError(key string, err error) error {
	return fmt.Errorf("setting %s (ARBITER_%s): %w", key, strings.ToUpper(key), err)
}

func boolSetting(val any) (bool, error) {
	switch x := val.(type) {
	case nil:
		return false, nil
	case bool:
		return x, nil
	case string:
		if strings.TrimSpace(x) == "" {
			return false, nil
		}
		b, err := strconv.ParseBool(strings.TrimSpace(x))
		if err != nil {
			return false, fmt.Errorf("%q is not true or false", x)
		}
		return b, nil
	}
	return false, fmt.Errorf("%v is not true or false", val)
}

// durationSetting accepts Go durations ("5s", "1m30s") and plain numbers
// of seconds.
func durationSetting(val any) (time.Duration, error) {
	var d time.Duration
	switch x := val.(type) {
	case nil:
		return 0, nil
	case time.Duration:
		d = x
	case int:
		d = time.Duration(x) * time.Second
	case int64:
		d = time.Duration(x) * time.Second
	case float64:
		d = time.Duration(x * float64(time.Second))
	case string:
		s := strings.TrimSpace(x)
		if s == "" {
			return 0, nil
		}
		if secs, err := strconv.ParseFloat(s, 64); err == nil {
			d = time.Duration(secs * float64(time.Second))
			break
		}
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("%q is not a duration (like 5s or 1m)", x)
		}
	default:
		return 0, fmt.Errorf("%v is not a duration (like 5s or 1m)", val)
	}
	if d < 0 {
		return 0, fmt.Errorf("%s is negative", d)
	}
	return d, nil
}

// keysSetting reads the rebindings, each name mapped to one key or a
// list of keys, and applies them to the default bindings. An unknown
// name, an empty key, or two bindings of one screen sharing a key is an
// error (keymap.New).
func keysSetting(val any) (keymap.Map, error) {
	out := map[string][]string{}
	if val == nil {
		return keymap.Default(), nil
	}
	m, ok := val.(map[string]any)
	if !ok {
		return keymap.Map{}, errors.New("must be a map of binding names to keys, set in the config file")
	}
	for name, keys := range m {
		switch x := keys.(type) {
		case string:
			out[name] = []string{x}
		case int, int64, float64:
			out[name] = []string{fmt.Sprint(x)}
		case []any:
			list := make([]string, 0, len(x))
			for _, k := range x {
				switch k.(type) {
				case string, int, int64, float64:
					list = append(list, fmt.Sprint(k))
				default:
					return keymap.Map{}, fmt.Errorf("%s: %v is not a key name", name, k)
				}
			}
			out[name] = list
		case nil:
			out[name] = nil
		default:
			return keymap.Map{}, fmt.Errorf("%s: want a key or a list of keys", name)
		}
	}
	return keymap.New(out)
}

// viewsSetting reads the views: a list of {name, query}, each query of
// queueview's terms; two views of one name are an error.
func viewsSetting(val any) ([]queueview.View, error) {
	if val == nil {
		return nil, nil
	}
	list, ok := val.([]any)
	if !ok {
		return nil, errors.New("must be a list of views, each a name and a query, set in the config file")
	}
	var out []queueview.View
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("view %d: want a name and a query", i+1)
		}
		for k := range m {
			if k != "name" && k != "query" {
				return nil, fmt.Errorf("view %d: unknown field %q (a view has a name and a query)", i+1, k)
			}
		}
		name, _ := m["name"].(string)
		query, _ := m["query"].(string)
		v, err := queueview.Parse(name, query)
		if err != nil {
			return nil, fmt.Errorf("view %d: %w", i+1, err)
		}
		if slices.ContainsFunc(out, func(o queueview.View) bool { return strings.EqualFold(o.Name, v.Name) }) {
			return nil, fmt.Errorf("view %d: two views are named %q", i+1, v.Name)
		}
		out = append(out, v)
	}
	return out, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
