#!/bin/sh
# scripts/perf.sh — arbiter on a million-unit field (docs/performance.md,
# "A million-unit field").
#
# Builds the binary, generates the field once (1,000,000 units, 100,000
# conflicts, 10,000 open for review; kept in $ARBITER_PERF_DIR, default
# /tmp/arbiter-perf, about 2.2 GB), then measures and prints:
#   - `arbiter list --json` of the open conflicts against the sqlite3 shell
#     asked for the same rows, column by column (the floor), with hyperfine
#     if installed, otherwise a loop timed with date +%s%N;
#   - the review screen's benchmarks (first frame, navigation, 20 KB units);
#   - MERGE and VOTE, one by one, p50/p99, on a 10k-unit field and a copy
#     of the 1M one;
#   - the real binary in tmux (if installed): time to the first queue frame
#     (against tmux showing a line a shell prints) and peak memory (VmHWM)
#     while paging, opening conflicts and listing every status.
# Sizes: UNITS, CONFLICTS, OPEN, SEED; repetitions: RUNS, and FRAMES for the
# first frame. On a shared machine, QUIET=1.0 waits (up to 20 minutes)
# before each measurement until the 1-minute load average is below 1.0;
# each section prints the load.
set -eu
cd "$(dirname "$0")/.."

DIR=${ARBITER_PERF_DIR:-/tmp/arbiter-perf}
UNITS=${UNITS:-1000000}
CONFLICTS=${CONFLICTS:-100000}
OPEN=${OPEN:-10000}
SEED=${SEED:-1}
RUNS=${RUNS:-15}
mkdir -p "$DIR"
BIN=$DIR/arbiter
FIELD=$DIR/field-$UNITS-$CONFLICTS-$OPEN-$SEED.db

now() { date +%s%N; }
load() { cut -d' ' -f1 /proc/loadavg; }
quiet() {
	if [ -n "${QUIET:-}" ]; then
		n=0
		while awk -v q="$QUIET" '{exit !($1 >= q)}' /proc/loadavg && [ "$n" -lt 240 ]; do
			sleep 5
			n=$((n + 1))
		done
	fi
	echo "(load $(load))"
}
ms() { echo "$1 $2" | awk '{printf "%.1f", ($2 - $1) / 1e6}'; }

echo "== machine"
echo "nproc:    $(nproc)"
echo "cpu:      $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "memory:   $(awk '/MemTotal/ {printf "%.1f GB", $2 / 1048576}' /proc/meminfo)"
echo "go:       $(go version)"
command -v sqlite3 >/dev/null && echo "sqlite3:  $(sqlite3 --version | cut -d' ' -f1)"
command -v hyperfine >/dev/null && echo "hyperfine: $(hyperfine --version)"
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"

echo
echo "== build"
go build -o "$BIN" .
echo "$BIN"

if [ ! -f "$FIELD" ]; then
	echo
	echo "== generate"
	start=$(now)
	"$BIN" gen --db "$FIELD" --units "$UNITS" --conflicts "$CONFLICTS" --open "$OPEN" --seed "$SEED" 2>"$DIR/gen.log"
	echo "gen: $(ms "$start" "$(now)") ms (progress in $DIR/gen.log)"
fi
ls -l "$FIELD"

echo
echo "== list --json of the open conflicts, against the sqlite3 shell"
quiet
ARBITER_LIST_SQL=$DIR/list.sql go test ./store -run '^TestWriteListSQL$' -count=1 >/dev/null
# Both commands run through a one-line script, so that each pays the same
# exec of /bin/sh and the SQL needs no quoting.
printf '#!/bin/sh\nexec "%s" list --db "%s" --json\n' "$BIN" "$FIELD" >"$DIR/list.sh"
printf '#!/bin/sh\nexec sqlite3 -json "%s" <"%s"\n' "$FIELD" "$DIR/list.sql" >"$DIR/floor.sh"
chmod +x "$DIR/list.sh" "$DIR/floor.sh"
echo "rows: $("$DIR/list.sh" | grep -c '^  {')  bytes: $("$DIR/list.sh" | wc -c)  (sqlite3: $("$DIR/floor.sh" | wc -c) bytes)"

# timeit CMD: runs CMD $RUNS times, output discarded; prints min and median.
timeit() {
	: >"$DIR/times"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		s=$(now)
		"$1" >/dev/null
		e=$(now)
		echo "$s $e" | awk '{print ($2 - $1) / 1e6}' >>"$DIR/times"
		i=$((i + 1))
	done
	sort -n "$DIR/times" | awk '{a[NR] = $1} END {printf "min %7.1f ms   median %7.1f ms   (%d runs)\n", a[1], a[int((NR + 1) / 2)], NR}'
}

if command -v hyperfine >/dev/null; then
	hyperfine -N --warmup 3 --runs "$RUNS" -n arbiter "$DIR/list.sh" -n sqlite3 "$DIR/floor.sh"
else
	"$DIR/list.sh" >/dev/null
	"$DIR/floor.sh" >/dev/null # warm the page cache
	printf 'arbiter list --json   '
	timeit "$DIR/list.sh"
	printf 'sqlite3 (floor)       '
	timeit "$DIR/floor.sh"
fi

echo
echo "== review screen (go test ./door/tui -bench, on the 1M field where one is used)"
go test -c -o "$DIR/tui.test" ./door/tui
quiet
ARBITER_BENCH_FIELD=$FIELD "$DIR/tui.test" -test.run '^$' -test.bench 'QueueFirstFrame|QueueNavigate' -test.benchtime 200x 2>&1 | grep -E '^Benchmark'
quiet
"$DIR/tui.test" -test.run '^$' -test.bench 'RenderUnit20KB|OpenConflict20KB' -test.benchtime 50x 2>&1 | grep -E '^Benchmark'

echo
echo "== merge and vote, each one transaction, timed one by one"
go test -c -o "$DIR/fieldgen.test" ./service/fieldgen
quiet
ARBITER_BENCH_FIELD=$FIELD "$DIR/fieldgen.test" -test.run '^$' -test.bench 'Merge|Vote' -test.benchtime 1000x -test.timeout 30m 2>&1 | grep -E '^Benchmark'

if command -v tmux >/dev/null; then
	echo
	echo "== the real screen in tmux (160x48), as ops-maya"
	sock=$DIR/tmux.sock
	tmux -S "$sock" kill-server 2>/dev/null || true
	screen() { tmux -S "$sock" capture-pane -p; }
	keys() {
		for k in "$@"; do
			tmux -S "$sock" send-keys "$k"
			sleep 0.05
		done
	}
	waitfor() {
		n=0
		until screen | grep -q "$1"; do
			sleep 0.005
			n=$((n + 1))
			[ "$n" -lt 4000 ] || { echo "the screen never showed $1"; screen; return 1; }
		done
	}
	# firstframe CMD: ms from starting tmux running CMD until a conflict
	# id is on the screen, FRAMES times; prints min and median.
	firstframe() {
		: >"$DIR/times"
		i=0
		while [ "$i" -lt "${FRAMES:-9}" ]; do
			start=$(now)
			tmux -S "$sock" new-session -d -x 160 -y 48 "$1"
			waitfor 'conflict-'
			ms "$start" "$(now)" >>"$DIR/times"
			echo >>"$DIR/times"
			tmux -S "$sock" kill-server 2>/dev/null || true
			sleep 0.3
			i=$((i + 1))
		done
		sort -n "$DIR/times" | awk '{a[NR] = $1} END {printf "min %6.1f ms   median %6.1f ms   (%d runs)\n", a[1], a[int((NR + 1) / 2)], NR}'
	}
	quiet
	printf 'first queue frame after starting tmux:  '
	firstframe "exec '$BIN' --db '$FIELD' --as ops-maya"
	printf 'tmux alone (a shell printing an id):    '
	firstframe "echo conflict-; sleep 5"
	tmux -S "$sock" new-session -d -x 160 -y 48 "exec '$BIN' --db '$FIELD' --as ops-maya"
	waitfor 'conflict-'
	pid=$(tmux -S "$sock" list-panes -F '#{pane_pid}')
	echo "memory at the first frame: $(awk '/VmRSS/ {print $2 / 1024 " MB"}' /proc/"$pid"/status)"
	# Page to the end of the review queue (2,000 rows a load), open
	# conflicts, then every status and page through those too.
	for i in 1 2 3 4 5 6; do
		keys G
		sleep 0.5
	done
	for i in 1 2 3; do
		keys k Enter
		waitfor 'Rules:'
		sleep 0.5
		keys Escape
		sleep 0.3
	done
	keys a
	sleep 1
	for i in 1 2 3 4 5 6; do
		keys G
		sleep 0.5
	done
	keys Enter
	waitfor 'Rules:'
	sleep 0.5
	echo "peak memory (VmHWM): $(awk '/VmHWM/ {print $2 / 1024 " MB"}' /proc/"$pid"/status)"
	echo "last screen: $(screen | sed -n 2p | cut -c1-100)"
	keys Escape q
	sleep 0.3
	tmux -S "$sock" kill-server 2>/dev/null || true
fi

echo
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
