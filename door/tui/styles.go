package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Theme is the screen's palette: dark or light background, or no colour.
type Theme struct {
	Dark    bool
	NoColor bool
}

// Name is the glamour style that matches the theme.
func (t Theme) Name() string {
	switch {
	case t.NoColor:
		return "notty"
	case t.Dark:
		return "dark"
	}
	return "light"
}

// Styles is every style of the screen, built once per theme.
type Styles struct {
	Theme Theme

	App, Header, Title, Badge, ReadOnly, Muted, Faint, Bold, Error, Success, Warn, Selected, Row, Filter,
	PaneBorder, PaneBorderFocused, PaneTitle, SideA, SideB, Agree, Split, Added, Removed, Help, Dialog, Label,
	Disabled, Key lipgloss.Style

	Status map[string]lipgloss.Style
	Bar    struct{ Full, Empty lipgloss.Style }
	// Three is the three-way view: the words of each kind of change, and
	// the marks in the panes' gutter that name it.
	Three struct{ A, B, Both, Disputed, MarkA, MarkB, MarkBoth, MarkDisputed lipgloss.Style }
}

// NewStyles builds the styles of theme t.
func NewStyles(t Theme) Styles {
	pick := func(light, dark string) color.Color {
		if t.NoColor {
			return lipgloss.NoColor{}
		}
		return lipgloss.LightDark(t.Dark)(lipgloss.Color(light), lipgloss.Color(dark))
	}
	var (
		fg      = pick("#1f2328", "#e6edf3")
		muted   = pick("#57606a", "#8b949e")
		accent  = pick("#0550ae", "#79c0ff")
		sideA   = pick("#8250df", "#d2a8ff")
		sideB   = pick("#0a7f6f", "#56d4bc")
		red     = pick("#cf222e", "#ff7b72")
		green   = pick("#1a7f37", "#3fb950")
		yellow  = pick("#9a6700", "#d29922")
		selBg   = pick("#ddf4ff", "#1f3a5f")
		addBg   = pick("#dafbe1", "#12361f")
		delBg   = pick("#ffebe9", "#4a1c1c")
		border  = pick("#d0d7de", "#30363d")
		focused = pick("#0969da", "#58a6ff")
	)
	s := Styles{Theme: t}
	s.App = lipgloss.NewStyle().Foreground(fg)
	s.Header = lipgloss.NewStyle().Foreground(fg).Bold(true)
	s.Title = lipgloss.NewStyle().Foreground(accent).Bold(true)
	s.Badge = lipgloss.NewStyle().Foreground(pick("#ffffff", "#0d1117")).Background(accent).Padding(0, 1).Bold(true)
	s.ReadOnly = lipgloss.NewStyle().Foreground(pick("#ffffff", "#0d1117")).Background(yellow).Padding(0, 1).Bold(true)
	s.Muted = lipgloss.NewStyle().Foreground(muted)
	s.Faint = lipgloss.NewStyle().Foreground(muted).Faint(true)
	s.Bold = lipgloss.NewStyle().Bold(true)
	s.Error = lipgloss.NewStyle().Foreground(red).Bold(true)
	s.Success = lipgloss.NewStyle().Foreground(green).Bold(true)
	s.Warn = lipgloss.NewStyle().Foreground(yellow)
	s.Selected = lipgloss.NewStyle().Background(selBg).Foreground(fg).Bold(true).Reverse(t.NoColor)
	s.Row = lipgloss.NewStyle().Foreground(fg)
	s.Filter = lipgloss.NewStyle().Foreground(accent)
	s.PaneBorder = lipgloss.NewStyle().Foreground(border)
	s.PaneBorderFocused = lipgloss.NewStyle().Foreground(focused)
	s.PaneTitle = lipgloss.NewStyle().Bold(true)
	s.SideA = lipgloss.NewStyle().Foreground(sideA).Bold(true)
	s.SideB = lipgloss.NewStyle().Foreground(sideB).Bold(true)
	s.Agree = lipgloss.NewStyle().Foreground(green)
	s.Split = lipgloss.NewStyle().Foreground(yellow).Bold(true)
	s.Added = lipgloss.NewStyle().Background(addBg).Underline(t.NoColor)
	s.Removed = lipgloss.NewStyle().Background(delBg).Strikethrough(t.NoColor)
	s.Help = lipgloss.NewStyle().Foreground(muted)
	s.Dialog = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(focused).Padding(0, 1)
	s.Label = lipgloss.NewStyle().Foreground(muted).Bold(true)
	s.Disabled = lipgloss.NewStyle().Foreground(muted).Strikethrough(!t.NoColor)
	s.Key = lipgloss.NewStyle().Foreground(accent).Bold(true)
	s.Status = map[string]lipgloss.Style{
		"escalated":    lipgloss.NewStyle().Foreground(red).Bold(true),
		"pending_vote": lipgloss.NewStyle().Foreground(yellow).Bold(true),
		"detected":     lipgloss.NewStyle().Foreground(accent),
		"resolving":    lipgloss.NewStyle().Foreground(accent),
		"resolved":     lipgloss.NewStyle().Foreground(green),
	}
	s.Bar.Full = lipgloss.NewStyle().Foreground(accent)
	s.Bar.Empty = lipgloss.NewStyle().Foreground(border)
	// Without colour the changed words are underlined (disputed ones bold
	// too), and the gutter's marks say whose change it is.
	s.Three.A = lipgloss.NewStyle().Background(pick("#eedcff", "#3d2466")).Underline(t.NoColor)
	s.Three.B = lipgloss.NewStyle().Background(pick("#c9f2e9", "#0e4a40")).Underline(t.NoColor)
	s.Three.Both = lipgloss.NewStyle().Background(addBg).Underline(t.NoColor)
	s.Three.Disputed = lipgloss.NewStyle().Background(delBg).Bold(true).Underline(t.NoColor)
	s.Three.MarkA = s.SideA
	s.Three.MarkB = s.SideB
	s.Three.MarkBoth = lipgloss.NewStyle().Foreground(green).Bold(true)
	s.Three.MarkDisputed = lipgloss.NewStyle().Foreground(red).Bold(true)
	return s
}
