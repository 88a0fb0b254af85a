#!/bin/sh
# bench-report-rss.sh: the peak memory (maximum resident set size) and time
# of `gmark report -o` over real stores of 10^5, 3·10^5 and 10^6 jobs: a
# dryrun run (`gmark submit --target dryrun`) and a simulated one (`gmark
# koala simulate --db`) of the workload
#
#     1 unitary N swf single 1 - Poisson(0.01s) RunTime=Exp(1)
#
#   scripts/bench-report-rss.sh [-g GMARK] [-d DIR] [-r ROUNDS] [SIZES...]
#
# GMARK is the binary (default bin/gmark, built with `make build`); DIR
# keeps the workloads and stores between runs (default
# $GMARK_BENCH_DIR, else a new temporary directory, removed at the end);
# ROUNDS the reports of each store (default 1); SIZES the job counts
# (default 100000 300000 1000000). Building the stores takes minutes (the
# 10^6 simulated one several); on a shared machine, start it with
# nice -n 19. Prints one line a report: store (dry, ksim), jobs, seconds
# (wall, and user CPU) and the maximum resident set size in KB.
set -eu

gmark=bin/gmark
dir=${GMARK_BENCH_DIR:-}
rounds=1
while getopts g:d:r: opt; do
	case $opt in
	g) gmark=$OPTARG ;;
	d) dir=$OPTARG ;;
	r) rounds=$OPTARG ;;
	*) echo "usage: $0 [-g GMARK] [-d DIR] [-r ROUNDS] [SIZES...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
sizes=${*:-100000 300000 1000000}
case $gmark in /*) ;; *) gmark=$(pwd)/$gmark ;; esac
[ -x "$gmark" ] || { echo "$0: no gmark binary at $gmark (make build, or -g)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "$0: needs /usr/bin/time (GNU time) for the peak memory" >&2; exit 2; }
keep=true
if [ -z "$dir" ]; then
	dir=$(mktemp -d "${TMPDIR:-/tmp}/gmark-bench-report.XXXXXX")
	keep=false
fi
mkdir -p "$dir"
cd "$dir"

for n in $sizes; do
	if [ ! -f "w$n/workload.jsonl" ]; then
		printf '1\tunitary\t%s\tswf\tsingle\t1\t-\tPoisson(0.01s)\tRunTime=Exp(1)\n' "$n" >"w$n.wdl"
		rm -rf "w$n"
		"$gmark" generate -q -o "w$n" "w$n.wdl" >/dev/null
	fi
	if [ ! -f "dry$n.db" ]; then
		"$gmark" submit "w$n" --target dryrun --db "dry$n.db.tmp" --speedup 1000 >/dev/null 2>&1
		mv "dry$n.db.tmp" "dry$n.db"
	fi
	if [ ! -f "ksim$n.db" ]; then
		"$gmark" koala simulate --policy CF --limit 87600h --json --db "ksim$n.db.tmp" --run-id r "w$n" >/dev/null
		mv "ksim$n.db.tmp" "ksim$n.db"
	fi
done

printf '%-6s %8s %8s %8s %10s\n' store jobs seconds cpu-s max-RSS-KB
for n in $sizes; do
	for kind in dry ksim; do
		i=0
		while [ "$i" -lt "$rounds" ]; do
			rm -rf out
			/usr/bin/time -o time.txt -f "%e %U %M" "$gmark" report -o out --db "$kind$n.db" >/dev/null 2>report.err || { cat report.err >&2; exit 1; }
			read -r secs cpu kb <time.txt
			printf '%-6s %8d %8.2f %8.2f %10d\n' "$kind" "$n" "$secs" "$cpu" "$kb"
			i=$((i + 1))
		done
	done
done
rm -rf out time.txt report.err
cd /
$keep || rm -rf "$dir"
