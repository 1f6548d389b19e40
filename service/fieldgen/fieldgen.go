// Package fieldgen builds large, realistic fields for measuring arbiter:
// a cast of a few dozen agents and people, memory units of varied
// markdown, relations between them, and conflicts opened by contradicts
// relations in every status — escalated and put to a vote (with ballots),
// resolved by every kind of decision, just detected — with the events and
// notifications the rules would have written.
//
// It does not replay the rules one operation at a time (a million RECORDs
// through review would take hours): it plans each conflict's whole story
// when its first unit is written, writes units in their final status, a
// conflict when its second unit opens it and its final state when its
// decisions come, with store's bulk writer, tens of thousands of rows per
// transaction. What it writes follows the rules — who may decide what,
// which unit a deterministic strategy picks, which units end up contested,
// superseded or active, one epoch per operation — so every command works
// on the result. The same options and seed give the same field.
package fieldgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"arbiter/model"
	"arbiter/store/field"
)

// Options say what field to build.
type Options struct {
	// Units is how many memory units the field holds, synthesis units
	// included.
	Units int
	// Conflicts is how many conflicts contradicts relations opened.
	Conflicts int
	// Open is how many of them wait for people: about half escalated,
	// the rest put to a vote. Of the others about 3 % are just detected,
	// 1 in 200 resolving, and the rest resolved.
	Open int
	// Seed makes the field; the same seed gives the same field.
	Seed uint64
	// Batch is how many rows one transaction writes (0: DefaultBatch).
	Batch int
	// Progress, when set, gets a line now and then while building.
	Progress io.Writer
	// UnitsDone, when set, is called after each transaction with the units
	// written so far (a progress bar's count; Units is the total).
	UnitsDone func(n int64)
	// Start is the wall time of epoch 0 (zero: DefaultStart); each
	// operation happens opEvery after the one before.
	Start time.Time
}

// DefaultBatch is how many rows a transaction writes unless told.
const DefaultBatch = 25000

// DefaultStart is when a generated field's history begins.
var DefaultStart = time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)

// opEvery is the wall time between two operations.
const opEvery = 13 * time.Second

// Counts says what a build wrote.
type Counts struct {
	Agents        int
	Units         int
	Relations     int
	Conflicts     int
	Statuses      map[model.ConflictStatus]int
	Ballots       int
	Events        int
	Notifications int
	ContentBytes  int64
	Epoch         int64
}

// Check reports what is wrong with o, if anything.
func (o Options) Check() error {
	switch {
	case o.Units <= 0:
		return errors.New("--units must be at least 1")
	case o.Conflicts < 0 || o.Open < 0:
		return errors.New("--conflicts and --open cannot be negative")
	case o.Open > o.Conflicts:
		return fmt.Errorf("--open %d is more than --conflicts %d", o.Open, o.Conflicts)
	case o.Batch < 0:
		return errors.New("--batch cannot be negative")
	}
	if need := unitsFor(o.Conflicts); o.Units < need && o.Conflicts > 0 {
		if o.Conflicts == 1 {
			return fmt.Errorf("1 conflict needs at least %d units (it has two units of its own)", need)
		}
		return fmt.Errorf("%d conflicts need at least %d units (each conflict has two units of its own)", o.Conflicts, need)
	}
	return nil
}

// unitsFor is how many units a field of n conflicts needs: each conflict
// takes two units of its own, and a synthesis adds one.
func unitsFor(n int) int { return 2*n + n/5 + 10 }

// ConflictsFor is gen's default number of conflicts for a field of units
// units: a tenth of them, or as many as they can hold (none for the
// smallest fields).
func ConflictsFor(units int) int {
	n := units / 10
	for n > 0 && unitsFor(n) > units {
		n--
	}
	return n
}

// Build creates a new field at path and fills it. It refuses a field that
// exists, and removes the field again if it fails or ctx ends.
func Build(ctx context.Context, path string, opt Options) (c Counts, err error) {
	if err := opt.Check(); err != nil {
		return c, err
	}
	if opt.Batch == 0 {
		opt.Batch = DefaultBatch
	}
	if opt.Start.IsZero() {
		opt.Start = DefaultStart
	}
	st, err := field.Create(ctx, path, Policy())
	if err != nil {
		return c, err
	}
	defer func() {
		if err != nil {
			st.Remove(ctx)
		} else {
			err = st.Close()
		}
	}()
	g := newGen(opt, newWriter(st, opt.Batch))
	if err := g.run(ctx); err != nil {
		g.w.wait() // the background write, before the field closes
		return c, err
	}
	return g.counts, nil
}

// gen is one build in progress.
type gen struct {
	opt Options
	r   *rand.Rand
	w   *writer

	cast      []member
	writers   []member // who records units, weighted
	weights   []int    // cumulative weights of writers
	seniors   []member // who may decide: authority 6 and up
	operators []member
	byRole    map[string][]member
	byID      map[string]member
	sessions  map[string]int

	epoch       int64
	unitSeq     int64
	conflictSeq int64

	fates    []fate
	planned  int
	normal   int           // units recorded by agents (not synthesis)
	bAt      map[int]*plan // the B unit of a planned conflict, by position
	due      map[int][]*plan
	reserved int // B positions reserved at or after the current one

	counts  Counts
	started time.Time
	shown   time.Time
}

func newGen(opt Options, w *writer) *gen {
	g := &gen{opt: opt, w: w, r: rand.New(rand.NewPCG(opt.Seed, 0x61726269746572)),
		cast: cast(), byRole: map[string][]member{}, byID: map[string]member{}, sessions: map[string]int{},
		bAt: map[int]*plan{}, due: map[int][]*plan{},
		counts: Counts{Statuses: map[model.ConflictStatus]int{}}}
	total := 0
	for _, m := range g.cast {
		g.byRole[m.Role] = append(g.byRole[m.Role], m)
		g.byID[m.ID] = m
		if m.weight > 0 {
			total += m.weight
			g.writers = append(g.writers, m)
			g.weights = append(g.weights, total)
		}
		if m.Authority >= model.AuthoritySenior && m.CanWrite() {
			g.seniors = append(g.seniors, m)
		}
		if m.IsHumanOperator() {
			g.operators = append(g.operators, m)
		}
	}
	g.fates = dealFates(g.r, opt.Conflicts, opt.Open)
	synth := 0
	for _, f := range g.fates {
		if f.strategy() == model.Synthesis {
			synth++
		}
	}
	g.normal = opt.Units - synth
	return g
}

// at is the wall time of an epoch.
func (g *gen) at(epoch int64) time.Time { return g.opt.Start.Add(time.Duration(epoch) * opEvery) }

// tick advances the clock by one operation.
func (g *gen) tick() (int64, time.Time) {
	g.epoch++
	return g.epoch, g.at(g.epoch)
}

func (g *gen) run(ctx context.Context) error {
	g.started, g.shown = time.Now(), time.Now()
	if err := g.register(ctx); err != nil {
		return err
	}
	for i := range g.normal {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, p := range g.due[i] {
			g.decide(p)
		}
		delete(g.due, i)
		g.record(i)
		if g.w.full() {
			if err := g.flush(ctx, false); err != nil {
				return err
			}
		}
	}
	// Decisions planned after the last unit happen at the end, in order.
	for i := g.normal; len(g.due) > 0; i++ {
		for _, p := range g.due[i] {
			g.decide(p)
		}
		delete(g.due, i)
	}
	if g.planned != len(g.fates) {
		return fmt.Errorf("placed %d of %d conflicts: too few units", g.planned, len(g.fates))
	}
	return g.flush(ctx, true)
}

// register writes the cast, one REGISTER each.
func (g *gen) register(ctx context.Context) error {
	return write(ctx, g.w.st, func(tx genTx) error {
		b, err := tx.Bulk()
		if err != nil {
			return err
		}
		for _, m := range g.cast {
			epoch, at := g.tick()
			a := m.Agent
			a.RegisteredAt = at
			if err := tx.AgentInsert(a, epoch); err != nil {
				return err
			}
			if err := b.Event(model.Event{Epoch: epoch, Operation: model.OpRegister, AgentID: a.ID, At: at,
				Payload: mustJSON(model.RegisterLog{Role: a.Role, Kind: a.Kind, Authority: a.Authority})}); err != nil {
				return err
			}
			g.counts.Agents++
			g.counts.Events++
		}
		return b.Close()
	})
}

func (g *gen) flush(ctx context.Context, last bool) error {
	n := g.w.pending()
	var clock int64
	if last {
		clock = g.epoch
	}
	if err := g.w.flush(ctx, clock); err != nil {
		return err
	}
	g.counts.Epoch = g.epoch
	if g.opt.UnitsDone != nil {
		g.opt.UnitsDone(int64(g.counts.Units))
	}
	if g.opt.Progress != nil && (last || time.Since(g.shown) >= time.Second) {
		g.shown = time.Now()
		el := time.Since(g.started)
		fmt.Fprintf(g.opt.Progress, "gen: %d/%d units · %d/%d conflicts · %d events · %.1fs (%.0f rows/s, %d in the last transaction)\n",
			g.counts.Units, g.opt.Units, g.conflictSeq, len(g.fates), g.counts.Events, el.Seconds(),
			float64(g.w.written)/el.Seconds(), n)
	}
	return nil
}

// member picks a recording agent, weighted by how much each records.
func (g *gen) member() member {
	n := g.r.IntN(g.weights[len(g.weights)-1])
	for i, w := range g.weights {
		if n < w {
			return g.writers[i]
		}
	}
	return g.writers[len(g.writers)-1]
}

// other picks a recording agent other than id.
func (g *gen) other(id string) member {
	for {
		if m := g.member(); m.ID != id {
			return m
		}
	}
}
