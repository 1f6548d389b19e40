package cli

import (
	"errors"
	"fmt"
	"strings"

	"arbiter/internal/suggest"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// plainFlagError is cobra's refusal of a flag's value in plain words:
// `--expect-version "abc" is not a whole number`, not the parser's own.
func plainFlagError(cmd *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if errors.As(err, &ne) && ne.GetSpecifiedShortnames() == "" {
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if close := suggest.Closest(ne.GetSpecifiedName(), names); len(close) > 0 {
			for i := range close {
				close[i] = "--" + close[i]
			}
			return usageErrorf("%s; %s", err, suggest.Phrase(close))
		}
		return &usageError{err}
	}
	var iv *pflag.InvalidValueError
	if !errors.As(err, &iv) {
		return &usageError{err}
	}
	f := iv.GetFlag()
	return usageErrorf("--%s %q is not %s", f.Name, iv.GetValue(), kindOf(f.Value.Type()))
}

// kindOf names the values a flag of type typ takes.
func kindOf(typ string) string {
	switch {
	case strings.HasPrefix(typ, "int"), strings.HasPrefix(typ, "uint"):
		return "a whole number"
	case strings.HasPrefix(typ, "float"):
		return "a number"
	case typ == "bool":
		return "true or false"
	case typ == "duration":
		return "a duration (such as 90s, 15m or 4h)"
	}
	return "a " + typ
}

// noCommand refuses arguments to a command that takes none and has
// subcommands: an unknown command, with cobra's suggestions.
func noCommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's default, which SuggestionsFor does not apply
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return errors.New(msg)
}
