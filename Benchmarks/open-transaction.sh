#!/usr/bin/env bash
# Issue 31, part 3: a transaction held open for HOLD seconds (600 by default) in the PostgreSQL cluster under one
# `serve`, against a baseline of BASELINE seconds (120) without it. In each phase two clients update 50 orders as fast
# as the server signs them, a device registered for those orders lists them by tag as Wallet does (a checker counts
# any update acknowledged before a listing began, newer than what the device holds, that the listing left out: none
# may be), the outbox drains a backlog of 20,000 pushes (100 orders with 200 devices each, seeded through the bulk
# import path, updated once each) at the start and 60% into the phase, and the tables' sizes are read before and after.
#
# Usage: Benchmarks/open-transaction.sh [HOLD (600)] [BASELINE (120)]
# Settings: BUILD=release (debug by default), HOLD_DATABASE=reports holds the transaction in another database of the
# cluster (by default it is the service's own, the worse case: it also keeps vacuum from the service's tables),
# KEEP=1 keeps the work folder. Needs psql and the PostgreSQL server (Debian's postgresql), curl, python3; run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib/postgres.sh
hold=${1:-600}
baseline=${2:-120}
build=${BUILD:-debug}
hold_database=${HOLD_DATABASE:-orders}
swift build -c "$build" --product wallet-orders >/dev/null
swift build -c "$build" --product scale-benchmark >/dev/null
bin=.build/$build

work=$(mktemp -d "${TMPDIR:-/tmp}/wo-pg-opentx.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  pg_stop
  [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT

# A durable cluster with PostgreSQL's defaults, as production runs (autovacuum on).
pg_start --database orders --database reports --in "$work"
export PATH="$PG_BIN:$PATH"
database=$PG_URL

"$bin/wallet-orders" keys dev --out "$work/keys" >/dev/null
set -a; . "$work/keys/dev.env"; set +a
"$bin/wallet-orders" apns-sandbox --quiet --port 22199 --keys "$work/keys" >"$work/apns.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q "WALLET_ORDERS_APNS_ENVIRONMENT" "$work/apns.log" && break; sleep 0.1; done
eval "export $(grep -o 'WALLET_ORDERS_APNS_ENVIRONMENT=[^ ]*' "$work/apns.log") $(grep -o 'WALLET_ORDERS_APNS_CA=[^ ]*' "$work/apns.log")"

# 100 orders with 200 devices each, through the store's bulk import (scale-benchmark).
"$bin/scale-benchmark" "$database" 100 20000 1 "$WALLET_ORDERS_ORDER_TYPE" >/dev/null
key=merchant-key-for-the-open-transaction-run
port=18097
base="http://127.0.0.1:$port"
WALLET_ORDERS_DATABASE="$database" WALLET_ORDERS_MERCHANT_KEY=$key WALLET_ORDERS_PUBLIC_URL=https://orders.example.com \
  WALLET_ORDERS_TEMPLATE=OrderTemplates/sample WALLET_ORDERS_MAX_DEVICES_PER_ORDER=0 \
  "$bin/wallet-orders" serve --port $port >"$work/serve.log" 2>&1 &
server=$!
pids+=($server)
for _ in $(seq 300); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.1; done

# 50 orders made through the merchant API, each registered by the watching device.
cd "$work"
python3 - "$base" "$key" "$WALLET_ORDERS_ORDER_TYPE" <<'PY'
import json, sys, urllib.request
base, key, kind = sys.argv[1:]
def call(method, path, body, headers):
    request = urllib.request.Request(base + path, json.dumps(body).encode(), dict(headers, **{"Content-Type": "application/json"}), method=method)
    with urllib.request.urlopen(request) as answer: return json.loads(answer.read() or b"null")
watched = []
for n in range(50):
    details = call("POST", "/api/v1/orders", {"orderIdentifier": f"W-{n:03d}", "orderNumber": f"W{n}", "status": "open",
                   "orderManagementURL": "https://shop.example.com/orders/1", "payment": {"total": {"amount": 10, "currency": "EUR"}, "status": "paid"}},
                   {"Authorization": f"Bearer {key}"})["orderDetails"]
    call("POST", f"/v1/devices/watcher/registrations/{details['orderTypeIdentifier']}/{details['orderIdentifier']}",
         {"pushToken": "ee" * 32}, {"Authorization": f"AppleOrder {details['authenticationToken']}"})
    watched.append({"type": details["orderTypeIdentifier"], "id": details["orderIdentifier"]})
json.dump(watched, open("watched.json", "w"))
json.dump([{"type": kind, "id": f"o{n}"} for n in range(100)], open("load.json", "w"))
PY
driver=$OLDPWD/Benchmarks/open-transaction.py
psql_url="postgresql://postgres@127.0.0.1:$PG_PORT/orders"
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $build build, $(nproc) cores shared, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$driver" "$base" "$key" "$psql_url" "without an open transaction" "$baseline"

# The transaction: it takes a transaction ID and a snapshot, then sleeps; nothing it does touches the service's rows.
pg_psql -d "$hold_database" >"$work/hold.log" 2>&1 <<SQL &
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT pg_current_xact_id();
SELECT count(*) FROM pg_class;
SELECT pg_sleep($hold);
COMMIT;
SQL
pids+=($!)
sleep 1
python3 "$driver" "$base" "$key" "$psql_url" "with a transaction open in database $hold_database for $hold s" "$hold"
wait "${pids[-1]}" 2>/dev/null || true
python3 "$driver" "$base" "$key" "$psql_url" "after it committed" "$baseline"
echo "server: peak RSS $(awk '/^VmHWM/ {print int($2 / 1024)}' /proc/$server/status) MiB; $(grep -c '"level":"error"\|error' "$work/serve.log" || true) log lines with 'error'"
