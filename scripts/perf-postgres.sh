#!/bin/sh
# scripts/perf-postgres.sh — arbiter on a million-unit field on PostgreSQL
# (docs/performance.md, "A team on PostgreSQL").
#
# Uses the server PGURL names (a connection string whose user may create
# schemas; default: a cluster of its own, started here in
# $ARBITER_PERF_DIR/pg with fsync on and 2 GB of shared buffers, as the
# user postgres when run as root), generates the field once in schema
# f1m (1,000,000 units, 100,000 conflicts, 10,000 open), copies it to
# schema w1 for the benchmarks that decide (they use up conflicts), then
# measures and prints:
#   - `arbiter list --json` of the open conflicts against psql asked for
#     the same rows with the same query;
#   - the review screen's first frame (in process, on the server's field);
#   - MERGE and VOTE one by one, p50/p99;
#   - 1 and 8 deciders in separate processes: decisions per second;
#   - how soon a waiting screen sees another process's write;
#   - the embedded engine (SQLite) under 8 writer processes: each write's
#     wait, for WRITERS_FOR (default 60s).
# RUNS repetitions of the list (default 15).
set -eu
cd "$(dirname "$0")/.."

DIR=${ARBITER_PERF_DIR:-/tmp/arbiter-perf}
RUNS=${RUNS:-15}
mkdir -p "$DIR"
BIN=$DIR/arbiter
now() { date +%s%N; }
load() { cut -d' ' -f1 /proc/loadavg; }

if [ -z "${PGURL:-}" ]; then
	PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
	PGDIR=$DIR/pg
	as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
	if [ ! -d "$PGDIR/data" ]; then
		mkdir -p "$PGDIR"
		[ "$(id -u)" = 0 ] && chown postgres: "$PGDIR"
		as_pg "$PGBIN/initdb" -D "$PGDIR/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
	fi
	if ! as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" status >/dev/null 2>&1; then
		as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/log" -w \
			-o "-c listen_addresses='' -k $PGDIR -c shared_buffers=2GB -c max_wal_size=8GB -c checkpoint_timeout=30min -c max_connections=200" \
			start >/dev/null
	fi
	psql -h "$PGDIR" -U postgres -d postgres -Atc "SELECT 1 FROM pg_database WHERE datname = 'team'" | grep -q 1 ||
		psql -h "$PGDIR" -U postgres -d postgres -qc "CREATE DATABASE team"
	PGURL="postgres://postgres@/team?host=$PGDIR"
fi
case $PGURL in *\?*) sep='&' ;; *) sep='?' ;; esac
FIELD="$PGURL${sep}search_path=f1m"
WORK="$PGURL${sep}search_path=w1"
# psql takes the schema through options.
FIELDQ="$PGURL${sep}options=-csearch_path%3Df1m"
WORKQ="$PGURL${sep}options=-csearch_path%3Dw1"

echo "== machine"
echo "nproc:    $(nproc)"
echo "cpu:      $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "go:       $(go version)"
echo "server:   $(psql "$PGURL" -Atc 'SHOW server_version') (shared_buffers $(psql "$PGURL" -Atc 'SHOW shared_buffers'), fsync $(psql "$PGURL" -Atc 'SHOW fsync'), synchronous_commit $(psql "$PGURL" -Atc 'SHOW synchronous_commit'))"
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"

go build -o "$BIN" .
if ! psql "$PGURL" -Atc "SELECT 1 FROM pg_namespace WHERE nspname = 'f1m'" | grep -q 1; then
	echo
	echo "== generate"
	start=$(now)
	"$BIN" gen --db "$FIELD" --units 1000000 --conflicts 100000 --open 10000 --seed 1 2>"$DIR/gen-pg.log"
	echo "gen: $(( ($(now) - start) / 1000000 )) ms"
	psql "$FIELDQ" -qc 'VACUUM ANALYZE'
fi
echo
echo "== copy to w1 (for the benchmarks that decide; KEEP_WORK=1 keeps the last copy)"
if [ -z "${KEEP_WORK:-}" ] || ! psql "$PGURL" -Atc "SELECT 1 FROM pg_namespace WHERE nspname = 'w1'" | grep -q 1; then
	psql "$PGURL" -qc 'DROP SCHEMA IF EXISTS w1 CASCADE' 2>/dev/null
	start=$(now)
	"$BIN" copy --from "$FIELD" --to "$WORK" | tail -1
	echo "copy: $(( ($(now) - start) / 1000000 )) ms"
	psql "$WORKQ" -qc 'VACUUM ANALYZE'
fi

echo
echo "== list --json of the open conflicts, against psql (load $(load))"
ARBITER_LIST_SQL=$DIR/pglist.sql go test ./store/postgres -run '^TestWriteListSQL$' -count=1 >/dev/null
printf '#!/bin/sh\nexec "%s" list --db "%s" --json\n' "$BIN" "$FIELD" >"$DIR/pglist.sh"
printf '#!/bin/sh\nexec psql -X -q -A -t "%s" -f "%s"\n' "$FIELDQ" "$DIR/pglist.sql" >"$DIR/pgfloor.sh"
chmod +x "$DIR/pglist.sh" "$DIR/pgfloor.sh"
echo "rows: arbiter $("$DIR/pglist.sh" | grep -c '^  {'), psql $("$DIR/pgfloor.sh" | wc -l)"
timeit() {
	: >"$DIR/times"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		s=$(now)
		"$1" >/dev/null
		echo "$s $(now)" | awk '{print ($2 - $1) / 1e6}' >>"$DIR/times"
		i=$((i + 1))
	done
	sort -n "$DIR/times" | awk '{a[NR] = $1; s += $1} END {printf "min %6.1f ms   median %6.1f ms   mean %6.1f ms (%d runs)\n", a[1], a[int((NR + 1) / 2)], s / NR, NR}'
}
printf 'arbiter list --json  '
timeit "$DIR/pglist.sh"
printf 'psql (floor)         '
timeit "$DIR/pgfloor.sh"

echo
echo "== the review screen's first frame, in process (load $(load))"
ARBITER_BENCH_FIELD=$FIELD go test ./door/tui -run '^$' -bench 'QueueFirstFrame' -benchtime 50x 2>&1 | grep -E '^Benchmark'

echo
echo "== merge and vote, one by one (load $(load))"
go test -c -o "$DIR/fieldgen.test" ./service/fieldgen
ARBITER_BENCH_POSTGRES=$WORK "$DIR/fieldgen.test" -test.run '^$' -test.bench '(Merge|Vote)/1M-postgres' -test.benchtime 1000x -test.timeout 30m 2>&1 | grep -E '^Benchmark'

echo
echo "== deciders in separate processes, 300 decisions each (load $(load))"
go test -c -o "$DIR/reliability.test" ./reliability
(cd reliability && ARBITER_BENCH_POSTGRES=$WORK "$DIR/reliability.test" -test.run '^$' -test.bench DecidersInProcesses -test.benchtime 1x -test.timeout 30m 2>&1 | grep -E '^Benchmark')

echo
echo "== a waiting screen sees another process's write (load $(load))"
go test -c -o "$DIR/review.test" ./service/review
ARBITER_BENCH_POSTGRES=$WORK "$DIR/review.test" -test.run '^$' -test.bench ChangeSeen -test.benchtime 200x 2>&1 | grep -E '^Benchmark' | sed 's/^/postgres /'
ARBITER_TEST_ENGINE=sqlite "$DIR/review.test" -test.run '^$' -test.bench ChangeSeen -test.benchtime 200x 2>&1 | grep -E '^Benchmark' | sed 's/^/sqlite   /'

echo
echo "== SQLite: 8 writer processes for ${WRITERS_FOR:-60s} (load $(load))"
(cd reliability && ARBITER_TEST_ENGINE=sqlite ARBITER_BENCH_FOR=${WRITERS_FOR:-60s} "$DIR/reliability.test" -test.run '^$' -test.bench WritersInProcesses -test.benchtime 1x -test.timeout 30m 2>&1 | grep -E '^Benchmark')
