package cli

import (
	"context"
	"fmt"

	"arbiter/door/config"
	"arbiter/model"
	"arbiter/service/review"

	"github.com/spf13/cobra"
)

func (a *app) registerCmd() *cobra.Command {
	var ag model.Agent
	var kind string
	cmd := &cobra.Command{
		Use:   "register --id ID --role ROLE [--kind agent|human] [--authority N] [--db-role NAME]",
		Short: "Register an agent or a person with the field",
		Long: `Register an agent or a person. Authority levels: 10 human operator (decides
escalated conflicts; people only), 8 session creator, 6 senior agent (may
decide conflicts), 4 standard agent (records; may escalate), 2 observer, 0 audit.

--db-role binds the agent to a database role: on a PostgreSQL field only
sessions of that role (or of a role granted it) may act as the agent, which
the server checks on every write (docs/postgres.md). A SQLite file stores and
shows the binding but cannot enforce it.`,
		Args: cobra.NoArgs,
		PreRunE: func(*cobra.Command, []string) error {
			if ag.Kind = model.AgentKind(kind); !ag.Kind.Valid() {
				return usageErrorf("--kind %q: use agent or human", kind)
			}
			return nil
		},
		RunE: a.writingCommand(func(ctx context.Context, _ config.Config, svc *review.Service, _ []string) error {
			got, err := svc.Register(ctx, ag)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "registered %s: role %s, %s, authority %d", clean(got.ID), clean(got.Role), got.Kind, got.Authority)
			if got.DBRole != "" {
				fmt.Fprintf(a.stdout, ", database role %s", clean(got.DBRole))
			}
			fmt.Fprintln(a.stdout)
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&ag.ID, "id", "", "the agent's id (required)")
	fl.StringVar(&ag.Role, "role", "", "the agent's role, e.g. analyst or lead (required)")
	fl.StringVar(&kind, "kind", string(model.KindAgent), "agent (a program) or human (a person)")
	fl.IntVar(&ag.Authority, "authority", model.AuthorityStandard, "authority level, 0 to 10")
	fl.StringVar(&ag.DBRole, "db-role", "", "the database role that alone may act as the agent (enforced on PostgreSQL)")
	cmd.MarkFlagRequired("id")
	cmd.MarkFlagRequired("role")
	return cmd
}
