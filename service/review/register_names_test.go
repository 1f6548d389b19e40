package review_test

import (
	"context"
	"strings"
	"testing"

	"arbiter/model"
	rt "arbiter/service/review/reviewtest"
)

// Agent ids and roles reach every screen that names their agent, so
// REGISTER refuses those that could drive a terminal or hide what they
// say: controls (escape sequences start with one), invisible format
// characters, whitespace in an id, invalid UTF-8, and names too long to
// show.
func TestRegisterRefusesIdsAndRolesThatCouldDriveATerminal(t *testing.T) {
	f := rt.New(t, rt.Policy())
	ctx := context.Background()
	hostile := []struct{ name, id, role string }{
		{"CSI in the id", "agent-\x1b[2J7", "analyst"},
		{"OSC 52 in the role", "agent-7", "lead\x1b]52;c;ZXZpbA==\x07"},
		{"OSC 8 hyperlink in the id", "\x1b]8;;https://evil.example\x1b\\op\x1b]8;;\x1b\\", "analyst"},
		{"BEL", "agent\x07", "analyst"},
		{"backspace overwrite", "operator\x08\x08\x08\x08\x08\x08\x08\x08bot", "analyst"},
		{"carriage return overwrite", "bot\roperator", "analyst"},
		{"newline in the id", "agent\nforged line", "analyst"},
		{"tab in the role", "agent-7", "lead\tanalyst"},
		{"NUL", "agent\x00", "analyst"},
		{"DEL", "agent\x7f", "analyst"},
		{"C1 CSI", "agent\u009b2J", "analyst"},
		{"C1 next line in the role", "agent-7", "lead\u0085x"},
		{"bidi override", "invoice\u202egpj.exe", "analyst"},
		{"bidi isolate in the role", "agent-7", "\u2067admin\u2069"},
		{"zero-width space", "op\u200berator", "analyst"},
		{"tag characters", "agent\U000E0041", "analyst"},
		{"line separator", "agent\u2028x", "analyst"},
		{"space in the id", "senior 1", "analyst"},
		{"no-break space in the id", "senior\u00a01", "analyst"},
		{"invalid UTF-8", "agent\xff", "analyst"},
		{"id too long", strings.Repeat("a", 257), "analyst"},
		{"role too long", "agent-7", strings.Repeat("r", 257)},
	}
	before := f.Clock(t)
	for _, h := range hostile {
		_, err := f.Svc.Register(ctx, model.Agent{ID: h.id, Role: h.role, Authority: model.AuthorityStandard})
		if !model.HasCode(err, model.CodeInvalidRequest) {
			t.Errorf("%s: REGISTER gave %v, want INVALID_REQUEST", h.name, err)
			continue
		}
		if msg := err.Error(); strings.ContainsAny(msg, "\x1b\x07\x08\r\n\x00\u009b\u202e") {
			t.Errorf("%s: the refusal itself carries the raw text: %q", h.name, msg)
		}
	}
	if got := f.Clock(t); got != before {
		t.Errorf("refused registrations moved the clock from %d to %d", before, got)
	}
}

func TestRegisterAcceptsPrintableUnicodeNames(t *testing.T) {
	f := rt.New(t, rt.Policy())
	for _, a := range []model.Agent{
		{ID: "ag€nt_Ω-7", Role: "senior analyst"},
		{ID: "日本語-bot", Role: "レビュー"},
		{ID: "emoji-👍🏽", Role: "cheer leader"},
		{ID: "café.naïve@example", Role: "lead"},
		{ID: strings.Repeat("a", 256), Role: strings.Repeat("r", 256)},
	} {
		a.Authority = model.AuthorityStandard
		got, err := f.Svc.Register(context.Background(), a)
		if err != nil {
			t.Errorf("REGISTER %q (%q): %v", a.ID, a.Role, err)
			continue
		}
		if got.ID != a.ID || got.Role != a.Role {
			t.Errorf("REGISTER %q (%q) stored %q (%q)", a.ID, a.Role, got.ID, got.Role)
		}
	}
}
