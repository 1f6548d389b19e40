package tui

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"arbiter/internal/safetext"
	"arbiter/model"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// A quick decision is one key — keep A, keep B, dismiss — on the conflict
// on screen or on every marked row, then a one-line rationale at the
// bottom that already says what will be recorded, or why it would be
// refused. Enter writes it (after the undo window, pending.go); esc
// cancels.

// quickKind is which quick decision a prompt writes.
type quickKind int

const (
	quickKeepA quickKind = iota
	quickKeepB
	quickDismiss
	// quickReopen takes back a resolved conflict's decision.
	quickReopen
	// quickApprove carries out an escalation's proposal.
	quickApprove
	// quickRework sends a conflict back to its authors.
	quickRework
)

// names of each kind: for the prompt, for a batch, for the undo line.
var (
	kindNames  = []string{"Keep A", "Keep B", "Dismiss", "Reopen", "Approve", "Send back"}
	batchNames = []string{"Keep A on", "Keep B on", "Dismiss", "Reopen", "Approve the proposals of", "Send back"}
	kindVerbs  = []string{"keep A", "keep B", "dismiss", "reopen", "approve", "send back"}
)

// prompt is a quick decision being written.
type prompt struct {
	kind    quickKind
	targets []string
	// plans arrive from the field: what each target's decision would be.
	plans   []plan
	loaded  bool
	input   textinput.Model
	recent  int // which recent rationale ↑ brought back (-1: none)
	problem string
	// accepting: enter came before the plans; accept once they do.
	accepting bool
}

// plan is the decision a quick key makes on one conflict, or why it
// cannot.
type plan struct {
	req     model.MergeRequest
	detail  model.ConflictDetail
	winner  string
	refusal string
	// vote is the ballot keep A or keep B casts on a conflict put to a
	// vote the person may vote on (ballot.go).
	vote *model.VoteRequest
}

// plansMsg carries the plans of a prompt's targets.
type plansMsg struct {
	targets []string
	plans   []plan
}

// quick opens the prompt for a quick decision of kind on targets.
func (m *Model) quick(kind quickKind, targets []string) tea.Cmd {
	if why := m.canDecide(); why != "" {
		return m.say("Deciding is disabled: " + why + ".")
	}
	if len(targets) == 0 {
		return nil
	}
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = "why? (required)"
	if up := untypedKeys(m.keys.Up); up != "" {
		in.Placeholder = "why? (required; " + up + " brings back a recent rationale)"
	}
	if kind == quickRework {
		in.Placeholder = "what should the authors revise? (required: it is their directive)"
	}
	in.CharLimit = 2000
	in.SetWidth(max(20, m.width-2))
	m.prompt = &prompt{kind: kind, targets: targets, input: in, recent: -1}
	_, hw := m.highway()
	_, offline := m.svc.Offline()
	return tea.Batch(m.prompt.input.Focus(), planQuick(m.ctx, m.svc, m.me, m.agents, kind, targets, hw && !offline))
}

// planQuick works out, for each target, the decision a quick key makes:
// the honest strategy for a kept unit, dismiss, and whether the field
// would take it now (MERGE's dry run).
// reworks says whether the field takes reworks (a live field that has
// them).
func planQuick(ctx context.Context, svc deskReader, me model.Agent, agents []model.Agent, kind quickKind, targets []string, reworks bool) tea.Cmd {
	return func() tea.Msg {
		plans := make([]plan, len(targets))
		for i, id := range targets {
			if kind == quickRework {
				plans[i] = planRework(ctx, svc, me, id, reworks)
				continue
			}
			plans[i] = planOne(ctx, svc, me, agents, kind, id)
		}
		return plansMsg{targets: targets, plans: plans}
	}
}

func planOne(ctx context.Context, svc deskReader, me model.Agent, agents []model.Agent, kind quickKind, id string) plan {
	d, err := svc.Detail(ctx, id)
	if err != nil {
		// Nothing is known of the conflict but its id: the refusal says
		// so, and nothing else is built from the failed read.
		return plan{req: model.MergeRequest{ConflictID: id}, refusal: "could not read " + safetext.Line(id) + ": " + plainError(err)}
	}
	if (kind == quickKeepA || kind == quickKeepB) && d.Conflict.Status == model.StatusPendingVote {
		if mayBallot(me, d) {
			return planBallot(me, kind, d)
		}
		if why := ballotRefusal(me, agents, d); why != "" {
			return plan{detail: d, req: model.MergeRequest{ConflictID: id}, refusal: why}
		}
	}
	p := plan{detail: d, req: model.MergeRequest{ConflictID: id, ExpectedVersion: d.Conflict.Version,
		Resolution: model.MergeResolution{Rationale: "—"}}}
	switch kind {
	case quickReopen:
		switch {
		case !me.IsHumanOperator():
			p.refusal = "only a human operator (authority 10) takes a decision back"
		case d.Conflict.Resolution == nil:
			p.refusal = id + " is not resolved: there is no decision to take back"
		}
		return p
	case quickDismiss:
		p.req.Strategy = model.Dismiss
	case quickApprove:
		req, perr := approval(me, d, "—")
		if perr != nil {
			p.refusal = plainError(perr)
			return p
		}
		p.req = req
		if w := req.Resolution.WinnerID; w != nil {
			p.winner = *w
		}
	default:
		p.winner = d.Conflict.UnitA
		if kind == quickKeepB {
			p.winner = d.Conflict.UnitB
		}
		s, perr := model.HonestStrategy(me, d, p.winner)
		if perr != nil {
			p.refusal = plainError(perr)
			return p
		}
		p.req.Strategy, p.req.Resolution.WinnerID = s, model.Ptr(p.winner)
	}
	if err := svc.CheckMerge(ctx, me.ID, p.req); err != nil {
		p.refusal = plainError(err)
	}
	return p
}

// deskReader is what planning a quick decision reads.
type deskReader interface {
	Detail(ctx context.Context, id string) (model.ConflictDetail, error)
	CheckMerge(ctx context.Context, callerID string, req model.MergeRequest) error
}

// plansArrived shows what the prompt's decision would do.
func (m *Model) plansArrived(msg plansMsg) tea.Cmd {
	p := m.prompt
	if p == nil || !slices.Equal(p.targets, msg.targets) {
		return nil
	}
	p.plans, p.loaded = msg.plans, true
	if p.accepting {
		return m.acceptQuick()
	}
	if refused := refusedAll(p.kind, p.plans); refused != "" && strings.TrimSpace(p.input.Value()) == "" {
		// Nothing to ask a rationale for: say why, and close the prompt.
		m.prompt = nil
		return m.say(refused)
	}
	return nil
}

// promptKey is a key press while the prompt is open.
func (m *Model) promptKey(msg tea.KeyPressMsg) tea.Cmd {
	p := m.prompt
	k := m.keys
	typed := msg.Text != "" // a letter is text here, whatever it is bound to
	switch {
	case key.Matches(msg, k.Back):
		m.prompt = nil
		return nil
	case m.opensHelp(msg):
		m.openHelp()
		return nil
	case typed:
	case key.Matches(msg, k.Up):
		if len(m.recent) > 0 {
			p.recent = min(p.recent+1, len(m.recent)-1)
			p.input.SetValue(m.recent[p.recent])
			p.input.CursorEnd()
		}
		return nil
	case key.Matches(msg, k.Down):
		if p.recent > 0 {
			p.recent--
			p.input.SetValue(m.recent[p.recent])
		} else {
			p.recent = -1
			p.input.SetValue("")
		}
		return nil
	case key.Matches(msg, k.Accept):
		return m.acceptQuick()
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	p.problem = ""
	return cmd
}

// acceptQuick writes the prompt's decision on every target the field
// would take it on, after the undo window.
func (m *Model) acceptQuick() tea.Cmd {
	p := m.prompt
	why := strings.TrimSpace(p.input.Value())
	switch {
	case why == "":
		p.problem = "A rationale is required: it goes in the audit trail."
		return nil
	case !p.loaded:
		p.accepting = true // as soon as the field answers
		return nil
	}
	var reqs []model.MergeRequest
	var reworks []model.ReworkRequest
	var votes []model.VoteRequest
	for _, pl := range p.plans {
		switch {
		case pl.refusal != "":
		case pl.vote != nil:
			v := *pl.vote
			v.Rationale = why
			votes = append(votes, v)
		case p.kind == quickRework:
			reworks = append(reworks, model.ReworkRequest{ConflictID: pl.detail.Conflict.ID, Rationale: why,
				ExpectedVersion: pl.detail.Conflict.Version})
		case p.kind == quickApprove:
			req, perr := approval(m.me, pl.detail, why)
			if perr == nil {
				reqs = append(reqs, req)
			}
		default:
			req := pl.req
			req.Resolution.Rationale = why
			reqs = append(reqs, req)
		}
	}
	if len(reqs) == 0 && len(reworks) == 0 && len(votes) == 0 {
		p.problem = "Nothing to write: the field would refuse every one of them."
		return nil
	}
	m.remember(why)
	m.prompt = nil
	if p.kind == quickReopen {
		pl := p.plans[0]
		return reopen(m.ctx, m.svc, m.opt.As, model.ReopenRequest{ConflictID: pl.req.ConflictID, Rationale: why,
			ExpectedVersion: pl.req.ExpectedVersion})
	}
	m.marks = map[string]bool{}
	label := m.quickLabel(p.kind, p.plans)
	m.toQueue()
	cmd := m.holdPending(&pending{label: label, reqs: reqs, votes: votes, reworks: reworks})
	m.queue.skipTo(m.queueRows(), m.isPending, "")
	return cmd
}

// untypedKeys are b's keys that are not text: the ones the prompt
// takes as keys ("↑" of "↑/k"), "" if none.
func untypedKeys(b key.Binding) string {
	var out []string
	for _, k := range keysOf(b) {
		if utf8.RuneCountInString(k) > 1 || (k != "" && k[0] >= utf8.RuneSelf) {
			out = append(out, k)
		}
	}
	return strings.Join(out, "/")
}

// remember keeps a rationale for ↑, most recent first, without repeats.
func (m *Model) remember(why string) {
	m.recent = slices.DeleteFunc(m.recent, func(s string) bool { return s == why })
	m.recent = append([]string{why}, m.recent...)
	if len(m.recent) > 20 {
		m.recent = m.recent[:20]
	}
}

// startReopen opens the prompt that takes back the decision of the
// resolved conflict on screen.
func (m *Model) startReopen() tea.Cmd {
	v := &m.conflict
	switch {
	case m.canDecide() != "":
		return m.say("Reopening is disabled: " + m.canDecide() + ".")
	case !v.loaded:
		return nil
	case v.detail.Conflict.Status != model.StatusResolved:
		return m.say(v.id + " is not resolved: there is no decision to take back.")
	case !m.me.IsHumanOperator():
		return m.say("Only a human operator (authority 10) reopens a decision; you are " + m.me.ID + ".")
	}
	return m.quick(quickReopen, []string{v.id})
}

// reopenedMsg is the field's answer to a reopen.
type reopenedMsg struct {
	resp model.ReopenResponse
	err  error
}

func reopen(ctx context.Context, svc interface {
	Reopen(context.Context, string, model.ReopenRequest) (model.ReopenResponse, error)
}, as string, req model.ReopenRequest) tea.Cmd {
	return func() tea.Msg {
		resp, err := svc.Reopen(ctx, as, req)
		return reopenedMsg{resp: resp, err: err}
	}
}

// reopened says what taking the decision back did.
func (m *Model) reopened(msg reopenedMsg) tea.Cmd {
	if msg.err != nil {
		return m.say("Not reopened: " + plainError(msg.err))
	}
	c := msg.resp.Conflict
	m.written[c.ID] = c.Version
	s := "Reopened " + c.ID + ": escalated again"
	if len(msg.resp.Restored) > 0 {
		s += "; " + strings.Join(msg.resp.Restored, ", ") + " stand again"
	}
	if msg.resp.Retracted != nil {
		s += "; " + *msg.resp.Retracted + " retracted"
	}
	return tea.Batch(m.say(s+"."), m.reloadQueue(), loadDetail(m.ctx, m.svc, c.ID))
}
