package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"arbiter/door/config"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/review"

	"github.com/spf13/cobra"
	gossh "golang.org/x/crypto/ssh"
)

func (a *app) keysCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "The SSH keys people log in to `arbiter serve` with",
		Long: `People open the review screen of arbiter serve with ssh, by key: a human
operator (--as) adds each person's public key with keys add, and removes it
with keys remove. keys list shows them all.`,
		Args: noCommand,
	}
	cmd.AddCommand(callerNeeded(a.keysAddCmd()), a.keysListCmd(), callerNeeded(a.keysRemoveCmd()))
	return cmd
}

func (a *app) keysAddCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "add ID PUBKEY_FILE",
		Short: "Let the person ID log in over SSH with a public key (a human operator)",
		Long: `Let the registered person ID open the review screen of arbiter serve with
the public key in PUBKEY_FILE (one line, as in authorized_keys or a .pub
file; - reads it from stdin). Prints the key's fingerprint. A key lets in
one person; agents get tokens instead (arbiter tokens issue).`,
		Args: exactArgs(2, "a person's id and a public key file"),
		RunE: a.fieldCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, args []string) error {
			k, err := a.readKey(args[1])
			if err != nil {
				return err
			}
			k.AgentID = args[0]
			if err := svc.KeyAdd(ctx, cfg.As, k); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s may log in over SSH with %s\n", clean(k.AgentID), k.Fingerprint)
			return nil
		}),
	}
}

// readKey reads one public key in authorized_keys form from file.
func (a *app) readKey(file string) (model.Key, error) {
	var (
		b   []byte
		err error
	)
	if file == "-" {
		b, err = io.ReadAll(io.LimitReader(a.stdin, 64<<10))
	} else {
		b, err = os.ReadFile(file)
	}
	if err != nil {
		return model.Key{}, usageErrorf("keys add: cannot read %s: %v", file, err)
	}
	pub, comment, _, _, err := gossh.ParseAuthorizedKey(b)
	if err != nil {
		return model.Key{}, usageErrorf("keys add: %s holds no public key (give the .pub file, one line as in authorized_keys)", file)
	}
	return model.Key{Fingerprint: gossh.FingerprintSHA256(pub), Comment: clean(comment),
		PublicKey: strings.TrimSpace(string(gossh.MarshalAuthorizedKey(pub)))}, nil
}

func (a *app) keysListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the SSH keys people log in with",
		Args:  cobra.NoArgs,
		RunE: a.fieldCommand(func(ctx context.Context, _ config.Config, svc *review.Service, _ []string) error {
			keys, err := svc.Keys(ctx)
			if err != nil {
				return err
			}
			if asJSON {
				if keys == nil {
					keys = []model.Key{}
				}
				return jsonout.Write(a.stdout, keys)
			}
			if len(keys) == 0 {
				fmt.Fprintln(a.stdout, "No keys: add one with `arbiter keys add ID PUBKEY_FILE`.")
				return nil
			}
			w, fw := len("PERSON"), len("FINGERPRINT")
			for _, k := range keys {
				w, fw = max(w, len(clean(k.AgentID))), max(fw, len(k.Fingerprint))
			}
			fmt.Fprintf(a.stdout, "%-*s  %-*s  %-16s  %s\n", w, "PERSON", fw, "FINGERPRINT", "ADDED", "BY, COMMENT")
			for _, k := range keys {
				by := clean(k.AddedBy)
				if k.Comment != "" {
					by += ", " + clean(k.Comment)
				}
				fmt.Fprintf(a.stdout, "%-*s  %-*s  %-16s  %s\n", w, clean(k.AgentID), fw, k.Fingerprint, k.AddedAt.Format("2006-01-02 15:04"), by)
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (a *app) keysRemoveCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "remove ID FINGERPRINT",
		Short: "Stop a key letting a person in (a human operator)",
		Long: `Remove the person ID's key FINGERPRINT (as keys list shows it, SHA256:...).
A session open with it goes on until it ends; the key opens no new one.`,
		Args: exactArgs(2, "a person's id and a key's fingerprint"),
		RunE: a.fieldCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, args []string) error {
			if err := svc.KeyRemove(ctx, cfg.As, args[0], args[1]); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "removed %s's key %s\n", clean(args[0]), clean(args[1]))
			return nil
		}),
	}
}

func (a *app) tokensCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tokens",
		Short: "The bearer tokens agents reach `arbiter serve`'s MCP endpoint with",
		Long: `Agents reach the MCP endpoint of arbiter serve with a bearer token: a human
operator (--as) issues one per agent with tokens issue, which prints it once
(the field keeps only its hash), and revokes it with tokens revoke, which
stops it at once. tokens list shows who has which, by prefix.`,
		Args: noCommand,
	}
	cmd.AddCommand(callerNeeded(a.tokensIssueCmd()), a.tokensListCmd(), callerNeeded(a.tokensRevokeCmd()))
	return cmd
}

func (a *app) tokensIssueCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "issue AGENT",
		Short: "Issue a bearer token for an agent, printed once (a human operator)",
		Long: `Issue a bearer token that lets the registered agent AGENT use the MCP
endpoint of arbiter serve, acting as AGENT. The token is printed once, alone on
stdout; the field keeps only its hash, so it cannot be shown again. Give it to
the agent's MCP client as the header Authorization: Bearer TOKEN. People get
SSH keys instead (arbiter keys add).`,
		Args: exactArgs(1, "an agent's id"),
		RunE: a.fieldCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, args []string) error {
			token, rec, err := svc.TokenIssue(ctx, cfg.As, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, token)
			fmt.Fprintf(a.stderr, "arbiter: issued token %s… for %s: it is shown only now\n", rec.Prefix, clean(rec.AgentID))
			return nil
		}),
	}
}

func (a *app) tokensListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the tokens agents hold, by prefix",
		Args:  cobra.NoArgs,
		RunE: a.fieldCommand(func(ctx context.Context, _ config.Config, svc *review.Service, _ []string) error {
			toks, err := svc.Tokens(ctx)
			if err != nil {
				return err
			}
			if asJSON {
				if toks == nil {
					toks = []model.Token{}
				}
				return jsonout.Write(a.stdout, toks)
			}
			if len(toks) == 0 {
				fmt.Fprintln(a.stdout, "No tokens: issue one with `arbiter tokens issue AGENT`.")
				return nil
			}
			w := len("AGENT")
			for _, k := range toks {
				w = max(w, len(clean(k.AgentID)))
			}
			fmt.Fprintf(a.stdout, "%-*s  %-13s  %s\n", w, "AGENT", "PREFIX", "ISSUED")
			for _, k := range toks {
				fmt.Fprintf(a.stdout, "%-*s  %-13s  %s by %s\n", w, clean(k.AgentID), k.Prefix+"…", k.IssuedAt.Format("2006-01-02 15:04"), clean(k.IssuedBy))
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (a *app) tokensRevokeCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "revoke AGENT|TOKEN_PREFIX",
		Short: "Revoke an agent's tokens, or one token by its prefix (a human operator)",
		Long: `Revoke every token of AGENT, or the one token that begins TOKEN_PREFIX (as
tokens list shows it). Requests with it are refused at once, and its open
sessions end within a second.`,
		Args: exactArgs(1, "an agent's id or a token's prefix"),
		RunE: a.fieldCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, args []string) error {
			id := strings.TrimSuffix(args[0], "…")
			// A whole token given by mistake is cut to its prefix, so that
			// it is neither echoed nor matched.
			if strings.HasPrefix(id, review.TokenPrefix) && len(id) > len(review.TokenPrefix)+8 {
				id = id[:len(review.TokenPrefix)+8]
			}
			n, err := svc.TokenRevoke(ctx, cfg.As, id)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "revoked %s\n", plural(n, "token", "tokens"))
			return nil
		}),
	}
}
