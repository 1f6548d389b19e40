package mcpmemory

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strings"
	"unicode"

	"arbiter/model"
)

// Policy is what a person may do to their file: keep one memory of a
// pair (any strategy that names it) or dismiss the pair. What their
// model has no room for is refused, saying why.
func (d *Desk) Policy(context.Context) (model.Policy, error) { return policy(), nil }

func policy() model.Policy {
	p := model.DefaultPolicy()
	p.Recusal = false
	p.Quorum = 0
	p.VoterMinAuthority = model.AuthorityHumanOperator + 1 // nobody votes
	p.Refused = map[model.Strategy]string{
		model.Synthesis:       "a new memory needs an embedding, which only mcp-memory-service computes",
		model.Vote:            "mcp-memory-service has no votes; its conflicts wait for one person",
		model.HumanEscalation: "mcp-memory-service has no escalation; its conflicts already wait for a person",
	}
	return p
}

// Agent is the person arbiter runs as: their file has no agents, so
// whoever opens it is taken for the memories' owner, a human operator.
func (d *Desk) Agent(_ context.Context, id string) (model.Agent, error) {
	if id == "" {
		return model.Agent{}, model.Errorf(model.OpAttune, model.CodeAgentNotRegistered,
			"say who you are with --as NAME (or ARBITER_AS)", "no caller given")
	}
	return owner(id), nil
}

func owner(id string) model.Agent {
	return model.Agent{ID: id, Role: "owner", Kind: model.KindHuman, Authority: model.AuthorityHumanOperator,
		Status: model.AgentIdle}
}

// Agents lists the person arbiter runs as, if any.
func (d *Desk) Agents(context.Context) ([]model.Agent, error) {
	if d.owner == "" {
		return []model.Agent{}, nil
	}
	return []model.Agent{owner(d.owner)}, nil
}

// VotedOn: nobody votes on their file.
func (d *Desk) VotedOn(context.Context, string) (map[string]bool, error) {
	return map[string]bool{}, nil
}

// row is a conflict of the queue with both memories' text, for search.
type row struct {
	model.ConflictSummary
	textA, textB string
}

// List returns the conflicts q selects: escalated ones are exactly the
// pairs their lister returns, oldest first.
func (d *Desk) List(ctx context.Context, q model.ListQuery) ([]model.ConflictSummary, error) {
	var out []model.ConflictSummary
	err := d.EachConflict(ctx, q, func(s model.ConflictSummary) error { out = append(out, s); return nil })
	if out == nil {
		out = []model.ConflictSummary{}
	}
	return out, err
}

// EachConflict calls fn with each conflict List returns, in order.
func (d *Desk) EachConflict(ctx context.Context, q model.ListQuery, fn func(model.ConflictSummary) error) error {
	var rows []row
	err := d.read(ctx, model.OpAttune, func(tx *sql.Tx) (err error) {
		rows, err = listRows(ctx, tx, q.Statuses)
		return err
	})
	if err != nil {
		return err
	}
	rows = slices.DeleteFunc(rows, func(r row) bool { return !matches(r, q.Search) })
	slices.SortStableFunc(rows, func(x, y row) int {
		if q.Sort == model.SortType {
			if c := cmp.Compare(x.Type, y.Type); c != 0 {
				return c
			}
		}
		if c := x.DetectedAt.Compare(y.DetectedAt); c != 0 {
			return c
		}
		return cmp.Compare(x.ID, y.ID)
	})
	rows = rows[min(len(rows), max(0, q.Offset)):]
	if q.Limit > 0 && len(rows) > q.Limit {
		rows = rows[:q.Limit]
	}
	for _, r := range rows {
		if err := fn(r.ConflictSummary); err != nil {
			return err
		}
	}
	return nil
}

// listRows reads the pairs of the statuses asked for (nil: all).
func listRows(ctx context.Context, tx *sql.Tx, statuses []model.ConflictStatus) ([]row, error) {
	want := func(s model.ConflictStatus) bool { return len(statuses) == 0 || slices.Contains(statuses, s) }
	var fs []found
	if want(model.StatusEscalated) {
		open, err := queryPairs(ctx, tx, openWhere)
		if err != nil {
			return nil, err
		}
		if fs, err = withMemories(ctx, tx, open); err != nil {
			return nil, err
		}
	}
	if want(model.StatusResolved) {
		decided, err := queryPairs(ctx, tx, resolvedWhere)
		if err != nil {
			return nil, err
		}
		more, err := withMemories(ctx, tx, decided)
		if err != nil {
			return nil, err
		}
		dismissed, err := dismissedPairs(ctx, tx)
		if err != nil {
			return nil, err
		}
		fs = append(append(fs, more...), dismissed...)
	}
	shared, err := sharedKeys(ctx, tx)
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	for _, f := range fs {
		seen[pairKey(f.a.hash, f.b.hash)]++
	}
	out := make([]row, 0, len(fs))
	for _, f := range fs {
		k := pairKey(f.a.hash, f.b.hash)
		f.long = shared[k] || seen[k] > 1
		out = append(out, row{ConflictSummary: summary(f.toConflict()), textA: f.a.content, textB: f.b.content})
	}
	return out, nil
}

// withMemories loads both memories of each pair.
func withMemories(ctx context.Context, q queryer, ps []pair) ([]found, error) {
	var hs []string
	for _, p := range ps {
		hs = append(hs, p.a, p.b)
	}
	ms, err := memoriesByHash(ctx, q, hs...)
	if err != nil {
		return nil, err
	}
	out := make([]found, 0, len(ps))
	for _, p := range ps {
		a, okA := ms[p.a]
		b, okB := ms[p.b]
		if okA && okB {
			out = append(out, found{p: p, a: a, b: b})
		}
	}
	return out, nil
}

// dismissedPairs lists the pairs a person dismissed through arbiter that
// stand dismissed: no contradicts edge joins them again and neither
// memory is deleted. The latest record of each pair counts.
func dismissedPairs(ctx context.Context, q queryer) ([]found, error) {
	ds, err := dismissals(ctx, q, "")
	if err != nil {
		return nil, err
	}
	latest := map[[2]string]string{}
	var order [][2]string
	for _, x := range ds {
		other := lookup(x.entry, "conflict_with")
		if lookup(x.entry, "resolution_action") != actionDismiss || other == "" || other == x.hash {
			continue
		}
		k := [2]string{min(x.hash, other), max(x.hash, other)}
		prev, seen := latest[k]
		if !seen {
			order = append(order, k)
		}
		if !seen || lookupTime(x.entry, "resolved_at").After(lookupTime(prev, "resolved_at")) {
			latest[k] = x.entry
		}
	}
	var out []found
	for _, k := range order {
		ms, err := memoriesByHash(ctx, q, k[0], k[1])
		if err != nil {
			return nil, err
		}
		a, okA := ms[k[0]]
		b, okB := ms[k[1]]
		if !okA || !okB || a.deleted != nil || b.deleted != nil {
			continue
		}
		var n int
		if err := q.QueryRowContext(ctx, `SELECT count(*) FROM memory_graph WHERE relationship_type = 'contradicts'
			AND ((source_hash = ?1 AND target_hash = ?2) OR (source_hash = ?2 AND target_hash = ?1))`, k[0], k[1]).Scan(&n); err != nil {
			return nil, err
		}
		if n == 0 {
			out = append(out, found{dismissed: latest[k], a: a, b: b})
		}
	}
	return out, nil
}

// matches reports whether r matches every word of search: a word is part
// of what the queue shows (id, status, type, memory ids, authors,
// description), or begins a word of either memory's text.
func matches(r row, search string) bool {
	shown := strings.ToLower(strings.Join([]string{r.ID, string(r.Status), string(r.Type), r.UnitA, r.UnitB,
		r.AgentA, r.AgentB, r.Description}, " "))
	for _, w := range strings.Fields(strings.ToLower(search)) {
		if !strings.Contains(shown, w) && !beginsWord(r.textA, w) && !beginsWord(r.textB, w) {
			return false
		}
	}
	return true
}

func beginsWord(text, w string) bool {
	for _, word := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if strings.HasPrefix(word, w) {
			return true
		}
	}
	return false
}

// Counts returns how many pairs wait (escalated) and how many are
// decided (resolved).
func (d *Desk) Counts(ctx context.Context) (map[model.ConflictStatus]int, error) {
	out := map[model.ConflictStatus]int{}
	err := d.read(ctx, model.OpAttune, func(tx *sql.Tx) error {
		open, err := countPairs(ctx, tx, openWhere)
		if err != nil {
			return err
		}
		decided, err := countPairs(ctx, tx, resolvedWhere)
		if err != nil {
			return err
		}
		dismissed, err := dismissedPairs(ctx, tx)
		if err != nil {
			return err
		}
		out[model.StatusEscalated], out[model.StatusResolved] = open, decided+len(dismissed)
		return nil
	})
	return out, err
}

// find looks up the pair a conflict id names.
func find(ctx context.Context, q queryer, op, id string) (found, error) {
	pa, pb, ok := splitConflictID(id)
	if !ok {
		return found{}, notAConflict(op, id)
	}
	ps, err := pairsMatching(ctx, q, pa+"*", pb+"*")
	if err != nil {
		return found{}, err
	}
	fs, err := withMemories(ctx, q, ps)
	if err != nil {
		return found{}, err
	}
	// An edge to a deleted memory is obsolete: their delete removes it.
	fs = slices.DeleteFunc(fs, func(f found) bool { return f.a.deleted != nil || f.b.deleted != nil })
	if len(fs) == 0 {
		if fs, err = dismissedMatching(ctx, q, pa, pb); err != nil {
			return found{}, err
		}
	}
	shared, err := sharedKeys(ctx, q)
	if err != nil {
		return found{}, err
	}
	for i := range fs {
		fs[i].long = shared[pairKey(fs[i].a.hash, fs[i].b.hash)]
	}
	switch len(fs) {
	case 0:
		return found{}, notAConflict(op, id)
	case 1:
		return fs[0], nil
	}
	ids := make([]string, len(fs))
	for i, f := range fs {
		ids[i] = conflictID(f.a.hash, f.b.hash, true)
	}
	return found{}, ambiguous(op, id, ids)
}

// dismissedMatching is dismissedPairs narrowed to two hash prefixes.
func dismissedMatching(ctx context.Context, q queryer, pa, pb string) ([]found, error) {
	all, err := dismissedPairs(ctx, q)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(f found) bool {
		return !(strings.HasPrefix(f.a.hash, pa) && strings.HasPrefix(f.b.hash, pb) ||
			strings.HasPrefix(f.a.hash, pb) && strings.HasPrefix(f.b.hash, pa))
	}), nil
}

// Detail returns everything known of one pair: both memories, what each
// rule picks, their common ancestor.
func (d *Desk) Detail(ctx context.Context, id string) (model.ConflictDetail, error) {
	var out model.ConflictDetail
	err := d.read(ctx, model.OpDetect, func(tx *sql.Tx) error {
		f, err := find(ctx, tx, model.OpDetect, id)
		if err != nil {
			return err
		}
		out, err = detail(ctx, tx, f)
		return err
	})
	return out, err
}

func detail(ctx context.Context, q queryer, f found) (model.ConflictDetail, error) {
	c := f.toConflict()
	dt := model.ConflictDetail{Conflict: c, Ballots: []model.Ballot{}, Events: []model.Event{},
		Notifications: []model.Notification{}, Policy: policy()}
	var err error
	if dt.A, err = side(ctx, q, f.a, c.Status.Open()); err != nil {
		return dt, err
	}
	if dt.B, err = side(ctx, q, f.b, c.Status.Open()); err != nil {
		return dt, err
	}
	dt.Tally = model.Count(c, nil, 0)
	dt.Picks = model.RulePicks(dt.A.Contender(), dt.B.Contender())
	dt.Ancestor, err = ancestry(ctx, q, f.a, f.b)
	return dt, err
}

// side is one memory of a pair with its supporters: the standing
// memories with a supports edge to it.
func side(ctx context.Context, q queryer, m memory, contested bool) (model.Side, error) {
	rels, err := relations(ctx, q, m)
	if err != nil {
		return model.Side{}, err
	}
	sup, err := supporters(ctx, q, m.hash)
	if err != nil {
		return model.Side{}, err
	}
	ids := make([]string, len(sup))
	for i, h := range sup {
		ids[i] = unitID(h)
	}
	return model.Side{Unit: toUnit(m, rels, contested && m.active()), Supporters: ids}, nil
}

// relations lists what a memory carries: its memory_graph edges, and a
// supersedes relation to each memory it supersedes.
func relations(ctx context.Context, q queryer, m memory) ([]model.Relation, error) {
	es, err := edgesFrom(ctx, q, m.hash)
	if err != nil {
		return nil, err
	}
	out := []model.Relation{}
	for _, e := range es {
		out = append(out, edgeRelation(e))
	}
	sup, err := supersedes(ctx, q, m)
	if err != nil {
		return nil, err
	}
	for _, h := range sup {
		r := model.Relation{Type: model.RelSupersedes, TargetID: unitID(h), Description: "its superseded_by names this memory"}
		if h == m.parentID {
			r.Description = "a newer version of it (parent_id)"
		}
		out = append(out, r)
	}
	return out, nil
}

// The walk back along supersedes relations stops after this many steps
// or units, so a cycle or a very long history costs a bounded number of
// queries.
const (
	maxAncestryDepth = 64
	maxAncestryUnits = 2048
)

// ancestry finds the nearest memory both memories revise, through
// parent_id and superseded_by, directly or along a chain.
func ancestry(ctx context.Context, q queryer, a, b memory) (*model.Ancestor, error) {
	la, err := lineage(ctx, q, a)
	if err != nil {
		return nil, err
	}
	lb, err := lineage(ctx, q, b)
	if err != nil {
		return nil, err
	}
	anc, ok := model.NearestCommonAncestor(la, lb)
	if !ok {
		return nil, nil
	}
	ids := func(hs []string) []string {
		out := make([]string, len(hs))
		for i, h := range hs {
			out[i] = unitID(h)
		}
		return out
	}
	return &model.Ancestor{UnitID: unitID(anc.UnitID), PathA: ids(anc.PathA), PathB: ids(anc.PathB)}, nil
}

func lineage(ctx context.Context, q queryer, start memory) (*model.Lineage, error) {
	l := model.NewLineage(start.hash)
	frontier := []memory{start}
	for depth := 0; depth < maxAncestryDepth && len(frontier) > 0; depth++ {
		var next []memory
		for _, m := range frontier {
			targets, err := supersedes(ctx, q, m)
			if err != nil {
				return nil, err
			}
			ms, err := memoriesByHash(ctx, q, targets...)
			if err != nil {
				return nil, err
			}
			for _, t := range targets {
				if l.Len() >= maxAncestryUnits {
					return l, nil
				}
				if tm, ok := ms[t]; ok && l.Reach(m.hash, t) {
					next = append(next, tm)
				}
			}
		}
		frontier = next
	}
	return l, nil
}

// Unit returns one memory with its relations both ways and the pairs it
// is in.
func (d *Desk) Unit(ctx context.Context, id string) (model.UnitDetail, error) {
	var out model.UnitDetail
	err := d.read(ctx, model.OpAttune, func(tx *sql.Tx) error {
		pattern, err := prefix(model.OpAttune, id)
		if err != nil {
			return err
		}
		ms, err := memoriesByPrefix(ctx, tx, pattern)
		if err != nil {
			return err
		}
		switch {
		case len(ms) == 0:
			return model.Errorf(model.OpAttune, model.CodeUnitNotFound, "", "there is no memory %q", id)
		case len(ms) > 1:
			return model.Errorf(model.OpAttune, model.CodeUnitNotFound, "give more characters of its hash",
				"%q names %d memories", id, len(ms))
		}
		out, err = unitDetail(ctx, tx, ms[0])
		return err
	})
	return out, err
}

func unitDetail(ctx context.Context, q queryer, m memory) (model.UnitDetail, error) {
	var out model.UnitDetail
	rels, err := relations(ctx, q, m)
	if err != nil {
		return out, err
	}
	contested, err := inOpenPair(ctx, q, m.hash)
	if err != nil {
		return out, err
	}
	out.Unit = toUnit(m, rels, contested)
	out.Incoming = []model.Link{}
	in, err := edgesTo(ctx, q, m.hash)
	if err != nil {
		return out, err
	}
	for _, e := range in {
		r := edgeRelation(e)
		out.Incoming = append(out.Incoming, model.Link{From: unitID(e.other), Type: r.Type, Description: r.Description})
	}
	if m.supersededBy != "" {
		out.Incoming = append(out.Incoming, model.Link{From: unitID(m.supersededBy), Type: model.RelSupersedes,
			Description: "its superseded_by names it"})
	}
	kids, err := children(ctx, q, m.hash)
	if err != nil {
		return out, err
	}
	for _, h := range kids {
		if h != m.supersededBy {
			out.Incoming = append(out.Incoming, model.Link{From: unitID(h), Type: model.RelSupersedes,
				Description: "a newer version of it (parent_id)"})
		}
	}
	out.Conflicts, err = conflictsOf(ctx, q, m)
	return out, err
}

// conflictsOf lists the pairs a memory is in, as conflicts.
func conflictsOf(ctx context.Context, q queryer, m memory) ([]model.Conflict, error) {
	ps, err := pairsOf(ctx, q, m.hash)
	if err != nil {
		return nil, err
	}
	fs, err := withMemories(ctx, q, ps)
	if err != nil {
		return nil, err
	}
	fs = slices.DeleteFunc(fs, func(f found) bool { return f.a.deleted != nil || f.b.deleted != nil })
	dismissed, err := dismissedPairs(ctx, q)
	if err != nil {
		return nil, err
	}
	for _, f := range dismissed {
		if f.a.hash == m.hash || f.b.hash == m.hash {
			fs = append(fs, f)
		}
	}
	shared, err := sharedKeys(ctx, q)
	if err != nil {
		return nil, err
	}
	out := []model.Conflict{}
	for _, f := range fs {
		f.long = shared[pairKey(f.a.hash, f.b.hash)]
		out = append(out, f.toConflict())
	}
	return out, nil
}
