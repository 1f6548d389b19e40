package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// versionLine is what `arbiter version` and `arbiter --version` print:
// the module's version, and the commit it was built from when the build
// recorded one (a build in a git checkout does; `go install …@version`
// gives the version alone).
func versionLine() string {
	version, commit, when, modified := "(unknown)", "", "", false
	if info, ok := debug.ReadBuildInfo(); ok {
		if v := info.Main.Version; v != "" {
			version = v
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	var parts []string
	if commit != "" {
		c := "commit " + commit[:min(len(commit), 12)]
		if modified {
			c += " with local changes"
		}
		parts = append(parts, c)
	}
	if when != "" {
		parts = append(parts, "of "+when)
	}
	parts = append(parts, runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH)
	return fmt.Sprintf("arbiter %s (%s)", version, strings.Join(parts, ", "))
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print arbiter's version and the commit it was built from",
		Args:  cobra.NoArgs,
		RunE: a.do(func(*cobra.Command, []string) error {
			fmt.Fprintln(a.stdout, versionLine())
			return nil
		}),
	}
}
