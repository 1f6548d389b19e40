package tui

import (
	"strings"
	"unicode"

	"charm.land/lipgloss/v2"
)

// maxDiffCells bounds the word diff's work (tokens of A × tokens of B).
const maxDiffCells = 4_000_000

// tokenize splits text into words, runs of spaces and single punctuation
// marks, so a diff can mark whole words.
func tokenize(s string) []string {
	var out []string
	start := 0
	kind := func(r rune) int {
		switch {
		case r == '\n':
			return 0
		case unicode.IsSpace(r):
			return 1
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '%':
			return 2
		}
		return 3
	}
	prev := -1
	for i, r := range s {
		k := kind(r)
		if i > start && (k != prev || k == 0 || k == 3) {
			out = append(out, s[start:i])
			start = i
		}
		prev = k
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// wordDiff marks the words of a that b lacks and those of b that a lacks,
// by longest common subsequence. ok is false when the texts are too large
// to compare here.
func wordDiff(a, b string, removed, added lipgloss.Style) (outA, outB string, ok bool) {
	ta, tb := tokenize(a), tokenize(b)
	if len(ta)*len(tb) > maxDiffCells {
		return a, b, false
	}
	keepA, keepB := lcs(ta, tb)
	return mark(ta, keepA, removed), mark(tb, keepB, added), true
}

// lcs returns, for each token of a and of b, whether it is part of a
// longest common subsequence.
func lcs(a, b []string) ([]bool, []bool) {
	n, m := len(a), len(b)
	// Row-by-row lengths of suffix LCS, kept whole for the walk back.
	dp := make([][]int32, n+1)
	for i := range dp {
		dp[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	keepA, keepB := make([]bool, n), make([]bool, m)
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i] == b[j]:
			keepA[i], keepB[j] = true, true
			i, j = i+1, j+1
		case dp[i+1][j] >= dp[i][j+1]:
			i++
		default:
			j++
		}
	}
	return keepA, keepB
}

func mark(tokens []string, keep []bool, st lipgloss.Style) string {
	var sb strings.Builder
	for i, t := range tokens {
		if keep[i] || strings.TrimSpace(t) == "" {
			sb.WriteString(t)
			continue
		}
		sb.WriteString(st.Render(t))
	}
	return sb.String()
}
