package cli

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"arbiter/internal/safetext"
	"arbiter/store/field"

	"github.com/spf13/cobra"
)

// clean is field text made safe for one line of a terminal.
func clean(s string) string { return safetext.Line(s) }

// clip is clean(s) cut to at most n characters, marked with "…" if cut.
func clip(s string, n int) string {
	s = clean(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}

// cleanList is ids or other field text, cleaned and joined with commas;
// "none" for an empty list.
func cleanList(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = clean(s)
	}
	return strings.Join(out, ", ")
}

// indentBlock is multi-line field text made safe, each line indented.
func indentBlock(s, indent string) string {
	lines := strings.Split(strings.TrimRight(safetext.Block(s), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(indent+l, " ")
	}
	return strings.Join(lines, "\n")
}

// age is a short duration for a table: "45s", "12m", "3h", "4d".
func age(since time.Time, now time.Time) string {
	if since.IsZero() {
		return "-"
	}
	d := now.Sub(since)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d.Seconds())))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// when is a moment for people: local time and how long ago.
func when(t time.Time, now time.Time) string {
	if t.IsZero() {
		return "unknown time"
	}
	return fmt.Sprintf("%s (%s ago)", t.Local().Format("2006-01-02 15:04:05 MST"), age(t, now))
}

// shellQuote quotes s for a shell command line when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// asGiven is "arbiter" with the field and the caller as cmd's command line
// gave them (--db, --as): what a command line that arbiter prints for the
// person to run next must carry to work as this one did. What came from
// the environment or the config file comes again from there.
func asGiven(cmd *cobra.Command) string {
	out := "arbiter"
	for _, name := range []string{"db", "as"} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			v := f.Value.String()
			if name == "db" {
				v = field.Redact(v)
			}
			out += " --" + name + " " + shellQuote(v)
		}
	}
	return out
}
