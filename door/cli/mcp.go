package cli

import (
	"arbiter/store/field"
	"context"
	"fmt"
	"io"

	"arbiter/door/config"
	"arbiter/door/mcpserver"
	"arbiter/model"
	"arbiter/service/review"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

func (a *app) mcpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp --db FILE --as AGENT",
		Short: "Serve the field to one agent over the Model Context Protocol (stdio)",
		Long: `Serve the field to the agent --as over MCP on stdin and stdout, for an MCP
client (a coding assistant, an agent framework) to start as a subprocess:

  {"mcpServers": {"arbiter": {"command": "arbiter",
    "args": ["mcp", "--db", "/srv/fields/team.db", "--as", "ana"]}}}

Tools: record, conflicts, conflict, unit, merge, vote, inbox, acting as --as
under the field's rules. Resources: arbiter://inbox and arbiter://conflicts/{id};
a subscribed client hears within a second when they change, whoever wrote.
--as is required (exit 2 without) and must be a registered agent (exit 1
otherwise). stdout carries only the protocol; notices go to stderr. See
docs/mcp.md.`,
		Args: cobra.NoArgs,
		RunE: a.fieldCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, _ []string) error {
			srv, err := mcpserver.New(ctx, svc.WithDetectCache(detectCacheBytes), cfg.As, mcpserver.Options{Notices: a.stderr})
			if pe, ok := model.AsError(err); ok && pe.Code == model.CodeAgentNotRegistered {
				// Exit 1, not 3: the server cannot start at all.
				return fmt.Errorf("mcp: %q is not a registered agent of %s (register it with `arbiter register`)", cfg.As, field.Redact(cfg.DB))
			}
			if err != nil {
				return fmt.Errorf("mcp: %s", err)
			}
			fmt.Fprintf(a.stderr, "arbiter: serving %s to %s over MCP on stdio\n", clean(field.Redact(cfg.DB)), clean(cfg.As))
			return srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(a.stdin), Writer: nopWriteCloser{a.stdout}})
		}),
	}
}

// nopWriteCloser leaves stdout open when the session ends.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
