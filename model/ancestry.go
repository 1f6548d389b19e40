package model

// Ancestor is the nearest earlier unit that both units of a conflict
// revise: each reaches it through supersedes relations, directly or along
// a chain. It is the base of a three-way comparison of the two.
type Ancestor struct {
	UnitID string `json:"unit_id"`
	// PathA runs from unit A to the ancestor, both included: each unit
	// of it supersedes the next. PathB is the same from unit B.
	PathA []string `json:"path_a"`
	PathB []string `json:"path_b"`
}

// Lineage is what a walk back along supersedes relations reached from
// one unit: every unit reached, in the order reached, with the unit it
// was first reached from. The walk itself (over the field) is review's;
// a Lineage only remembers it.
type Lineage struct {
	start   string
	reached []string          // in the order reached; start first
	via     map[string]string // unit → the unit it was first reached from
	steps   map[string]int    // unit → supersedes relations from start
}

// NewLineage starts a lineage at unit start.
func NewLineage(start string) *Lineage {
	return &Lineage{start: start, reached: []string{start},
		via: map[string]string{}, steps: map[string]int{start: 0}}
}

// Reach records that from, already reached, supersedes to. It reports
// whether to is new to the lineage; a unit reached before (along a
// shorter or equal path, or around a cycle) keeps its first path.
func (l *Lineage) Reach(from, to string) bool {
	n, ok := l.steps[from]
	if !ok {
		return false
	}
	if _, seen := l.steps[to]; seen {
		return false
	}
	l.steps[to] = n + 1
	l.via[to] = from
	l.reached = append(l.reached, to)
	return true
}

// Len is how many units the lineage holds, its start included.
func (l *Lineage) Len() int { return len(l.reached) }

// Steps is how many supersedes relations lead from the start to id, and
// whether id was reached at all.
func (l *Lineage) Steps(id string) (int, bool) {
	n, ok := l.steps[id]
	return n, ok
}

// Path lists the units from the start to id, both included; nil if id
// was not reached.
func (l *Lineage) Path(id string) []string {
	n, ok := l.steps[id]
	if !ok {
		return nil
	}
	path := make([]string, n+1)
	for i := n; i > 0; i-- {
		path[i] = id
		id = l.via[id]
	}
	path[0] = l.start
	return path
}

// NearestCommonAncestor picks, among the units both lineages reached, the
// one fewest supersedes relations away from the two starts together;
// on a tie, the one whose longer path is shorter; then the one a reached
// first. The two starts themselves never count: when one unit of a
// conflict supersedes the other, that is not a shared ancestor. ok is
// false when the lineages share no unit.
func NearestCommonAncestor(a, b *Lineage) (anc Ancestor, ok bool) {
	best, bestSum, bestMax := "", 0, 0
	for _, id := range a.reached {
		if id == a.start || id == b.start {
			continue
		}
		nb, shared := b.steps[id]
		if !shared {
			continue
		}
		na := a.steps[id]
		sum, longer := na+nb, max(na, nb)
		if best == "" || sum < bestSum || (sum == bestSum && longer < bestMax) {
			best, bestSum, bestMax = id, sum, longer
		}
	}
	if best == "" {
		return Ancestor{}, false
	}
	return Ancestor{UnitID: best, PathA: a.Path(best), PathB: b.Path(best)}, true
}
