// Package benchfield gives benchmarks the fields they run on: one built
// small for each run, and a copy of a large one a person names.
package benchfield

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"arbiter/internal/benchmetrics"
	"arbiter/service/fieldgen"
)

// Fields runs a benchmark as two sub-benchmarks: "10k", on a field built
// with 10,000 units, and "1M", on a copy of the field ARBITER_BENCH_FIELD
// names (skipped without it; `arbiter gen` builds one, scripts/perf.sh
// does). run gets the field's path; the copy may be changed.
func Fields(b *testing.B, run func(b *testing.B, path string)) {
	b.Run("10k", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "field.db")
		if _, err := fieldgen.Build(context.Background(), path,
			fieldgen.Options{Units: 10_000, Conflicts: 4_000, Open: 3_000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		run(b, path)
	})
	b.Run("1M", func(b *testing.B) {
		src := os.Getenv("ARBITER_BENCH_FIELD")
		if src == "" {
			b.Skip("set ARBITER_BENCH_FIELD to a field built by `arbiter gen` (scripts/perf.sh does)")
		}
		path := filepath.Join(b.TempDir(), "field.db")
		if err := benchmetrics.CopyFile(src, path); err != nil {
			b.Fatal(err)
		}
		run(b, path)
	})
}
