package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"arbiter/door/config"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/review"

	"github.com/spf13/cobra"
)

// detectCacheBytes is how much of the units detection has read a process
// that lives long (serve, mcp) keeps, so that a unit compared again is
// not read again.
const detectCacheBytes = 64 << 20

func (a *app) detectCmd() *cobra.Command {
	var (
		mode   string
		units  []string
		since  int64
		limit  int
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "detect --mode list|check|scan [--units ID,…] [--since EPOCH] [--json]",
		Short: "List conflicts, check units, or scan the field for contradictions nobody declared (DETECT)",
		Long: `DETECT, in one of three modes:

  list    the open conflicts, oldest first, each with why it was detected
          when the field found it itself
  check   for each unit of --units, the conflicts it is in, open ones first
          (an unknown unit is refused)
  scan    compare every unit with the earlier units, as RECORD does when the
          policy's detection_sensitivity is not off, and open the
          contradictions found (as --as: authority 8 or more); --since EPOCH
          looks only at the units recorded after EPOCH, --limit N at N units

A scan shows its progress on stderr. Stopped (ctrl+c, a killed process), it
goes on from where it stopped the next time; a pair that has a conflict, or
that someone dismissed, is never opened again, so a second scan opens
nothing new. Fields made before detection existed, imports and joins are
never scanned unless someone runs it.

Dismissing a detected conflict (merge --strategy dismiss) says it is not a
contradiction: the pair is never detected again (reopen takes that back).
See docs/detection.md. --json prints DETECT's result.`,
		Args: cobra.NoArgs,
		PreRunE: func(*cobra.Command, []string) error {
			switch m := model.DetectMode(mode); {
			case !m.Valid():
				return usageErrorf("--mode %q: use list, check or scan", mode)
			case m == model.DetectCheck && len(units) == 0:
				return usageErrorf("--mode check: name the units with --units mem-1,mem-2")
			case m != model.DetectCheck && len(units) > 0:
				return usageErrorf("--units goes with --mode check")
			case m != model.DetectScan && (since != 0 || limit != 0):
				return usageErrorf("--since and --limit go with --mode scan")
			case since < 0 || limit < 0:
				return usageErrorf("--since and --limit take 0 or more")
			}
			return nil
		},
		RunE: a.fieldCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, _ []string) error {
			req := model.DetectRequest{Mode: model.DetectMode(mode), Units: units, SinceEpoch: since, Limit: limit}
			if req.Mode == model.DetectScan {
				if cfg.As == "" {
					return usageErrorf("--mode scan opens conflicts as someone: say who with --as ID (authority 8 or more)")
				}
				return a.scan(ctx, svc, cfg.As, req, asJSON)
			}
			res, err := svc.Detect(ctx, cfg.As, req)
			if err != nil {
				return err
			}
			if asJSON {
				return jsonout.Write(a.stdout, res)
			}
			if req.Mode == model.DetectList {
				printDetected(a.stdout, res.Conflicts, "")
				if len(res.Conflicts) == 0 {
					fmt.Fprintln(a.stdout, "no open conflicts")
				}
				return nil
			}
			for _, u := range res.Units {
				fmt.Fprintf(a.stdout, "%s: %s\n", clean(u.UnitID), plural(len(u.Conflicts), "conflict", "conflicts"))
				printDetected(a.stdout, u.Conflicts, "  ")
			}
			return nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&mode, "mode", "", "list, check or scan")
	fl.StringSliceVar(&units, "units", nil, "check: the units to check, comma-separated")
	fl.Int64Var(&since, "since", 0, "scan: only the units recorded after this epoch")
	fl.IntVar(&limit, "limit", 0, "scan: at most this many units now (0: all that are left)")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	cmd.MarkFlagRequired("mode")
	return cmd
}

// scan runs DETECT scan, its progress on stderr.
func (a *app) scan(ctx context.Context, svc *review.Service, as string, req model.DetectRequest, asJSON bool) error {
	var before model.ScanState // what the scan this one goes on with had done
	if st, ok, err := svc.DetectScanState(ctx); err != nil {
		return err
	} else if ok && !st.Finished() && st.SinceEpoch == req.SinceEpoch {
		before = st
		fmt.Fprintf(a.stderr, "arbiter: going on with the scan begun %s: %s done, %s opened\n",
			when(st.StartedAt, time.Now()), plural(int(st.Done), "unit", "units"), plural(int(st.Found), "conflict", "conflicts"))
	}
	start := time.Now()
	var p *progressReport
	var last model.ScanState
	res, err := svc.DetectScan(ctx, as, req, func(st model.ScanState) {
		if p == nil {
			p = newProgress(a.stderr, "detect", "units", st.Total)
		}
		last = st
		p.setNote(plural(int(st.Found), "conflict", "conflicts") + " opened")
		p.set(st.Done, max(st.Total, st.Done))
	})
	p.finish()
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		fmt.Fprintf(a.stderr, "arbiter: the scan stopped: %s done, %s opened, kept in the field; `arbiter detect --mode scan` goes on from there\n",
			plural(int(last.Done), "unit", "units"), plural(int(last.Found), "conflict", "conflicts"))
		return &exitStatus{exitInterrupted}
	}
	if err != nil {
		return err
	}
	if asJSON {
		return jsonout.Write(a.stdout, res)
	}
	st := res.Scan
	if before.Sensitivity != st.Sensitivity || !before.StartedAt.Equal(st.StartedAt) {
		before = model.ScanState{} // not the scan it went on with after all
	}
	state := "the scan is finished"
	if !st.Finished() {
		state = "not finished: `arbiter detect --mode scan` goes on from there"
	}
	fmt.Fprintf(a.stdout, "scanned %s in %s: opened %s (%s in the whole scan, %s); %s\n",
		plural(int(st.Done-before.Done), "unit", "units"), time.Since(start).Round(100*time.Millisecond),
		plural(int(st.Found-before.Found), "conflict", "conflicts"), plural(int(st.Found), "conflict", "conflicts"),
		plural(int(st.Done), "unit", "units"), state)
	printDetected(a.stdout, res.Conflicts, "  ")
	if more := int(st.Found-before.Found) - len(res.Conflicts); more > 0 {
		fmt.Fprintf(a.stdout, "  and %d more: arbiter detect --mode list\n", more)
	}
	return nil
}

// printDetected prints conflicts one a line: id, type, status, units, and
// why it was detected, or its description.
func printDetected(w io.Writer, cs []model.Conflict, indent string) {
	for _, c := range cs {
		why := "declared: " + clip(c.Description, 100)
		if d := c.Detection; d != nil {
			why = clean(string(c.DetectedBy)) + ": " + clip(d.Reason(), 160)
		} else if c.DetectedBy != model.DetectedExplicit {
			why = clean(string(c.DetectedBy)) + ": " + clip(c.Description, 100)
		}
		fmt.Fprintf(w, "%s%s  %s  %s  %s against %s  %s\n", indent, clean(c.ID), c.Type, c.Status,
			clean(c.UnitB), clean(c.UnitA), strings.TrimSpace(why))
	}
}
