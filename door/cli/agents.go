package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"arbiter/door/config"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/review"

	"github.com/spf13/cobra"
)

// agentJSON is one row of agents --json: the agent and what it may do.
type agentJSON struct {
	model.Agent
	May model.Capabilities `json:"may"`
}

func (a *app) agentsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List every agent and person of the field, and what each may do",
		Long: `List every registered agent and person: role, kind (agent or human),
authority, and what the field's policy lets each do — record units (and
escalate), decide open conflicts, decide escalated ones, vote, and the
conflict types each decides by authority. --json prints them as objects with
a "may" object.`,
		Args: cobra.NoArgs,
		RunE: a.fieldCommand(func(ctx context.Context, _ config.Config, svc *review.Service, _ []string) error {
			agents, err := svc.Agents(ctx)
			if err != nil {
				return err
			}
			p, err := svc.Policy(ctx)
			if err != nil {
				return err
			}
			rows := make([]agentJSON, 0, len(agents))
			for _, ag := range agents {
				rows = append(rows, agentJSON{Agent: ag, May: model.CapabilitiesOf(p, ag)})
			}
			if asJSON {
				return jsonout.Write(a.stdout, rows)
			}
			printAgents(a.stdout, rows)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printAgents(w io.Writer, rows []agentJSON) {
	idW, roleW, dbW := len("ID"), len("ROLE"), 0
	for _, r := range rows {
		idW, roleW = max(idW, len(clean(r.ID))), max(roleW, len(clean(r.Role)))
		if r.DBRole != "" {
			dbW = max(dbW, len("DB ROLE"), len(clean(r.DBRole)))
		}
	}
	// The database roles bound to agents show when any is.
	dbCol := func(v string) string {
		if dbW == 0 {
			return ""
		}
		return fmt.Sprintf("%-*s  ", dbW, v)
	}
	fmt.Fprintf(w, "%-*s  %-*s  %-5s  %9s  %s%s\n", idW, "ID", roleW, "ROLE", "KIND", "AUTHORITY", dbCol("DB ROLE"), "MAY")
	for _, r := range rows {
		fmt.Fprintf(w, "%-*s  %-*s  %-5s  %9d  %s%s\n", idW, clean(r.ID), roleW, clean(r.Role), r.Kind, r.Authority,
			dbCol(clean(r.DBRole)), describeMay(r.May))
	}
}

// describeMay is "record, decide, vote, authority over factual" or
// "read only".
func describeMay(c model.Capabilities) string {
	var parts []string
	if c.Record {
		parts = append(parts, "record")
	}
	if c.Decide {
		parts = append(parts, "decide")
	}
	if c.DecideEscalated {
		parts = append(parts, "decide escalated")
	}
	if c.Vote {
		parts = append(parts, "vote")
	}
	if len(c.AuthorityOver) == len(model.ConflictTypes) {
		parts = append(parts, "authority over every type")
	} else if len(c.AuthorityOver) > 0 {
		types := make([]string, len(c.AuthorityOver))
		for i, t := range c.AuthorityOver {
			types[i] = string(t)
		}
		parts = append(parts, "authority over "+strings.Join(types, ", "))
	}
	if len(c.Owns) > 0 {
		types := make([]string, len(c.Owns))
		for i, t := range c.Owns {
			types[i] = string(t)
		}
		owner := "owner of " + strings.Join(types, ", ") + " escalations"
		if c.DecideOwned {
			owner += " (decides them)"
		}
		parts = append(parts, owner)
	}
	if len(parts) == 0 {
		return "read only"
	}
	return strings.Join(parts, ", ")
}
