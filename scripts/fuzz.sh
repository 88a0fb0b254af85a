#!/bin/sh
# fuzz.sh: run every fuzz target of the module in turn, each for a stated
# number of executions, and print what each one did. `make fuzz` calls it.
#
#   scripts/fuzz.sh [-n EXECS] [-t FUZZTIME] [-m MINIMIZE] [-p REGEXP] [-x REGEXP] [-o TABLE]
#
# EXECS (default 10000) is how many inputs each target runs
# (go test -fuzztime EXECSx): a count, not a time, so that a loaded machine
# makes every target run as many inputs as an idle one, only slower.
# FUZZTIME, when given (10m), runs each target for that long instead, with
# no count to reach. MINIMIZE (default 100x: executions, or a time such as
# 5s) bounds the minimisation of each input that found new coverage or a
# failure (go test -fuzzminimizetime; Go's own default, 60s an input, can
# take a short run's whole budget). -p keeps the packages whose import path
# matches REGEXP (grep -E), -x leaves out those that match. TABLE receives
# the summary table too (a file; default none).
#
# The fuzz targets' scratch files (t.TempDir) go to a directory in
# /dev/shm when there is one (FUZZ_TMPDIR overrides it): the targets that
# write SQLite files make ten times as many executions a second there as
# on a disk.
#
# Every target runs even when one finds something. One line per target:
# package, target, executions, seconds, and ok, FINDING (the failing input
# is saved under the package's testdata/fuzz/TARGET/ by go test),
# SHORT (fewer executions than EXECS) or BUILD (the package's tests do
# not build). Exit 0 when every target ran its
# count with no finding; 1 otherwise.
set -eu

execs=10000
fuzztime=
minimize=100x
only=
skip=
table=
while getopts n:t:m:p:x:o: opt; do
	case $opt in
	n) execs=$OPTARG ;;
	t) fuzztime=$OPTARG ;;
	m) minimize=$OPTARG ;;
	p) only=$OPTARG ;;
	x) skip=$OPTARG ;;
	o) table=$OPTARG ;;
	*) echo "usage: $0 [-n EXECS] [-t FUZZTIME] [-m MINIMIZE] [-p REGEXP] [-x REGEXP] [-o TABLE]" >&2; exit 2 ;;
	esac
done
case $execs in
'' | *[!0-9]*) echo "$0: -n $execs: the executions must be a whole number" >&2; exit 2 ;;
esac
budget=${execs}x
[ -n "$fuzztime" ] && budget=$fuzztime

go=${GO:-go}
cd "$(dirname "$0")/.."
module=$($go list -m)
scratch=${FUZZ_TMPDIR:-}
if [ -z "$scratch" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	scratch=/dev/shm
fi
tmp=$(mktemp -d "${scratch:-${TMPDIR:-/tmp}}/gmark-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/scratch"
export TMPDIR="$tmp/scratch"
summary=$tmp/summary
: >"$summary"

# The packages with fuzz targets: those whose test files define one (listing
# every package's tests would compile the whole tree's).
pkgs=$(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u | sed "s|^\.|$module|")
if [ -n "$only" ]; then
	pkgs=$(printf '%s\n' $pkgs | grep -E -- "$only" || true)
fi
if [ -n "$skip" ]; then
	pkgs=$(printf '%s\n' $pkgs | grep -v -E -- "$skip" || true)
fi
[ -n "$pkgs" ] || { echo "$0: no package with a fuzz target matches" >&2; exit 2; }

failed=0
for pkg in $pkgs; do
	# A package whose tests do not build is a failure, not a package
	# without targets.
	if ! $go test -list '^Fuzz' "$pkg" >"$tmp/list" 2>&1; then
		cat "$tmp/list"
		line=$(printf '%-52s %-24s %10s execs %6s s  %s' "${pkg#"$module"/}" "-" 0 0 "BUILD")
		echo "$line"
		echo "$line" >>"$summary"
		failed=1
		continue
	fi
	targets=$(grep '^Fuzz' "$tmp/list" || true)
	for f in $targets; do
		echo "== $pkg $f ($budget, minimisation $minimize)"
		log=$tmp/log
		start=$(date +%s)
		status=ok
		# No overall time limit (go test's default is 10 minutes): a slow
		# target on a loaded machine takes longer to make its count, and
		# the fuzzer itself stops an input that hangs (10 s).
		$go test -run '^$' -fuzz "^$f\$" -fuzztime "$budget" -fuzzminimizetime "$minimize" -timeout 0 "$pkg" >"$log" 2>&1 || status=FINDING
		secs=$(($(date +%s) - start))
		# go test prints "fuzz: elapsed: 12s, execs: 10017 (834/sec), ..."
		# every 3 s and at the end; the last such line is the total.
		n=$(sed -n 's/.*fuzz: elapsed: [^,]*, execs: \([0-9]*\).*/\1/p' "$log" | tail -n 1)
		[ -n "$n" ] || n=0
		if [ $status = ok ] && [ -z "$fuzztime" ] && [ "$n" -lt "$execs" ]; then
			status=SHORT
		fi
		[ $status = ok ] || { failed=1; cat "$log"; }
		grep -E '^(--- FAIL|    Failing input written to|    To re-run)' "$log" || true
		line=$(printf '%-52s %-24s %10s execs %6s s  %s' "${pkg#"$module"/}" "$f" "$n" "$secs" "$status")
		echo "$line"
		echo "$line" >>"$summary"
	done
done

echo "== fuzz targets: package, target, executions, seconds, result"
cat "$summary"
[ -z "$table" ] || cp "$summary" "$table"
if [ $failed -ne 0 ]; then
	echo "fuzz: findings or short runs in: $(grep -v ' ok$' "$summary" | awk '{print $1 "." $2}' | tr '\n' ' ')"
	exit 1
fi
echo "fuzz: no finding; $(wc -l <"$summary" | tr -d ' ') targets, each at least $budget"
