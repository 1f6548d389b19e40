package tui

import (
	"context"
	"time"

	"arbiter/internal/keymap"
	"arbiter/service/review"

	tea "charm.land/bubbletea/v2"
)

// viewContext is what every screen is drawn and run with: the styles,
// the keys, the clock, and the session's context. Every command the
// screen starts takes ctx, so that the end of the program (a quit, a
// closed session) stops its reads, its writes and its watch on the field.
type viewContext struct {
	ctx    context.Context
	now    func() time.Time
	keys   keymap.Map
	styles Styles
}

// after sends msg once d has passed, unless the session ended first.
func (c viewContext) after(d time.Duration, msg tea.Msg) tea.Cmd {
	ctx := c.ctx
	return func() tea.Msg {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			return msg
		}
	}
}

// Run shows the screen over svc until the person quits or ctx ends (a
// closed session), with the program's options popts (its terminal).
// Whatever the screen started stops when it returns; a decision still in
// its undo window is written first (leave), since nobody can undo it
// any more.
func Run(ctx context.Context, svc review.Desk, opt Options, popts ...tea.ProgramOption) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opt.Context = ctx
	popts = append(popts[:len(popts):len(popts)], tea.WithContext(ctx))
	m := New(svc, opt)
	_, err := tea.NewProgram(m, popts...).Run()
	cancel()
	m.leave(ctx)
	// What was typed since it was last saved, the session's end
	// notwithstanding.
	m.keepDrafts(context.WithoutCancel(ctx))
	return err
}
