# gmark: the developer's entry points. `make test` is what CI runs.
GO       ?= go
FUZZTIME ?= 15s
BENCHTIME ?= 1s

.PHONY: all build test check bench bench-trace fuzz clean

all: build

## build: compile the gmark binary into ./bin/gmark
build:
	$(GO) build -o bin/gmark ./cmd/gmark

## check: formatting and vet (for Linux, and for macOS so that gmark keeps building there)
check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=darwin $(GO) vet ./...

## test: formatting, vet, and every test (fuzz targets run their seed corpora)
test: check
	$(GO) test ./...

## bench: every benchmark; generation speed figures are in ./generator
bench:
	$(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) ./...

## bench-trace: trace parsing and analysis of LCG against `zcat | wc -l`
bench-trace:
	$(GO) test -run '^$$' -bench LCG -benchtime 20x ./gwa/

## fuzz: run each fuzz target for FUZZTIME (e.g. make fuzz FUZZTIME=10m); every
## target runs even when one finds something, and the failures are listed at the end
fuzz:
	@failed=""; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || failed="$$failed $$pkg.$$f"; \
	  done; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: findings in:$$failed"; exit 1; fi; echo "fuzz: no finding"

clean:
	rm -rf bin
