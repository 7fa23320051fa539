# The two commands: `make run` serves, `make test` runs every test. Both install what is missing first.

SWIFT ?= swift
DEBIAN_PACKAGES := pkg-config openssl libssl-dev libcurl4-openssl-dev libzip-dev libsqlite3-dev zip unzip curl
# The tests also start a throwaway PostgreSQL, load and drive pages in Chromium (Selenium), run schemathesis and jsonschema,
# check SQLite files with the sqlite3 command, check the alerting rules with promtool (in the prometheus package),
# and run a `serve` an hour behind under libfaketime (faketime).
TEST_PACKAGES := postgresql chromium chromium-driver python3 python3-venv sqlite3 prometheus faketime
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Every test has a time limit of its own; this bounds the whole run, so that a hang fails `make test` instead of
# waiting forever (the tests take 4 to 5 minutes on 2 cores).
TEST_TIME_LIMIT ?= 30m
# How many tests run at once. Swift Testing starts every test at once by default; on 2 cores each then waits minutes
# for a turn, longer than the deadlines of the servers and clients it drives. Ten at once finish as soon in all.
TEST_WIDTH ?= 10

.PHONY: deps test-deps install build format lint alerts test test-run contract run bench bench-http bench-push bench-scale clean

## Install the Debian packages the build needs (and with test-deps, the tests), when any is missing.
deps:
	@$(MAKE) --no-print-directory install PACKAGES="$(DEBIAN_PACKAGES)"

test-deps:
	@$(MAKE) --no-print-directory install PACKAGES="$(DEBIAN_PACKAGES) $(TEST_PACKAGES)"

install:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

SWIFT_SOURCES := Package.swift Sources Tests Benchmarks Fuzz/Package.swift Fuzz/Sources

## Format the Swift sources as .swift-format says (the toolchain's swift-format).
format:
	$(SWIFT) format --in-place --recursive $(SWIFT_SOURCES)

## Fail on any source that .swift-format would change or that breaks one of its rules.
lint:
	$(SWIFT) format lint --strict --recursive $(SWIFT_SOURCES)

## The alerting rules and the dashboard: promtool checks the rules, the example Prometheus configuration that loads
## them and the rules' unit tests, and the dashboard must parse. (A Swift test holds the metrics they name to what
## the server exports.)
alerts: test-deps
	promtool check rules deploy/prometheus/alerts.yml
	promtool check config deploy/prometheus/prometheus.yml
	promtool test rules deploy/prometheus/alerts.test.yml
	python3 -c 'import json, sys; [json.load(open(f)) for f in sys.argv[1:]]' deploy/grafana/dashboards/*.json

## Check the formatting and the alerting rules, build and run the whole test suite, then the API contract check
## (schemathesis against the running server).
test: test-deps lint alerts
	$(SWIFT) build --build-tests
	@$(MAKE) --no-print-directory test-run
	Tests/contract/schemathesis.sh

## Run the tests already built (what `make test` runs after building; `Tests/stress.sh` runs it again and again).
test-run:
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) timeout -k 60 $(TEST_TIME_LIMIT) $(SWIFT) test --skip-build

## Only the API contract check: openapi.json against the running server, with schemathesis (from PyPI).
contract: test-deps
	Tests/contract/schemathesis.sh

## Build and serve on http://127.0.0.1:8080 with SQLite in ./data/; development keys and a merchant key are
## made on first start when none are configured.
run: deps
	$(SWIFT) build --product wallet-orders
	.build/debug/wallet-orders serve

## Print the package-building benchmark (see BENCHMARKS.md).
bench: deps
	Benchmarks/package.sh

## Requests per second for the order fetch and registration, beside nginx serving the same bytes (needs wrk, nginx).
bench-http: deps
	Benchmarks/http.sh

## Pushes per second to the local APNs over one connection, beside h2load (needs nghttp2-client).
bench-push: deps
	Benchmarks/push.sh

## The service at a million orders on SQLite and on PostgreSQL (needs wrk; see BENCHMARKS.md).
bench-scale: test-deps
	Benchmarks/scale.sh sqlite
	Benchmarks/scale.sh postgres

clean:
	rm -rf .build
