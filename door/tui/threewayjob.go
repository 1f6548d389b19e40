package tui

import (
	"context"

	"arbiter/internal/safetext"
	"arbiter/internal/threeway"
	"arbiter/model"
	"arbiter/service/review"

	tea "charm.land/bubbletea/v2"
)

// A conflict's comparison with its ancestor is made in a command: the
// ancestor read from the field, the three texts compared and laid out for
// the panes. The screen keeps both, the comparison per conflict version
// and its layout per (conflict version, width, theme), so that showing it
// again, or after a resize, costs a lookup or a layout.

// cmpKey identifies the comparison of one version of a conflict.
type cmpKey struct {
	conflict string
	version  int64
}

// threeKey identifies one layout of a comparison: panes of width cells
// of text in a theme.
type threeKey struct {
	cmpKey
	width int
	theme string
}

// comparison is a conflict's texts compared: against their ancestor when
// they have one (base is then the ancestor), else with each other.
type comparison struct {
	c    threeway.Comparison
	rows []threeway.Row
	base *model.Unit
	// cut: a text was longer than the view's limit and only its start was
	// compared; a suggestion needs the whole texts.
	cut bool
}

// threeMsg is a comparison made, and laid out when a view asked.
type threeMsg struct {
	key  cmpKey
	cmp  *comparison
	err  error
	view threeKey
	laid *threeLaid // nil when no view asked
}

// threeCache keeps what the commands made.
type threeCache struct {
	cmps  map[cmpKey]*comparison
	laid  map[threeKey]*threeLaid
	asked map[threeKey]bool
}

// maxThreeCached bounds each map of the cache; past it, it starts afresh.
const maxThreeCached = 64

func (c *threeCache) init() {
	if c.cmps == nil {
		c.cmps, c.laid, c.asked = map[cmpKey]*comparison{}, map[threeKey]*threeLaid{}, map[threeKey]bool{}
	}
}

// compare makes a conflict's comparison. limit bounds each text compared
// (0: no bound); every text is made safe first, so the comparison's text
// is safe to show.
func compare(ctx context.Context, svc review.Desk, d model.ConflictDetail, limit int) (*comparison, error) {
	out := &comparison{}
	clean := func(s string) string {
		s = safetext.Block(s)
		if limit > 0 {
			var cut bool
			s, cut = safetext.Truncate(s, limit)
			out.cut = out.cut || cut
		}
		return s
	}
	a, b := clean(d.A.Unit.Content), clean(d.B.Unit.Content)
	if d.Ancestor == nil {
		out.c = threeway.CompareTwo(a, b)
	} else {
		base, err := svc.Unit(ctx, d.Ancestor.UnitID)
		if err != nil {
			return nil, err
		}
		out.base = &base.Unit
		out.c = threeway.Compare(clean(base.Unit.Content), a, b)
	}
	out.rows = out.c.Rows()
	return out, nil
}

// compareAndLay makes the comparison unless cmp is it already, and lays
// it out for k.
func compareAndLay(ctx context.Context, svc review.Desk, d model.ConflictDetail, cmp *comparison, k threeKey, st Styles) tea.Cmd {
	return func() tea.Msg {
		msg := threeMsg{key: k.cmpKey, cmp: cmp, view: k}
		if cmp == nil {
			msg.cmp, msg.err = compare(ctx, svc, d, maxRenderBytes)
			if msg.err != nil {
				return msg
			}
		}
		msg.laid = layThree(msg.cmp.rows, st, k.width)
		return msg
	}
}

// compareWhole makes the comparison of the whole texts, for a suggestion.
func compareWhole(ctx context.Context, svc review.Desk, d model.ConflictDetail) tea.Cmd {
	k := cmpKey{d.Conflict.ID, d.Conflict.Version}
	return func() tea.Msg {
		cmp, err := compare(ctx, svc, d, 0)
		return threeMsg{key: k, cmp: cmp, err: err}
	}
}

// storeThree keeps what a command made and shows it where it was asked
// for: on the conflict's screen, in its decision form.
func (m *Model) storeThree(msg threeMsg) tea.Cmd {
	c := &m.three
	c.init()
	delete(c.asked, msg.view)
	if msg.err == nil {
		if len(c.cmps) > maxThreeCached {
			clear(c.cmps)
		}
		if old := c.cmps[msg.key]; old == nil || old.cut {
			c.cmps[msg.key] = msg.cmp
		}
		if msg.laid != nil {
			if len(c.laid) > maxThreeCached {
				clear(c.laid)
			}
			c.laid[msg.view] = msg.laid
		}
	}
	v := &m.conflict
	if v.three.on && msg.view != (threeKey{}) && v.threeKey(m.styles) == msg.view {
		v.three.cmp, v.three.laid, v.three.err = msg.cmp, msg.laid, msg.err
		m.fillPanes()
	}
	if f := m.draft(msg.key.conflict); f != nil && f.suggest.waiting && f.detail.Conflict.Version == msg.key.version {
		f.suggestionArrived(msg.cmp, msg.err)
	}
	return nil
}

// requestThree gets the three-way view of the conflict on screen at its
// size: from the cache, or from a command (the panes say it is coming).
func (m *Model) requestThree() tea.Cmd {
	v := &m.conflict
	if !v.three.on || !v.loaded || v.detail.Ancestor == nil {
		return nil
	}
	c := &m.three
	c.init()
	k := v.threeKey(m.styles)
	if laid := c.laid[k]; laid != nil {
		v.three.cmp, v.three.laid, v.three.err = c.cmps[k.cmpKey], laid, nil
		return nil
	}
	v.three.laid, v.three.err = nil, nil
	if c.asked[k] {
		return nil
	}
	c.asked[k] = true
	return compareAndLay(m.ctx, m.svc, v.detail, c.cmps[k.cmpKey], k, m.styles)
}
