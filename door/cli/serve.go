package cli

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"arbiter/door/serve"
	"arbiter/service/review"
	"arbiter/store"
	"arbiter/store/field"

	"github.com/spf13/cobra"
)

func (a *app) serveCmd() *cobra.Command {
	var (
		sshAddr, httpAddr, hostKey, open string
		idle                             time.Duration
		maxSSH, maxMCP, maxPerAgent      int
		maxConns, maxConnsPerAddr        int
		allowOrigins                     []string
	)
	cmd := &cobra.Command{
		Use:   "serve --db FIELD [--ssh ADDR] [--http ADDR] [--host-key FILE]",
		Short: "Serve the field to a team: the review screen over SSH, MCP over HTTP",
		Long: `Serve the field from one process until SIGTERM, SIGINT or SIGHUP:

  --ssh ADDR    people open the review screen with ssh -p PORT HOST, by a key
                a human operator added (arbiter keys add); nothing else:
                no passwords, commands, forwarding or subsystems
  --http ADDR   agents reach MCP (Streamable HTTP) at http://ADDR/mcp with a
                bearer token a human operator issued (arbiter tokens issue);
                GET /healthz answers 200 while the field can be read and
                written where --db points, 503 otherwise

It also sends the field's notices to their hooks (as arbiter deliver does) and
sweeps the field's deadlines (as --as, on PostgreSQL a human operator,
unless the process logs in as the field's administrator). Put --http behind a
TLS reverse proxy; see docs/serve.md. A decision a screen holds in its undo
window is written whatever ends its session (a killed server's next run, or
another replica, writes it). On a stop it ends the sessions, lets writes in
flight finish and exits 0 within 10 seconds. One line per session and
refusal goes to stderr (a flood of one kind is held back to one line a
second, and counted); never a token.

Limits of --http (docs/serve.md, "Security"): a request has 10 s for its
headers and 30 s for its body, each write of an answer 30 s, and a connection
idle for 60 s is closed; at most --max-conns connections (4096, fewer if the
process may open fewer files) and --max-conns-per-addr from one address (256);
at most --max-mcp MCP sessions (500) and --max-mcp-per-agent of one agent (10),
counted from initialize; a session not initialized within 10 s is closed, and
a revoked token's sessions end within a second. A request whose Origin is
another site's is refused (403) unless --allow-origin names it.`,
		Args: cobra.NoArgs,
		RunE: a.do(func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.fieldConfig(cmd)
			if err != nil {
				return err
			}
			if sshAddr == "" && httpAddr == "" {
				return usageErrorf("serve: give --ssh ADDR, --http ADDR or both (e.g. --ssh :2222 --http 127.0.0.1:8080)")
			}
			for _, o := range allowOrigins {
				if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Trim(u.Path, "/") != "" {
					return usageErrorf("serve: --allow-origin %q: give an origin as a browser sends it, scheme://host[:port] (e.g. https://app.example.com)", o)
				}
			}
			if hostKey == "" && sshAddr != "" {
				dir, err := dataDir()
				if err != nil {
					return err
				}
				hostKey = filepath.Join(dir, "ssh_host_ed25519")
			}
			if hostKey != "" {
				if err := os.MkdirAll(filepath.Dir(hostKey), 0o700); err != nil {
					return fmt.Errorf("serve: no place for the host key %s: %v", hostKey, err)
				}
			}
			if open == "" {
				open = openLine(sshAddr)
			}
			return a.withStore(cmd.Context(), cfg, func(ctx context.Context, st store.Field) error {
				svc := review.New(st).WithDecisionsOut(cfg.DecisionsOut).WithSweeper(cfg.As).WithDetectCache(detectCacheBytes)
				return serve.Run(ctx, svc, serve.Options{
					SSHAddr: sshAddr, HTTPAddr: httpAddr, HostKey: hostKey,
					Field: field.Redact(cfg.DB), Store: st, Open: open, Theme: cfg.Theme, Keys: cfg.Keys, Views: cfg.Views,
					IdleTimeout: idle, MaxSSH: maxSSH, MaxMCP: maxMCP, MaxMCPPerAgent: maxPerAgent,
					MaxConns: maxConns, MaxConnsPerAddr: maxConnsPerAddr, AllowOrigins: allowOrigins,
					Log: a.stderr,
					Listening: func(s, h net.Addr) {
						if s != nil {
							fmt.Fprintf(a.stderr, "arbiter: serving %s to people over SSH on %s (host key %s)\n", clean(field.Redact(cfg.DB)), s, hostKey)
						}
						if h != nil {
							fmt.Fprintf(a.stderr, "arbiter: serving %s to agents over MCP at http://%s/mcp\n", clean(field.Redact(cfg.DB)), h)
						}
					},
				})
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&sshAddr, "ssh", "", "listen for people over SSH on ADDR (e.g. :2222)")
	f.StringVar(&httpAddr, "http", "", "listen for agents over MCP (Streamable HTTP) on ADDR (e.g. 127.0.0.1:8080)")
	f.StringVar(&hostKey, "host-key", "", "the SSH host key's file, made the first time (default: ssh_host_ed25519 in the data directory)")
	f.DurationVar(&idle, "idle-timeout", serve.DefaultIdle, "close SSH and MCP sessions idle this long")
	f.IntVar(&maxSSH, "max-ssh", serve.DefaultMaxSSH, "at most this many SSH sessions at once")
	f.IntVar(&maxMCP, "max-mcp", serve.DefaultMaxMCP, "at most this many MCP sessions at once, initialized or not")
	f.IntVar(&maxPerAgent, "max-mcp-per-agent", serve.DefaultMaxMCPPerAgent, "at most this many MCP sessions of one agent at once")
	f.IntVar(&maxConns, "max-conns", serve.DefaultMaxConns, "at most this many HTTP connections at once (fewer if the process may open fewer files)")
	f.IntVar(&maxConnsPerAddr, "max-conns-per-addr", serve.DefaultMaxConnsPerAddr, "at most this many HTTP connections from one address (behind a proxy, all come from the proxy's)")
	f.StringSliceVar(&allowOrigins, "allow-origin", nil, "let pages of this origin (https://app.example.com) call /mcp; repeat for more (default: only the same origin on this machine)")
	f.StringVar(&open, "open", "", "how people open the field, for hooks' slack messages (default: ssh -p PORT HOST with --ssh, else arbiter)")
	return cmd
}

// dataDir is arbiter's data directory: $XDG_DATA_HOME/arbiter, or
// ~/.local/share/arbiter.
func dataDir() (string, error) {
	if dir := os.Getenv("XDG_DATA_HOME"); dir != "" {
		return filepath.Join(dir, "arbiter"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("serve: no data directory for the host key (%v): use --host-key FILE", err)
	}
	return filepath.Join(home, ".local", "share", "arbiter"), nil
}

// openLine is how a person opens a field served over SSH on addr, for
// the slack messages of hooks: "ssh -p PORT HOST", with this machine's
// name where addr names no host; "arbiter" without SSH.
func openLine(addr string) string {
	if addr == "" {
		return "arbiter"
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "arbiter"
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		if h, err := os.Hostname(); err == nil && h != "" {
			host = h
		} else {
			host = "localhost"
		}
	}
	if port == "22" {
		return "ssh " + host
	}
	return "ssh -p " + port + " " + host
}
