package safetext

import (
	"strings"
	"testing"
)

const tenMB = 10 << 20

// repeatTo repeats unit until the result is at least n bytes long.
func repeatTo(unit string, n int) string {
	return strings.Repeat(unit, n/len(unit)+1)
}

func BenchmarkBlock10MB(b *testing.B) {
	inputs := []struct{ name, unit string }{
		{"plain-ascii", "An ordinary line of markdown with `code` and **bold** text.\n"},
		{"unicode-prose", "Décision: fusionner 日本語のテキスト 😀 avec l'unité — “ok”.\n"},
		{"mixed-hostile", "line\twith \x1b[31mcolour\x1b[0m, \u202ebidi\u202c, café 日本\r\n"},
		{"all-controls", "\x1b\x07\x08\r\x00\u009b\u202e\xff\t\u2028"},
	}
	for _, in := range inputs {
		s := repeatTo(in.unit, tenMB)
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				Block(s)
			}
		})
	}
}

func BenchmarkLineShort(b *testing.B) {
	inputs := []struct{ name, s string }{
		{"clean", "agent-7 (reviewer)"},
		{"hostile", "agent-\x1b[2J7\u202e\n"},
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Line(in.s)
			}
		})
	}
}
