package cli

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"arbiter/internal/benchmetrics"
	"arbiter/model"
)

// panes follows the output of every pane of a tmux session through a
// control-mode client (tmux -C): when each pane last wrote, and whether it
// has drawn a text yet.
type panes struct {
	mu    sync.Mutex
	last  map[string]time.Time // by pane id
	drawn map[string]time.Time // when the pane first showed want
	want  string
	moved chan struct{}
	// since, when set, is a moment; after holds each pane's first output
	// from then on.
	since time.Time
	after map[string]time.Time
}

// mark starts taking each pane's first output from now.
func (p *panes) mark() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.since, p.after = time.Now(), map[string]time.Time{}
	return p.since
}

func (p *panes) follow(sc *bufio.Scanner) {
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, "%output ")
		if !ok {
			continue
		}
		id, data, _ := strings.Cut(rest, " ")
		now := time.Now()
		p.mu.Lock()
		p.last[id] = now
		if _, seen := p.after[id]; !seen && !p.since.IsZero() && now.After(p.since) {
			p.after[id] = now
		}
		if _, seen := p.drawn[id]; !seen && strings.Contains(data, p.want) {
			p.drawn[id] = now
		}
		p.mu.Unlock()
		select {
		case p.moved <- struct{}{}:
		default:
		}
	}
}

// BenchmarkServeSSH: ARBITER_BENCH_SSH sessions (default 50) of the real
// OpenSSH client, each in a tmux window, on one `arbiter serve --ssh`.
// first-frame-ms is from starting ssh to the screen drawing the person's
// name (handshake, key check, the screen's first frame); MB/session is
// the server's resident memory per idle session; p50/p99 is how long
// after another connection's decision (a conflict resolved) each session
// starts redrawing, as tmux sees its output.
func BenchmarkServeSSH(b *testing.B) {
	n := benchCount("ARBITER_BENCH_SSH", 50)
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("no tmux")
	}
	db, svc := demoField(b)
	dir := b.TempDir()
	key := filepath.Join(dir, "priya")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		b.Fatalf("ssh-keygen: %v %s", err, out)
	}
	add := exec.Command(bin, "--db", db, "--as", "ops-maya", "keys", "add", "lead-priya", key+".pub")
	add.Env = cleanEnv()
	if out, err := add.CombinedOutput(); err != nil {
		b.Fatalf("keys add: %v %s", err, out)
	}
	srv := serveField(b, db, "--ssh", "127.0.0.1:0", "--host-key", filepath.Join(dir, "host"))
	ctx := context.Background()

	sock := filepath.Join(dir, "tmux.sock")
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			b.Fatalf("tmux %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tmux("new-session", "-d", "-s", "bench", "-x", "120", "-y", "30", "sleep 100000")
	b.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	ctl := exec.Command("tmux", "-S", sock, "-C", "attach", "-t", "bench")
	stdin, _ := ctl.StdinPipe()
	stdout, _ := ctl.StdoutPipe()
	if err := ctl.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); ctl.Process.Kill(); ctl.Wait() })
	p := &panes{last: map[string]time.Time{}, drawn: map[string]time.Time{}, want: "lead-priya", moved: make(chan struct{}, 1)}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	go p.follow(sc)

	rss0 := rssOf(b, srv.cmd.Process.Pid)
	host, port, _ := strings.Cut(srv.sshAddr, ":")
	sshCmd := "env TERM=xterm-256color ssh -t -F /dev/null -o StrictHostKeyChecking=no -o UserKnownHostsFile=" + filepath.Join(dir, "known") +
		" -o IdentitiesOnly=yes -o IdentityAgent=none -i " + key + " -p " + port + " " + host
	var ids []string
	var first []time.Duration
	for range n {
		start := time.Now()
		id := tmux("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "bench", sshCmd)
		ids = append(ids, id)
		deadline := time.Now().Add(30 * time.Second)
		for {
			p.mu.Lock()
			at, ok := p.drawn[id]
			p.mu.Unlock()
			if ok {
				first = append(first, at.Sub(start))
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("session %d never drew its screen", len(ids))
			}
			select {
			case <-p.moved:
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	quiet := func() {
		for {
			time.Sleep(300 * time.Millisecond)
			p.mu.Lock()
			latest := time.Time{}
			for _, id := range ids {
				if p.last[id].After(latest) {
					latest = p.last[id]
				}
			}
			p.mu.Unlock()
			if time.Since(latest) > 500*time.Millisecond {
				return
			}
		}
	}
	quiet()
	time.Sleep(2 * time.Second)
	rss1 := rssOf(b, srv.cmd.Process.Pid)

	var times []time.Duration
	for b.Loop() {
		b.StopTimer()
		rec, err := svc.Record(ctx, "ana-quill", finding("a claim to decide"))
		if err != nil {
			b.Fatal(err)
		}
		res, err := svc.Record(ctx, "sre-atlas", finding("its contradiction", model.Relation{Type: model.RelContradicts, TargetID: rec.UnitID}))
		if err != nil || len(res.Conflicts) != 1 {
			b.Fatalf("record: %v", err)
		}
		quiet()
		b.StartTimer()
		t0 := p.mark()
		if _, err := svc.Merge(ctx, "ops-maya", model.MergeRequest{ConflictID: res.Conflicts[0].ID, Strategy: model.LastWriteWins,
			Resolution: model.MergeResolution{Rationale: "the later measurement"}}); err != nil {
			b.Fatal(err)
		}
		committed := time.Now()
		deadline := t0.Add(30 * time.Second)
		for {
			p.mu.Lock()
			done := len(p.after)
			p.mu.Unlock()
			if done == len(ids) || time.Now().After(deadline) {
				break
			}
			select {
			case <-p.moved:
			case <-time.After(50 * time.Millisecond):
			}
		}
		p.mu.Lock()
		for _, id := range ids {
			if at, ok := p.after[id]; ok {
				times = append(times, max(0, at.Sub(committed)))
			} else {
				times = append(times, 30*time.Second) // never redrawn: counted as the wait
			}
		}
		p.since = time.Time{}
		p.mu.Unlock()
	}
	benchmetrics.Percentiles(b, times)
	slices.Sort(first)
	b.ReportMetric(ms(first[len(first)/2]), "first-frame-p50-ms")
	b.ReportMetric(ms(first[min(len(first)-1, len(first)*99/100)]), "first-frame-p99-ms")
	b.ReportMetric((rss1-rss0)/float64(n), "MB/session")
	b.ReportMetric(float64(n), "sessions")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }
