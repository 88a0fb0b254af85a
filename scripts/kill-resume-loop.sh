#!/bin/sh
# kill-resume-loop.sh: kill -9 a real `gmark submit --target local` over and
# over, each time at a random moment, and resume it at once; count the
# resumes that are refused ("being recorded by another process") and the
# jobs that ran twice or never. A run that ends before the kills are done is
# followed by a fresh one.
#
#   scripts/kill-resume-loop.sh [-n KILLS] [-w JOBS] [-g GMARK] [-d DIR]
#
# KILLS (default 200) is the number of kill -9; JOBS the jobs of a run
# (default 600, one every 20 ms, 50 ms each); GMARK the binary (default
# bin/gmark, built with `make build`); DIR the work directory (default a
# new temporary one, removed at the end when every check passed). Exit 0
# when no resume was refused and every job of every run ran exactly once;
# 1 otherwise. It runs long: on a shared machine, start it with nice -n 19.
set -eu

kills=200
jobs=600
gmark=bin/gmark
dir=
while getopts n:w:g:d: opt; do
	case $opt in
	n) kills=$OPTARG ;;
	w) jobs=$OPTARG ;;
	g) gmark=$OPTARG ;;
	d) dir=$OPTARG ;;
	*) echo "usage: $0 [-n KILLS] [-w JOBS] [-g GMARK] [-d DIR]" >&2; exit 2 ;;
	esac
done
case $gmark in /*) ;; *) gmark=$(pwd)/$gmark ;; esac
[ -x "$gmark" ] || { echo "$0: no gmark binary at $gmark (make build, or -g)" >&2; exit 2; }
keep=true
if [ -z "$dir" ]; then
	dir=$(mktemp -d "${TMPDIR:-/tmp}/gmark-kill-resume.XXXXXX")
	keep=false
fi
mkdir -p "$dir"
cd "$dir"

# Many short jobs, one every 20 ms, on 4 processors: the submitter forks a
# job's processes all the time, so kills land between a fork and its exec.
printf '# File-type: text/wl-spec\n# File-version: 1.1\n1\tunitary\t%d\tswf\tsingle\t1\t*:1\tC(20ms)\tRunTime=C(50ms)\n' "$jobs" >spec.wdl
"$gmark" generate spec.wdl -o wl -q
# Every job runs through this wrapper, which notes its directory before it
# execs gmark: a job run twice shows twice, whatever the submitter believes.
printf '#!/bin/sh\necho "$PWD" >> %s/witness.log\nexec %s "$@"\n' "$dir" "$gmark" >wrapper
chmod +x wrapper

done_kills=0 refused=0 runs=0 failed=0 dead=
# unrecorded FILE: FILE (a gmark's output) says the run is not in the store:
# the process was killed before it recorded the run, which starts again.
unrecorded() { grep -q -e "no run $run in" -e "no run $run:" -e "run $run is not in" "$1"; }
# rand MAX: a number in [0, MAX).
rand() { od -An -N2 -tu2 /dev/urandom | awk -v m="$1" '{print $1 % m}'; }

while [ "$done_kills" -lt "$kills" ]; do
	runs=$((runs + 1))
	run=r$runs
	first="submit wl --db results.db --run-id $run -q --target local --processors 4 --gmark $dir/wrapper"
	args=$first
	while :; do
		# shellcheck disable=SC2086
		"$gmark" $args >"out.$run" 2>&1 &
		pid=$!
		# The killed one is reaped only now: its resume starts at once,
		# while it may still be exiting, as after `kill -9 PID; gmark
		# submit --resume RUN`.
		if [ -n "$dead" ]; then
			wait "$dead" 2>/dev/null || true
			dead=
		fi
		# A random moment 20 to 420 ms in, when the process is recovering
		# or submitting.
		sleep "0.$(printf '%03d' $(($(rand 400) + 20)))" 2>/dev/null || sleep 1
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid" && code=0 || code=$?
			if grep -q "being recorded by another process" "out.$run"; then
				refused=$((refused + 1))
				echo "refused resume ($refused) after kill $done_kills: $(cat "out.$run")" >&2
				args="submit --resume $run --db results.db -q"
				continue
			fi
			if unrecorded "out.$run"; then
				# Killed before it recorded the run (before it made
				# the store, or after): nothing was submitted, and the
				# run starts again.
				args=$first
				continue
			fi
			[ "$code" -eq 0 ] || { echo "run $run: exit $code: $(cat "out.$run")" >&2; failed=$((failed + 1)); }
			break # the run ended before the kill
		fi
		kill -9 "$pid"
		dead=$pid
		done_kills=$((done_kills + 1))
		args="submit --resume $run --db results.db -q"
		[ "$done_kills" -lt "$kills" ] || break
	done
done
[ -z "$dead" ] || wait "$dead" 2>/dev/null || true
# The last run goes to its end. On a loaded machine every kill can land
# before the run was recorded: then it is started afresh, as in the loop.
if ! "$gmark" submit --resume "$run" --db results.db -q >"out.$run.last" 2>&1 &&
	! grep -q "already ended" "out.$run.last"; then
	if unrecorded "out.$run.last"; then
		# shellcheck disable=SC2086
		"$gmark" $first >"out.$run.last" 2>&1 ||
			{ echo "the last run $run, started afresh: $(cat "out.$run.last")" >&2; failed=$((failed + 1)); }
	else
		echo "the last --resume of $run: $(cat "out.$run.last")" >&2
		failed=$((failed + 1))
	fi
fi
touch witness.log

# Every job of every run ran exactly once: JOBS directories per run in the
# witness log, none twice.
twice=$(sort witness.log | uniq -d | wc -l)
ran=$(sort -u witness.log | wc -l)
want=$((runs * jobs))
echo "kills $done_kills, runs $runs, resumes refused $refused, jobs run $ran of $want, run twice $twice, runs failed $failed"
if [ "$refused" -ne 0 ] || [ "$twice" -ne 0 ] || [ "$ran" -ne "$want" ] || [ "$failed" -ne 0 ]; then
	echo "work directory kept: $dir" >&2
	exit 1
fi
$keep || rm -rf "$dir"
