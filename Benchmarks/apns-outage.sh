#!/usr/bin/env bash
# Issue 31, part 5: APNs out of reach while updates queue PUSHES pushes (1,000,000 by default). ORDERS orders (1,000)
# with PUSHES / ORDERS devices each are seeded through the store's bulk import (scale-benchmark); `serve` points at a
# local APNs port where nothing listens yet (every connection refused); every order is updated twice through the
# merchant API (the second update must add no push: one pending push per order and device). Then for DOWN seconds
# (120) nothing changes but the clock: the server's CPU and memory are read, and what the outbox holds (no push
# failed, no attempt spent). Then the local APNs (`apns-sandbox`) starts on that port, and the outbox is timed until
# empty: every push delivered, none twice. Last, every order is updated once more with APNs up: the same pushes
# without an outage, for the rate to compare with.
#
# Usage: Benchmarks/apns-outage.sh [PUSHES (1000000)] [DOWN (120)] [ENGINES ("sqlite postgres")]
# Settings: BUILD=debug (release by default), ORDERS=N, KEEP=1 keeps the work folder. Needs curl, python3, sqlite3,
# and for PostgreSQL its server (Debian's postgresql); run as root (the cluster runs as postgres).
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib/postgres.sh
pushes=${1:-1000000}
down=${2:-120}
engines=${3:-sqlite postgres}
build=${BUILD:-release}
orders=${ORDERS:-1000}
per_order=$((pushes / orders))
swift build -c "$build" --product wallet-orders >/dev/null
swift build -c "$build" --product scale-benchmark >/dev/null
bin=$PWD/.build/$build

work=$(mktemp -d "${TMPDIR:-/tmp}/wo-pg-outage.XXXXXX")
server=""
apns=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  [ -n "$apns" ] && kill "$apns" 2>/dev/null
  pg_stop
  [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT

"$bin/wallet-orders" keys dev --out "$work/keys" >/dev/null
set -a; . "$work/keys/dev.env"; set +a
apns_port=22201
# The local APNs keeps its TLS identity in the keys folder: started once here to make it (and learn the settings for
# serve), then stopped, so that APNs refuses connections until it starts again on the same port.
start_apns() {
  "$bin/wallet-orders" apns-sandbox --quiet --port $apns_port --keys "$work/keys" >"$work/apns-$1.log" 2>&1 &
  apns=$!
  for _ in $(seq 100); do grep -q "WALLET_ORDERS_APNS_ENVIRONMENT" "$work/apns-$1.log" && break; sleep 0.1; done
}
start_apns first
apns_settings="$(grep -o 'WALLET_ORDERS_APNS_ENVIRONMENT=[^ ]*' "$work/apns-first.log") $(grep -o 'WALLET_ORDERS_APNS_CA=[^ ]*' "$work/apns-first.log")"
kill "$apns"; wait "$apns" 2>/dev/null || true; apns=""

cpu() { awk '{ print $14 + $15 }' "/proc/$server/stat"; }
memory() { awk '/^VmRSS/ {rss = int($2 / 1024)} /^VmHWM/ {hwm = int($2 / 1024)} END {print rss " MiB (peak " hwm " MiB)"}' "/proc/$server/status"; }
hz=$(getconf CLK_TCK)
port=18098
base="http://127.0.0.1:$port"
key=merchant-key-for-the-apns-outage-run
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $build build, $(nproc) cores shared, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$pushes pushes: $orders orders with $per_order devices each, each order updated twice; APNs down for $down s"
for engine in $engines; do
  case "$engine" in
    sqlite)
      mkdir -p "$work/sqlite"
      database="$work/sqlite/orders.sqlite"
      query() { sqlite3 "$database" "$1"; } ;;
    postgres)
      pg_start --database orders --in "$work"
      database=$PG_URL
      query() { pg_psql -A -t -d orders -c "$1"; } ;;
    *) echo "engine: sqlite or postgres"; exit 2 ;;
  esac
  started=$(date +%s.%N)
  "$bin/scale-benchmark" "$database" "$orders" "$pushes" 1 "$WALLET_ORDERS_ORDER_TYPE" >"$work/seed-$engine.log"
  echo "$engine: seeded $orders orders and $pushes registrations in $(python3 -c "import time; print(f'{time.time() - $started:.0f}')") s"

  env $apns_settings WALLET_ORDERS_DATABASE="$database" WALLET_ORDERS_MERCHANT_KEY=$key \
    WALLET_ORDERS_PUBLIC_URL=https://orders.example.com WALLET_ORDERS_TEMPLATE=OrderTemplates/sample \
    WALLET_ORDERS_MAX_DEVICES_PER_ORDER=0 "$bin/wallet-orders" serve --port $port >"$work/serve-$engine.log" 2>&1 &
  server=$!
  for _ in $(seq 600); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.1; done
  echo "  server memory at start: $(memory)"

  # Every order updated once, four clients at once (ROUND names the update).
  patch_all() {
    python3 - "$base" "$key" "$WALLET_ORDERS_ORDER_TYPE" "$orders" "$1" <<'PY'
import concurrent.futures, http.client, json, sys, threading, time
base, key, kind, orders, round = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
host, port = base.removeprefix("http://").split(":")
local = threading.local()
def patch(n):
    if not hasattr(local, "conn"): local.conn = http.client.HTTPConnection(host, int(port), timeout=120)
    local.conn.request("PATCH", f"/api/v1/orders/{kind}/o{n}", json.dumps({"orderNumber": f"r{round}-{n}"}),
                       {"Authorization": f"Bearer {key}", "Content-Type": "application/merge-patch+json"})
    answer = local.conn.getresponse()
    body = answer.read()
    assert answer.status == 200, (answer.status, body)
started = time.monotonic()
with concurrent.futures.ThreadPoolExecutor(4) as pool: list(pool.map(patch, range(orders)))
print(f"  update round {round}: {orders} updates in {time.monotonic() - started:.1f} s", end="")
PY
  }
  # Each order updated twice; the outbox counted after each round.
  for round in 1 2; do
    patch_all $round
    echo "; outbox: $(query "SELECT status || ' ' || count(*) FROM push_outbox GROUP BY status ORDER BY status" | tr '\n' ' ')"
  done

  # APNs down: nothing but waiting.
  cpu_before=$(cpu)
  sleep "$down"
  cpu_after=$(cpu)
  echo "  APNs down for $down s: server CPU $(python3 -c "print(f'{($cpu_after - $cpu_before) / $hz:.2f} s, {($cpu_after - $cpu_before) / $hz / $down * 100:.2f}% of a core')"); memory $(memory)"
  echo "  outbox: $(query "SELECT status || ' ' || count(*) || ' (attempts spent ' || coalesce(sum(attempts), 0) || ')' FROM push_outbox GROUP BY status ORDER BY status" | tr '\n' ' ')"
  echo "  log lines while down: $(grep -c 'APNs cannot be reached' "$work/serve-$engine.log" || true) 'cannot be reached', $(wc -l <"$work/serve-$engine.log") in all"

  # APNs back: the outbox drains.
  start_apns "$engine"
  back=$(date +%s.%N)
  while [ "$(query "SELECT count(*) FROM push_outbox WHERE status IN ('pending', 'sending')")" != 0 ]; do sleep 0.2; done
  drained=$(date +%s.%N)
  delivered=$(query "SELECT count(*) FROM push_outbox WHERE status = 'delivered'")
  echo "  APNs back: outbox empty after $(python3 -c "print(f'{$drained - $back:.1f} s: {$delivered / ($drained - $back):,.0f} pushes/s')") (from the local APNs' start, its start-up included)"
  echo "  delivered $delivered, failed $(query "SELECT count(*) FROM push_outbox WHERE status = 'failed'"); orders and devices pushed twice: $(query "SELECT count(*) FROM (SELECT order_identifier, push_token FROM push_outbox WHERE status = 'delivered' GROUP BY 1, 2 HAVING count(*) > 1) AS twice")"
  echo "  $(curl -s "$base/metrics" | grep '^wallet_orders_push_attempts_total' | tr '\n' ' ')"
  echo "  server memory after the drain: $(memory)"
  # The same pushes again with APNs up all along: the rate the drain above is measured against.
  before=$delivered
  again=$(date +%s.%N)
  patch_all 3 >/dev/null
  while [ "$(query "SELECT count(*) FROM push_outbox WHERE status IN ('pending', 'sending')")" != 0 ]; do sleep 0.2; done
  drained=$(date +%s.%N)
  delivered=$(query "SELECT count(*) FROM push_outbox WHERE status = 'delivered'")
  echo "  with APNs up, one more update of every order: $((delivered - before)) delivered in $(python3 -c "print(f'{$drained - $again:.1f} s: {($delivered - $before) / ($drained - $again):,.0f} pushes/s')") (updates included)"
  kill "$server"; wait "$server" 2>/dev/null || true; server=""
  kill "$apns"; wait "$apns" 2>/dev/null || true; apns=""
  pg_stop
done
