# gmark: the developer's entry points. `make test` is what CI runs.
GO       ?= go
FUZZEXECS ?= 10000
FUZZMINIMIZE ?= 100x
FUZZTIME ?=
FUZZPKG ?=
BENCHTIME ?= 1s

.PHONY: all build test check bench bench-slurm bench-grid bench-core bench-submit-mem bench-report bench-report-rss bench-trace bench-sim fuzz clean

all: build

# The revision and whether the tree has changes, stamped into the binary
# (gmark version, and every run's provenance). Go stamps them itself only in
# a plain git clone with -buildvcs on; this works in a worktree too.
VERSION_PKG := github.com/gmark/gmark/internal/version
REVISION := $(shell git rev-parse HEAD 2>/dev/null)
MODIFIED := $(shell git rev-parse HEAD >/dev/null 2>&1 && { test -z "$$(git status --porcelain 2>/dev/null)" && echo false || echo true; })
LDFLAGS  := -X $(VERSION_PKG).Revision=$(REVISION) -X $(VERSION_PKG).Modified=$(MODIFIED)

## build: compile the gmark binary into ./bin/gmark, stamped with the git revision
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/gmark ./cmd/gmark

## check: formatting and vet (for Linux, and for macOS so that gmark keeps building there)
check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=darwin $(GO) vet ./...

## test: formatting, vet, and every test (fuzz targets run their seed corpora). Most of the
## end-to-end tests' time is waiting (on schedules in real time, on Slurm daemons, on CEs), not
## CPU: four packages at once and up to six parallel tests in each overlap the waits on 2 cores.
## The timeout is past go test's default 10 minutes for a loaded machine.
TESTP ?= 4
TESTPARALLEL ?= 6
test: check
	$(GO) test -p $(TESTP) -parallel $(TESTPARALLEL) -timeout 25m ./...

## bench: every benchmark; generation speed figures are in ./generator; the
## submitter's memory growth curve (bench-submit-mem), the report's and the Slurm target's last
bench:
	$(GO) test -run '^$$' -bench . -skip 'SubmitMemory|ReportCurve|SlurmTargetVsSbatch|GridTargets' -benchtime $(BENCHTIME) ./...
	@$(MAKE) --no-print-directory bench-submit-mem
	@$(MAKE) --no-print-directory bench-report
	@$(MAKE) --no-print-directory bench-slurm
	@$(MAKE) --no-print-directory bench-lublin
	@$(MAKE) --no-print-directory bench-grid

## bench-submit-mem: peak heap of dryruns of 100k, 300k and 1M jobs (docs/performance.md)
bench-submit-mem:
	@$(GO) test -run '^$$' -bench SubmitMemory -benchtime 1x ./submitter/ | awk '\
	  /^BenchmarkSubmitMemory/ { split($$1, a, "[=-]"); for (i = 2; i < NF; i++) if ($$(i+1) == "peak-heap-MB") h = $$i; \
	    else if ($$(i+1) == "peak-sys-MB") s = $$i; else if ($$(i+1) == "read-peak-heap-MB") r = $$i; \
	    n[++k] = a[2]; p[k] = h; \
	    printf "submit dryrun %8d jobs: peak heap %6.1f MB (reading the workload first: %5.1f MB), from the OS %6.1f MB\n", a[2], h, r, s } \
	  /^(FAIL|panic|---)/ { print; bad = 1 } \
	  END { if (k > 1) printf "growth %d -> %d jobs: x%.2f (flat: 1.00)\n", n[1], n[k], p[k] / p[1]; exit bad }'

## bench-report: the HTML report of runs of 100k, 300k and 1M jobs (a local target, and as
## 'gmark koala simulate --db' records them): time and peak live heap (docs/performance.md);
## GMARK_BENCH_DIR=DIR keeps the stores between runs
bench-report:
	@$(GO) test -run '^$$' -bench ReportCurve -benchtime 1x -timeout 60m ./analyzer/report/ | awk '\
	  /^BenchmarkReportCurve/ { s = $$1; sub(/.*kind=/, "", s); sub(/\/.*/, "", s); j = $$1; sub(/.*jobs=/, "", j); sub(/-[0-9]+$$/, "", j); \
	    for (i = 2; i < NF; i++) if ($$(i+1) == "peak-live-heap-MB") h = $$i; else if ($$(i+1) == "s/report") t = $$i; \
	    k[s]++; n[s, k[s]] = j; p[s, k[s]] = h; \
	    printf "report %-9s %8d jobs: %6.2f s, peak live heap %7.1f MB\n", s, j, t, h } \
	  /^(FAIL|panic|---)/ { print; bad = 1 } \
	  END { for (s in k) if (k[s] > 1) printf "growth %s %d -> %d jobs: x%.2f (flat: 1.00)\n", s, n[s, 1], n[s, k[s]], p[s, k[s]] / p[s, 1]; exit bad }'

## bench-report-rss: the peak memory (maximum RSS) and time of `gmark report -o` over real
## stores of 10^5, 3·10^5 and 10^6 jobs, a dryrun run and a `gmark koala simulate --db` one
## (scripts/bench-report-rss.sh; docs/performance.md); GMARK_BENCH_DIR=DIR keeps the stores
## (building them takes minutes), REPORT_SIZES="N ..." other sizes
REPORT_SIZES ?= 100000 300000 1000000
bench-report-rss: build
	@nice -n 19 scripts/bench-report-rss.sh -g bin/gmark $(REPORT_SIZES)

## bench-slurm: `gmark submit --target slurm`'s submission rate against a plain loop of
## `sbatch --parsable` on a real test cluster, SLURM_PAIRS interleaved pairs of SLURM_JOBS jobs
## from 5 workers each (issue 19: a ratio of at least 0.9); skipped, saying why, without Slurm
SLURM_PAIRS ?= 10
SLURM_JOBS ?= 400
bench-slurm:
	@GMARK_BENCH_PAIRS=$(SLURM_PAIRS) GMARK_BENCH_JOBS=$(SLURM_JOBS) $(GO) test -run '^$$' -bench SlurmTargetVsSbatch \
	  -benchtime 1x -timeout 60m -v ./submitter/slurm/ | awk '\
	  /pair [0-9]+:/ { sub(/^ *bench_live_test.go:[0-9]+: /, ""); print } \
	  /SKIP|not available/ { print } \
	  /^BenchmarkSlurmTargetVsSbatch.* ratio/ { for (i = 2; i < NF; i++) m[$$(i+1)] = $$i; \
	    printf "slurm target %.1f jobs/s, sbatch loop %.1f jobs/s (medians); ratio %.3f [%.3f-%.3f] (goal >= 0.90)\n", \
	      m["gmark-jobs/s"], m["raw-jobs/s"], m["ratio"], m["ratio-min"], m["ratio-max"]; \
	    printf "CPU of the process and its children: %.2f ms/job (target), %.2f ms/job (loop)\n", m["gmark-cpu-ms/job"], m["raw-cpu-ms/job"]; \
	    printf "one submission: %.1f ms (target Submit), %.1f ms (sbatch)\n", m["gmark-ms/Submit"], m["raw-ms/sbatch"] } \
	  /^(FAIL|panic|--- FAIL)/ { print; bad = 1 } \
	  END { exit bad }'

## bench-grid: one loopback Slurm cluster reached three ways in one run, the Slurm target, an
## ARC CE in front of it and a GRAM5 gatekeeper in front of it: submissions per second, the
## submitter's delay, submission to the LRM, CPU per job of gmark, the CE and slurmctld
## (docs/performance.md); GRID_JOBS jobs a target, GRID_ROUNDS rounds; skipped, saying why, without
## ARC, GRAM5 or Slurm
GRID_JOBS ?= 100
GRID_ROUNDS ?= 2
bench-grid:
	@GMARK_BENCH_JOBS=$(GRID_JOBS) GMARK_BENCH_ROUNDS=$(GRID_ROUNDS) $(GO) test -run '^$$' -bench GridTargets \
	  -benchtime 1x -timeout 60m -v ./submitter/ce/ | awk '\
	  /round [0-9]+ / { sub(/^ *bench_live_test.go:[0-9]+: /, ""); print } \
	  /SKIP|not available/ { print } \
	  /^(FAIL|panic|--- FAIL)/ { print; bad = 1 } \
	  END { exit bad }'

## bench-slurm-list: the Slurm target's CPU per job (its process and its children: sbatch, squeue,
## scontrol) as the controller's job list grows: a run of SLURM_JOBS jobs, then one of
## SLURM_LARGE, on one test cluster that keeps every finished job for an hour (flat: a ratio near 1)
SLURM_LARGE ?= 4000
bench-slurm-list:
	@GMARK_BENCH_JOBS=$(SLURM_JOBS) GMARK_BENCH_LARGE=$(SLURM_LARGE) $(GO) test -run '^$$' -bench SlurmTargetJobList \
	  -benchtime 1x -timeout 60m -v ./submitter/slurm/ | awk '\
	  /jobs, the controller keeping/ { sub(/^ *bench_joblist_live_test.go:[0-9]+: /, ""); print } \
	  /SKIP|not available/ { print } \
	  /^BenchmarkSlurmTargetJobList.* ratio/ { for (i = 2; i < NF; i++) m[$$(i+1)] = $$i; \
	    printf "CPU per job: %.2f ms (small run), %.2f ms (large run); ratio %.2f (flat: <= 1.2)\n", m["cpu-ms/job-small"], m["cpu-ms/job-large"], m["ratio"] } \
	  /^(FAIL|panic|---)/ { print; bad = 1 } END { exit bad }'

## bench-lublin: `gmark generate` of the Lublin–Feitelson model, writing SWF, against the model's
## own C program (m_lublin99.c, writing SWF), as whole processes in LUBLIN_PAIRS alternating pairs,
## as many jobs as the C program writes: LUBLIN_C=path/to/the/built/program (it is third-party and
## not in the repository; docs/performance.md says how to build it); skipped, saying so, without it
LUBLIN_PAIRS ?= 5
bench-lublin:
	@if [ -z "$(LUBLIN_C)" ]; then \
	  echo "bench-lublin: skipped: LUBLIN_C is not set (point it at a built copy of the model's C program, m_lublin99.c writing SWF)"; exit 0; fi; \
	if [ ! -x "$(LUBLIN_C)" ] || [ -d "$(LUBLIN_C)" ]; then echo "bench-lublin: LUBLIN_C=$(LUBLIN_C) is not an executable program"; exit 2; fi; \
	GMARK_LUBLIN_C="$(abspath $(LUBLIN_C))" GMARK_BENCH_PAIRS=$(LUBLIN_PAIRS) $(GO) test -run '^$$' -bench GenerateVsLublinC \
	  -benchtime 1x -timeout 30m -v ./cmd/gmark/ | awk '\
	  /pair [0-9]+:/ { sub(/^ *bench_lublin_test.go:[0-9]+: /, ""); print } \
	  /^BenchmarkGenerateVsLublinC.* ratio/ { for (i = 2; i < NF; i++) m[$$(i+1)] = $$i; \
	    printf "%d jobs: gmark %.0f jobs/s, C %.0f jobs/s (medians); ratio %.3f (goal >= 1.0)\n", m["jobs"], m["gmark-jobs/s"], m["c-jobs/s"], m["ratio"]; \
	    printf "CPU %.2f s (gmark), %.2f s (C); peak memory %.1f MiB (gmark), %.1f MiB (C)\n", m["gmark-cpu-s"], m["c-cpu-s"], m["gmark-peak-MiB"], m["c-peak-MiB"] } \
	  /^(FAIL|panic|---)/ { print; bad = 1 } END { exit bad }'

## bench-core: the LCG trace (188,041 jobs, 70% on DAS-2, CF) through the bundled core as
## `gmark sim run` runs it (central_model = "core"); goals: under 3 s a run, >= 1,000,000 events/s
bench-core:
	$(GO) test -run '^$$' -bench CoreLCG -benchtime 3x -benchmem ./sim/experiment/

## bench-trace: trace parsing and analysis of LCG against `zcat | wc -l`
bench-trace:
	$(GO) test -run '^$$' -bench LCG -benchtime 20x ./gwa/

## bench-sim: the simulator's speed: a day of DAS-2 + Grid'5000 per architecture (events/s),
## and the 188,041-job LCG trace at 70% through each architecture (issue 15: under 5 s a run)
bench-sim:
	$(GO) test -run '^$$' -bench 'BenchmarkArch' ./sim/
	$(GO) test -run '^$$' -bench LCGTrace -benchtime 3x ./sim/experiment/

## fuzz: every fuzz target in turn, each for FUZZEXECS executions (a count, so that a
## loaded machine runs as many inputs as an idle one), minimisation bounded by FUZZMINIMIZE;
## FUZZTIME=10m runs each for that long instead. Each target's executions and time are
## printed; every target runs even when one finds something, and findings are listed at the end
fuzz:
	@GO=$(GO) sh scripts/fuzz.sh -n $(FUZZEXECS) -m $(FUZZMINIMIZE) $(if $(FUZZTIME),-t $(FUZZTIME)) $(if $(FUZZPKG),-p '$(FUZZPKG)')

clean:
	rm -rf bin
