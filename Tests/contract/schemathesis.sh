#!/usr/bin/env bash
# Contract check: runs schemathesis with openapi.json against the real server.
#
#   Tests/contract/schemathesis.sh
#
# Builds wallet-orders if needed, starts it on a free port with a fresh SQLite database and no WALLET_ORDERS_*
# variables (development keys and a merchant key are made on first start), creates an order from
# Examples/order.json, registers a device for it, then runs schemathesis twice:
#   1. every operation, identifiers generated freely (mostly unknown orders: 400/401/404 answers);
#   2. the per-order operations pinned to the order created here, with its AppleOrder token (200/201/304 answers).
# If the server dies during a run, that is a failure; it is started again (fresh database) for the next run.
# Exits non-zero on any failure. Settings: ST_MAX_EXAMPLES (default 30), ST_SEED, ST_SCHEMA (default Sources/WalletOrdersHTTP/openapi.json),
# KEEP_TMP=1 (keep the temp dir with server logs and JUnit reports; it is always kept on failure).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
for name in $(env | sed -n 's/^\(WALLET_ORDERS_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$name"; done

SCHEMA=${ST_SCHEMA:-Sources/WalletOrdersHTTP/openapi.json}
MAX_EXAMPLES=${ST_MAX_EXAMPLES:-30}
CHECKS=not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance
BIN=.build/debug/wallet-orders

# 1. Build.
# With --build-tests, as `make test` builds: a no-op after it (a plain build would recompile everything).
swift build --build-tests

TMP=$(mktemp -d "${TMPDIR:-/tmp}/wallet-orders-contract.XXXXXX")
. Tests/contract/server.sh
cleanup() {
    local status=$?
    stop_server
    if [ "$status" -ne 0 ] || [ -n "${KEEP_TMP:-}" ]; then
        echo "server logs and reports kept in $TMP" >&2
    else
        rm -rf "$TMP"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# After a run: the server must still be up and healthy.
check_server() {
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=
        echo "FAILED: the server died during the run ($SERVER_LOG):" >&2
        grep -m 3 -i 'fatal error\|precondition\|assertion' "$SERVER_LOG" >&2 || tail -n 5 "$SERVER_LOG" >&2
        return 1
    fi
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "$B/healthz")" != 200 ]; then
        echo "FAILED: GET /healthz does not answer 200 after the run" >&2
        return 1
    fi
}

# 2. schemathesis (a venv under .build/ unless a schemathesis 4 `st` is on the PATH).
find_schemathesis

# Credentials for the security schemes of openapi.json; schemathesis' state stays in the temp dir.
echo "cache = { directory = \"$TMP/schemathesis-cache\" }" > "$TMP/schemathesis.toml"
cat >> "$TMP/schemathesis.toml" <<'TOML'

[auth.openapi.merchantKey]
bearer = "${ST_MERCHANT_KEY}"

[auth.openapi.appleOrderToken]
api_key = "AppleOrder ${ST_ORDER_TOKEN}"
TOML

export HYPOTHESIS_STORAGE_DIRECTORY=$TMP/hypothesis
COMMON=(--checks "$CHECKS" --max-examples "$MAX_EXAMPLES" --workers 1 --request-timeout 20
        --suppress-health-check all --generation-database none --continue-on-failure --no-color)
[ -n "${ST_SEED:-}" ] && COMMON+=(--seed "$ST_SEED")
status=0

# 3a. Every operation.
start_server "$TMP/run-all" "contract test"
# The server serves the document it is checked against.
if ! curl -fsS "$B/openapi.json" | cmp -s - "$SCHEMA"; then
    echo "FAILED: GET /openapi.json is not $SCHEMA" >&2
    status=1
fi
echo "== run 1: every operation"
"$ST" --config-file "$TMP/schemathesis.toml" run "$SCHEMA" --url "$B" "${COMMON[@]}" \
    --report junit --report-dir "$TMP/run-all/report" || status=1
check_server || { status=1; stop_server; start_server "$TMP/run-pinned" "contract test"; }

# 3b. The per-order operations, on the order made above.
cp "$TMP/schemathesis.toml" "$TMP/pinned.toml"
cat >> "$TMP/pinned.toml" <<TOML

[[operations]]
include-path-regex = "\\\\{orderIdentifier\\\\}"
parameters = { orderTypeIdentifier = "$TYPE", orderIdentifier = "$ID" }

[[operations]]
include-operation-id = "listChangedOrders"
parameters = { orderTypeIdentifier = "$TYPE", deviceIdentifier = "contract-device" }
TOML
echo "== run 2: per-order operations on order $TYPE/$ID"
"$ST" --config-file "$TMP/pinned.toml" run "$SCHEMA" --url "$B" "${COMMON[@]}" \
    --include-path-regex '\{orderIdentifier\}|^/v1/devices/\{deviceIdentifier\}/registrations/\{orderTypeIdentifier\}$' \
    --phases examples,coverage,fuzzing --report junit --report-dir "$TMP/run-pinned/report" || status=1
check_server || status=1

# 4. Stop the server (trap) and report.
[ "$status" -eq 0 ] && echo "contract check passed" || echo "contract check FAILED" >&2
exit "$status"
