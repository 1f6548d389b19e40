package tui

import (
	"strings"
	"testing"
)

func numbered(n int) string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = strings.Repeat("x", i%7)
	}
	return strings.Join(lines, "\n")
}

func TestTextThatGrowsKeepsTheReadersPlaceUnlessTheyWentToTheEnd(t *testing.T) {
	var s scroller
	s.SetWidth(20)
	s.SetHeight(10)
	s.SetContent(numbered(30), false)
	s.ScrollDown(15)
	s.SetContent(numbered(100), false)
	if s.YOffset() != 15 {
		t.Errorf("after the text grew the pane is at line %d, want 15 where the reader was", s.YOffset())
	}
	s.GotoBottom()
	s.SetContent(numbered(200), false)
	if s.YOffset() != 190 {
		t.Errorf("gone to the end, the pane is at line %d once the text grew, want 190", s.YOffset())
	}
	s.ScrollUp(5)
	s.SetContent(numbered(300), false)
	if s.YOffset() != 185 {
		t.Errorf("scrolled up from the end, the pane is at line %d, want 185", s.YOffset())
	}
}
