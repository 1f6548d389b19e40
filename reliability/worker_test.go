package reliability

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"arbiter/model"
	"arbiter/service/review"
	rt "arbiter/service/review/reviewtest"
	"arbiter/store"
	"arbiter/store/field"
)

// A worker is this test binary started again with ARBITER_RELIABILITY_WORKER
// set: it opens the field, works until its deadline (or until killed), and
// prints one line per operation the field accepted, then a summary:
//
//	OK record mem-012 mem-013 conflict-006
//	OK merge conflict-006 synthesis resolved
//	OK vote conflict-004 resolved
//	OK sweep conflict-009 fallback resolved
//	REFUSED INVALID_TRANSITION
//	UNEXPECTED MERGE FIELD_BUSY: another program kept the field locked…
//	DONE
//
// A TRY line comes before each write, so that a process killed in the
// middle of one can be told from one killed between two.
const (
	envRole  = "ARBITER_RELIABILITY_WORKER" // writer, decider, voter, chaos or sweeper
	envField = "ARBITER_RELIABILITY_FIELD"
	envUntil = "ARBITER_RELIABILITY_UNTIL" // Unix nanoseconds
	envSeed  = "ARBITER_RELIABILITY_SEED"
	envBig   = "ARBITER_RELIABILITY_BIG" // synthesis texts of up to this many bytes
)

// expected are the refusals racing deciders and voters must be ready
// for: someone decided first (or the version moved), or the rule cannot
// pick (a tie, a winner another conflict already superseded).
var expected = map[model.Code]bool{model.CodeInvalidTransition: true, model.CodeMergeFailed: true}

type worker struct {
	svc  *review.Service
	rng  *rand.Rand
	out  *bufio.Writer
	big  int
	ctx  context.Context
	seq  int
	role string
	// tried is when the operation in flight started; slowest is the
	// longest any took, per operation.
	tried   time.Time
	op      string
	slowest map[string]time.Duration
}

func runWorker() int {
	role := os.Getenv(envRole)
	if strings.HasPrefix(role, "bench-") {
		return runBenchWorker(role)
	}
	until, _ := strconv.ParseInt(os.Getenv(envUntil), 10, 64)
	seed, _ := strconv.ParseUint(os.Getenv(envSeed), 10, 64)
	big, _ := strconv.Atoi(os.Getenv(envBig))
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	ctx := context.Background()
	st, err := field.Open(ctx, os.Getenv(envField), store.Options{BusyTimeout: 5 * time.Second})
	if err != nil {
		fmt.Fprintf(out, "UNEXPECTED OPEN %v\n", err)
		return 1
	}
	defer st.Close()
	w := &worker{svc: review.New(st), rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b9)), out: out,
		big: max(big, 200), ctx: ctx, role: role, slowest: map[string]time.Duration{}}
	deadline := time.Unix(0, until)
	for time.Now().Before(deadline) {
		switch role {
		case "writer":
			w.recordPair()
		case "decider":
			w.decide()
		case "voter":
			w.vote()
		case "sweeper":
			w.sweep()
		case "chaos":
			switch r := w.rng.IntN(10); {
			case r < 3:
				w.recordPair()
			case r < 8:
				w.decide()
			default:
				w.vote()
			}
		default:
			fmt.Fprintf(out, "UNEXPECTED ROLE %q\n", role)
			return 1
		}
		w.done()
		if role == "chaos" || role == "sweeper" {
			out.Flush() // it may be killed: what it says must be out
		}
	}
	for op, d := range w.slowest {
		fmt.Fprintf(out, "SLOWEST %s %d\n", op, d.Milliseconds())
	}
	fmt.Fprintln(out, "DONE")
	return 0
}

// report prints what the field said to op: nothing on success (the
// caller prints its OK line), REFUSED for an expected refusal,
// UNEXPECTED for anything else.
func (w *worker) report(op string, err error) {
	pe, ok := model.AsError(err)
	// Another worker escalated the conflict first: only people decide it
	// now, and the field says who.
	escalatedFirst := ok && pe.Code == model.CodeNotPermitted && strings.Contains(pe.Message, " is escalated; only ")
	if ok && (expected[pe.Code] || escalatedFirst) {
		fmt.Fprintf(w.out, "REFUSED %s\n", pe.Code)
		return
	}
	fmt.Fprintf(w.out, "UNEXPECTED %s %s\n", op, strings.ReplaceAll(err.Error(), "\n", " "))
}

// done ends the timing of the operation in flight, if any.
func (w *worker) done() {
	if w.op != "" {
		w.slowest[w.op] = max(w.slowest[w.op], time.Since(w.tried))
		w.op = ""
	}
}

func (w *worker) try(op string) {
	w.done()
	w.op, w.tried = op, time.Now()
	w.seq++
	fmt.Fprintf(w.out, "TRY %s %d\n", op, w.seq)
	if w.role == "chaos" || w.role == "sweeper" {
		w.out.Flush()
	}
}

// authors record units; every pair has two different authors, so that a
// decision notifies two agents.
var authors = []string{rt.Senior1, rt.Senior2, rt.Standard, rt.Scout, rt.Lead1}

func (w *worker) text(n int) string {
	words := []string{"p99", "latency", "is", "40", "ms", "in", "eu-west", "**measured**", "`gateway`", "90", "under", "load,"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[w.rng.IntN(len(words))])
		if w.rng.IntN(12) == 0 {
			b.WriteString("\n\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// recordPair records unit A, sometimes a supporter of A, and unit B
// contradicting A: one conflict.
func (w *worker) recordPair() {
	i := w.rng.IntN(len(authors))
	a, b := authors[i], authors[(i+1+w.rng.IntN(len(authors)-1))%len(authors)]
	score := func() *float64 { return model.Ptr(float64(3+w.rng.IntN(7)) / 10) }
	req := func(contradicts string) model.RecordRequest {
		r := model.RecordRequest{Type: model.TypeFinding, Content: w.text(100 + w.rng.IntN(4000)),
			Intent:       model.Intent{Purpose: "measure the checkout latency"},
			Confidence:   model.Confidence{Score: score(), Reasoning: "from the gateway's logs"},
			ConflictType: model.ConflictFactual}
		if contradicts != "" {
			r.Relations = []model.Relation{{Type: model.RelContradicts, TargetID: contradicts, Description: "the numbers disagree"}}
		}
		return r
	}
	w.try("record")
	ra, err := w.svc.Record(w.ctx, a, req(""))
	if err != nil {
		w.report("RECORD", err)
		return
	}
	fmt.Fprintf(w.out, "OK record %s\n", ra.UnitID)
	if w.rng.IntN(3) == 0 {
		s := req("")
		s.Relations = []model.Relation{{Type: model.RelSupports, TargetID: ra.UnitID}}
		w.try("record")
		rs, err := w.svc.Record(w.ctx, rt.Scout, s)
		if err != nil {
			w.report("RECORD", err)
			return
		}
		fmt.Fprintf(w.out, "OK record %s\n", rs.UnitID)
	}
	w.try("record")
	rb, err := w.svc.Record(w.ctx, b, req(ra.UnitID))
	if err != nil {
		w.report("RECORD", err)
		return
	}
	if len(rb.Conflicts) != 1 {
		fmt.Fprintf(w.out, "UNEXPECTED RECORD %d conflicts opened, want 1\n", len(rb.Conflicts))
		return
	}
	fmt.Fprintf(w.out, "OK record %s %s\n", rb.UnitID, rb.Conflicts[0].ID)
}

// pickConflict returns one of the oldest conflicts in statuses, at random.
func (w *worker) pickConflict(statuses ...model.ConflictStatus) (model.ConflictDetail, bool) {
	rows, err := w.svc.List(w.ctx, model.ListQuery{Statuses: statuses, Sort: model.SortAge, Limit: 40})
	if err != nil {
		w.report("LIST", err)
		return model.ConflictDetail{}, false
	}
	if len(rows) == 0 {
		// Nothing to do yet: a moment's pause, as an agent would take,
		// rather than asking the field again at once (on a server each
		// asking is a round trip that takes a core from the writers).
		time.Sleep(idlePause)
		return model.ConflictDetail{}, false
	}
	d, err := w.svc.Detail(w.ctx, rows[w.rng.IntN(len(rows))].ID)
	if err != nil {
		w.report("DETAIL", err)
		return d, false
	}
	return d, true
}

// idlePause is how long a worker with nothing to decide or vote on
// waits before looking again.
const idlePause = 5 * time.Millisecond

var deciders = []string{rt.Senior1, rt.Senior2, rt.Lead1, rt.Lead2, rt.Lead3}

// decide takes a MERGE on an open conflict: agents decide detected ones
// with any strategy, the operator decides escalated ones.
func (w *worker) decide() {
	d, ok := w.pickConflict(model.StatusDetected, model.StatusEscalated)
	if !ok {
		return
	}
	c := d.Conflict
	caller := deciders[w.rng.IntN(len(deciders))]
	strategies := model.Strategies
	if c.Status == model.StatusEscalated {
		caller = rt.Operator
		strategies = []model.Strategy{model.LastWriteWins, model.ConfidenceWeighted, model.EvidenceCount,
			model.Authority, model.Synthesis, model.Vote, model.Dismiss}
	}
	s := strategies[w.rng.IntN(len(strategies))]
	if s == model.Authority && caller != rt.Operator && !strings.HasPrefix(caller, "lead") {
		caller = rt.Lead2 // the role with authority over factual conflicts
	}
	req := model.MergeRequest{ConflictID: c.ID, Strategy: s,
		Resolution: model.MergeResolution{Rationale: fmt.Sprintf("%s decides with %s", caller, s)}}
	if w.rng.IntN(2) == 0 {
		req.ExpectedVersion = c.Version
	}
	switch s {
	case model.ConfidenceWeighted, model.EvidenceCount:
		winner := c.UnitA // on a tie the rule refuses: MERGE_FAILED
		for _, p := range d.Picks {
			if p.Strategy == s && !p.Tie {
				winner = p.WinnerID
			}
		}
		req.Resolution.WinnerID = &winner
	case model.Authority:
		winner := []string{c.UnitA, c.UnitB}[w.rng.IntN(2)]
		req.Resolution.WinnerID = &winner
	case model.Synthesis:
		text := w.text(100 + w.rng.IntN(w.big))
		req.Resolution.Synthesis = &text
	}
	w.try("merge")
	resp, err := w.svc.Merge(w.ctx, caller, req)
	if err != nil {
		w.report("MERGE", err)
		return
	}
	fmt.Fprintf(w.out, "OK merge %s %s %s\n", c.ID, s, resp.Status)
}

// vote casts or changes a ballot on a conflict put to a vote.
func (w *worker) vote() {
	d, ok := w.pickConflict(model.StatusPendingVote)
	if !ok {
		return
	}
	voter := rt.Voters[w.rng.IntN(len(rt.Voters))]
	req := model.VoteRequest{ConflictID: d.Conflict.ID, Choice: []string{"A", "B"}[w.rng.IntN(2)],
		Rationale: voter + " has read both"}
	if w.rng.IntN(2) == 0 {
		req.ExpectedVersion = d.Conflict.Version
	}
	w.try("vote")
	resp, err := w.svc.Vote(w.ctx, voter, req)
	if err != nil {
		w.report("VOTE", err)
		return
	}
	if resp.Unchanged { // the same ballot again: nothing written, nothing logged
		fmt.Fprintf(w.out, "OK same-vote %s %s\n", d.Conflict.ID, resp.Status)
		return
	}
	fmt.Fprintf(w.out, "OK vote %s %s\n", d.Conflict.ID, resp.Status)
}

// sweep does what the field's deadlines ask for, as arbiter sweep does,
// and says each thing it did.
func (w *worker) sweep() {
	w.try("sweep")
	rep, err := w.svc.Sweep(w.ctx)
	for _, a := range rep.Actions {
		fmt.Fprintf(w.out, "OK sweep %s %s %s\n", a.ConflictID, a.Kind, a.Status)
	}
	if err != nil {
		w.report("SWEEP", err)
		return
	}
	if len(rep.Actions) == 0 {
		fmt.Fprintln(w.out, "OK sweep-nothing")
	}
}
