#!/usr/bin/env bash
# API fuzz campaign: schemathesis against the real server, far longer than the contract check in `make test`.
# Not part of CI; its figures go in RELIABILITY.md.
#
#   Fuzz/schemathesis-campaign.sh
#
# As Tests/contract/schemathesis.sh does, it starts the server on a free port with a fresh SQLite database and no
# WALLET_ORDERS_* variables, and makes an order, a device registration, a change and a device log first. Then
# three runs at once, each on a server of its own so that each run's requests are counted by the server itself
# (wallet_orders_http_requests_total in /metrics, scraped before the server stops), each for CAMPAIGN_SECONDS:
#   1. every operation: examples, coverage and fuzzing phases, at least CAMPAIGN_EXAMPLES test cases per operation
#      where the operation has that many, then fuzzing again until the time is spent;
#   2. the per-order operations pinned to the order made first, with its real AppleOrder token, likewise;
#   3. the stateful phase, following the OpenAPI links of openapi.json: createOrder → registerDevice (with the new
#      order's token) → patchOrder → fetchOrder, listChangedOrders and the rest.
# A run fails on any 5xx, response outside the document, or server crash. At the end the script prints, per run
# and in all, the requests the server answered, how many were 5xx, and how many create → register → patch →
# fetch chains the stateful run completed (read from its HAR report).
#
# Settings: CAMPAIGN_SECONDS (default 2700, each run), CAMPAIGN_EXAMPLES (default 1000),
# CAMPAIGN_PINNED_EXAMPLES (default 1000), ST_SEED (default 20261123), ST_WORKERS (default 1), CAMPAIGN_OUT
# (default .build/schemathesis-campaign: server logs, JUnit and HAR reports, summary.tsv; kept).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
for name in $(env | sed -n 's/^\(WALLET_ORDERS_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$name"; done

SCHEMA=Sources/WalletOrdersHTTP/openapi.json
SECONDS_PER_RUN=${CAMPAIGN_SECONDS:-2700}
EXAMPLES=${CAMPAIGN_EXAMPLES:-1000}
PINNED_EXAMPLES=${CAMPAIGN_PINNED_EXAMPLES:-1000}
SEED=${ST_SEED:-20261123}
# One worker: with two, CPython 3.11.7's ast.parse (which Hypothesis calls to describe filters) fails in
# schemathesis' coverage phase with "AST constructor recursion depth mismatch".
WORKERS=${ST_WORKERS:-1}
OUT=${CAMPAIGN_OUT:-$ROOT/.build/schemathesis-campaign}
CHECKS=not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance
BIN=.build/debug/wallet-orders

# With --build-tests, as `make test` builds: a no-op after it.
swift build --build-tests

rm -rf "$OUT"
mkdir -p "$OUT"
. Tests/contract/server.sh
RUNS=()
stop_runs() {
    for pid in "${RUNS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${RUNS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_runs EXIT
trap 'exit 130' INT TERM

# Stops the run's server after checking it is alive and healthy, and records the requests it answered.
finish_run() {
    local run=$1 status=$2 started=$3
    local alive=yes
    if ! kill -0 "$SERVER_PID" 2>/dev/null || [ "$(curl -s -o /dev/null -w '%{http_code}' "$B/healthz")" != 200 ]; then
        alive=no
        status=1
        echo "FAILED: the server died or is unhealthy after run $run ($SERVER_LOG):" >&2
        grep -m 3 -i 'fatal error\|precondition\|assertion' "$SERVER_LOG" >&2 || tail -n 5 "$SERVER_LOG" >&2
    fi
    local requests=? server_errors=?
    if [ "$alive" = yes ]; then
        curl -fsS "$B/metrics" > "$OUT/$run/metrics.txt"
        # The scrape itself is not counted yet when it is answered; the set-up requests are.
        read -r requests server_errors < <(python3 - "$OUT/$run/metrics.txt" <<'PY'
import re, sys
total = errors = 0
for line in open(sys.argv[1]):
    match = re.match(r'wallet_orders_http_requests_total\{.*status="(\d+)".*\} (\d+)', line)
    if match:
        total += int(match.group(2))
        errors += int(match.group(2)) if match.group(1).startswith("5") else 0
print(total, errors)
PY
)
    fi
    stop_server
    local seconds=$(( $(date +%s) - started ))
    local verdict=passed
    [ "$status" -eq 0 ] || verdict=FAILED
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$run" "$seconds" "$requests" "$server_errors" "$SEED" "$verdict" \
        | tee -a "$OUT/summary.tsv"
    return "$status"
}

# schemathesis, as the contract check finds it.
find_schemathesis

echo "cache = { directory = \"$OUT/schemathesis-cache\" }" > "$OUT/merchant.toml"
cat >> "$OUT/merchant.toml" <<'TOML'

[auth.openapi.merchantKey]
bearer = "${ST_MERCHANT_KEY}"
TOML
# The stateful run authenticates device operations with the tokens its links carry; the others with the token
# of the order made first.
cp "$OUT/merchant.toml" "$OUT/all.toml"
cat >> "$OUT/all.toml" <<'TOML'

[auth.openapi.appleOrderToken]
api_key = "AppleOrder ${ST_ORDER_TOKEN}"
TOML

export HYPOTHESIS_STORAGE_DIRECTORY=$OUT/hypothesis
COMMON=(--checks "$CHECKS" --workers "$WORKERS" --request-timeout 20 --suppress-health-check all
        --generation-database none --continue-on-failure --no-color --seed "$SEED")
printf 'run\tseconds\trequests\t5xx\tseed\tverdict\n' > "$OUT/summary.tsv"
status=0

# Each run in a subshell of its own, with its own server; the three at once.
in_background() {
    (
        trap stop_server EXIT
        trap 'exit 130' INT TERM
        "$@"
    ) &
    RUNS+=($!)
}

# 1. Every operation.
run_all() {
    start_server "$OUT/run-all" campaign
    local started run=0
    started=$(date +%s)
    echo "== run 1: every operation, ${SECONDS_PER_RUN}s, at least $EXAMPLES test cases each"
    "$ST" --config-file "$OUT/all.toml" run "$SCHEMA" --url "$B" "${COMMON[@]}" --max-examples "$EXAMPLES" \
        --max-time "$SECONDS_PER_RUN" --phases examples,coverage,fuzzing --report junit \
        --report-dir "$OUT/run-all/report" > "$OUT/run-all/schemathesis.log" 2>&1 || run=1
    tail -n 25 "$OUT/run-all/schemathesis.log"
    finish_run run-all "$run" "$started"
}

# 2. The per-order operations, on the order made first.
run_pinned() {
    start_server "$OUT/run-pinned" campaign
    local started run=0
    started=$(date +%s)
    cp "$OUT/all.toml" "$OUT/pinned.toml"
    cat >> "$OUT/pinned.toml" <<TOML

[[operations]]
include-path-regex = "\\\\{orderIdentifier\\\\}"
parameters = { orderTypeIdentifier = "$TYPE", orderIdentifier = "$ID" }

[[operations]]
include-operation-id = "listChangedOrders"
parameters = { orderTypeIdentifier = "$TYPE", deviceIdentifier = "contract-device" }
TOML
    echo "== run 2: per-order operations on order $TYPE/$ID, ${SECONDS_PER_RUN}s, at least $PINNED_EXAMPLES test cases each"
    "$ST" --config-file "$OUT/pinned.toml" run "$SCHEMA" --url "$B" "${COMMON[@]}" --max-examples "$PINNED_EXAMPLES" \
        --include-path-regex '\{orderIdentifier\}|^/v1/devices/\{deviceIdentifier\}/registrations/\{orderTypeIdentifier\}$' \
        --max-time "$SECONDS_PER_RUN" --phases examples,coverage,fuzzing --report junit \
        --report-dir "$OUT/run-pinned/report" > "$OUT/run-pinned/schemathesis.log" 2>&1 || run=1
    tail -n 25 "$OUT/run-pinned/schemathesis.log"
    finish_run run-pinned "$run" "$started"
}

# 3. Stateful: sequences along the links, for the time budget.
run_stateful() {
    start_server "$OUT/run-stateful" campaign
    local started run=0
    started=$(date +%s)
    echo "== run 3: stateful, ${SECONDS_PER_RUN}s along the OpenAPI links"
    "$ST" --config-file "$OUT/merchant.toml" run "$SCHEMA" --url "$B" "${COMMON[@]}" --phases stateful \
        --max-time "$SECONDS_PER_RUN" --report junit,har --report-dir "$OUT/run-stateful/report" \
        > "$OUT/run-stateful/schemathesis.log" 2>&1 || run=1
    tail -n 25 "$OUT/run-stateful/schemathesis.log"
    finish_run run-stateful "$run" "$started"
}

CAMPAIGN_STARTED=$(date +%s)
in_background run_all
in_background run_pinned
in_background run_stateful
for pid in "${RUNS[@]}"; do wait "$pid" || status=1; done
RUNS=()

# The chains the stateful run completed: an order it created, then registered with the order's token, patched,
# and fetched by a device with the token (200, or 304 for the version it had).
python3 - "$OUT"/run-stateful/report/har-*.json <<'PY' | tee "$OUT/chains.txt"
import json, sys
from urllib.parse import unquote
entries = json.load(open(sys.argv[1]))["log"]["entries"]
created, registered, patched, fetched = set(), set(), set(), set()
for entry in entries:
    method, status = entry["request"]["method"], entry["response"]["status"]
    parts = [unquote(p) for p in entry["request"]["url"].split("?")[0].split("/")[3:]]
    if method == "POST" and parts == ["api", "v1", "orders"] and status == 201:
        body = json.loads(entry["response"]["content"].get("text") or "{}")
        details = body.get("orderDetails", {})
        created.add((details.get("orderTypeIdentifier"), details.get("orderIdentifier")))
    elif method == "POST" and parts[:2] == ["v1", "devices"] and len(parts) == 6 and status in (200, 201):
        key = (parts[4], parts[5])
        if key in created:
            registered.add(key)
    elif method == "PATCH" and parts[:3] == ["api", "v1", "orders"] and len(parts) == 5 and status == 200:
        key = (parts[3], parts[4])
        if key in registered:
            patched.add(key)
    elif method == "GET" and parts[:2] == ["v1", "orders"] and len(parts) == 4 and status in (200, 304):
        key = (parts[2], parts[3])
        if key in patched:
            fetched.add(key)
print(f"stateful: {len(entries)} requests; orders created {len(created)}, then registered {len(registered)}, "
      f"then patched {len(patched)}, then fetched {len(fetched)}")
PY

echo
column -t -s $'\t' "$OUT/summary.tsv"
python3 - "$OUT/summary.tsv" "$(( $(date +%s) - CAMPAIGN_STARTED ))" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
requests = sum(int(r["requests"]) for r in rows if r["requests"].isdigit())
errors = sum(int(r["5xx"]) for r in rows if r["5xx"].isdigit())
print(f"in all: {requests} requests answered, {errors} 5xx, {sys.argv[2]} s (the runs side by side)")
PY
[ "$status" -eq 0 ] && echo "campaign passed" || echo "campaign FAILED" >&2
exit "$status"
