# The records service. `make run` serves on SQLite; `make test` runs every test.

GO      ?= go
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
# nomsgpack leaves out gin's MessagePack codec (github.com/ugorji/go), which
# the service never uses: a binary 9 MB smaller, and fewer of its pages
# resident under load (docs/performance.md, 2026-11-28). Every go command
# below builds with it; a -tags of your own in GOFLAGS comes after, and wins.
TAGS    ?= nomsgpack
export GOFLAGS := -tags=$(TAGS) $(GOFLAGS)

.PHONY: all generate build bin-records run dev test check bench docs-assets console fuzz

all: build

## generate: regenerate ent/, migrations, internal/resources, the OpenAPI document and the clients from schema/
##           (NAME=add_loyalty_tier names the migration it writes, if any)
generate:
	$(GO) run ./cmd/recordsgen generate $(if $(NAME),--migration-name $(NAME))

## build: build bin/records and bin/recordsgen
build: bin-records
	$(GO) build -o bin/recordsgen ./cmd/recordsgen

# bin-records builds only the service (all that `run` needs), saying so:
# the first build on a machine downloads the modules and compiles every
# dependency (3–4 minutes on two cores, listing each package as it goes);
# later builds take seconds.
bin-records:
	@echo "building bin/records (the first build on a machine takes 3–4 minutes; packages are listed as they compile)…"
	$(GO) build -v -ldflags "$(LDFLAGS)" -o bin/records ./cmd/records

## run: serve the API on SQLite (data/records.db) at 127.0.0.1:8080
##      (ARGS='--addr 127.0.0.1:9090 --log-level warn' are records serve's flags)
run: bin-records
	./bin/records serve $(ARGS)

## dev: serve the API, and on every edit of schema/ or templates/ regenerate, rebuild and
##      restart it (ARGS='--addr 127.0.0.1:9090' are records serve's flags)
# The generator is built and run, not `go run`: on Ctrl-C the go command
# exits 1 whatever its program did, and make would report an error.
dev:
	@$(GO) build -o bin/recordsgen ./cmd/recordsgen
	./bin/recordsgen dev $(if $(ARGS),-- $(ARGS))

## test: the whole suite: format, vet, generated files fresh, then every test on SQLite and PostgreSQL
test: check
	$(GO) test -timeout 15m ./...

## check: gofmt, go vet (the Go client and its quickstart are modules of their own),
##        and `recordsgen check` (generated files are fresh)
check:
	@unformatted=$$(gofmt -l cmd internal schema ent client templates examples bench); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	cd client && $(GO) vet ./...
	cd examples/go && $(GO) vet ./...
	$(GO) run ./cmd/recordsgen check

## fuzz: a short fuzzing run of every decoder a client (or a trace collector) reaches (a fixed number of inputs
##       each, 5 to 20 seconds on two cores; FUZZTIME=30s or FUZZTIME=1000000x sets them
##       all; the committed corpora in testdata/fuzz run with every `make test`)
# Counts rather than durations: with a duration, Go 1.26's fuzz coordinator can
# report its own deadline as a failure, "context deadline exceeded" with no
# failing input (go.dev/issue/75804, fixed in Go 1.27); a count has no deadline.
fuzzing = $(GO) test -run '^$$' -fuzz '^$(1)$$' -fuzztime $(or $(FUZZTIME),$(2)) $(3)
fuzz:
	$(call fuzzing,FuzzParseObject,250000x,./internal/wire)
	$(call fuzzing,FuzzConverters,150000x,./internal/wire)
	$(call fuzzing,FuzzParseRequest,150000x,./internal/query)
	$(call fuzzing,FuzzCursorDecode,40000x,./internal/query)
	$(call fuzzing,FuzzRequests,6000x,./internal/server)
	$(call fuzzing,FuzzSearch,3000x,./internal/server)
	$(call fuzzing,FuzzParseQ,100000x,./internal/query)
	$(call fuzzing,FuzzTakeTrashed,20000x,./internal/engine)
	$(call fuzzing,FuzzTakeVersion,20000x,./internal/engine)
	$(call fuzzing,FuzzParse,30000x,./internal/policy)
	$(call fuzzing,FuzzPartialSuccess,100000x,./internal/tracing)

## bench: the benchmarks (see README, Performance)
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## docs-assets: refresh the docs page's vendored Swagger UI from npm (internal/docs/npm pins the version)
docs-assets:
	cd internal/docs/npm && npm ci --ignore-scripts --no-audit --no-fund
	cp internal/docs/npm/node_modules/swagger-ui-dist/swagger-ui-bundle.js \
	   internal/docs/npm/node_modules/swagger-ui-dist/swagger-ui-bundle.js.LICENSE.txt \
	   internal/docs/npm/node_modules/swagger-ui-dist/swagger-ui.css internal/docs/assets/
	cp internal/docs/npm/node_modules/swagger-ui-dist/LICENSE internal/docs/assets/LICENSE.swagger-ui
	rm -rf internal/docs/npm/node_modules

## console: rebuild the console from console/ into internal/console/dist (commit it); needs Node.
##          The tests fail while the committed build is not what the sources build to.
console:
	cd console && if [ "$$(cat node_modules/.records-lock-sha256 2>/dev/null)" != "$$(sha256sum package-lock.json | cut -c1-64)" ]; then \
	  npm ci --ignore-scripts --no-audit --no-fund && sha256sum package-lock.json | cut -c1-64 | tr -d '\n' > node_modules/.records-lock-sha256; fi
	cd console && npx tsc --noEmit -p . && npx vite build
