#!/usr/bin/env bash
# The operator's console at scale, on one engine: seeds ORDERS orders of MERCHANTS merchants (with order numbers,
# tracking numbers and a device for every third order) through the store's bulk path, serves them, and measures
# each page of the console with wrk on loopback: the newest orders, a page deep in the list, each kind of search, each
# filter, an order's page; `/healthz` in the same run is the floor (what the HTTP stack costs with no query).
#
# Usage: Benchmarks/console.sh sqlite|postgres [ORDERS] [MERCHANTS]
# Settings: DURATION (seconds per page, 10), CONNECTIONS (4), BUILD (release or debug), KEEP=1 keeps the data folder,
# SEEDED=DIR (SQLite) seeds into DIR once and measures what DIR holds on later runs.
# PostgreSQL runs in a throwaway cluster with production settings (fsync and synchronous commit on).
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib/postgres.sh
engine=${1:?usage: Benchmarks/console.sh sqlite|postgres [ORDERS] [MERCHANTS]}
orders=${2:-1000000}
merchants=${3:-1000}
duration=${DURATION:-10}
connections=${CONNECTIONS:-4}
build=${BUILD:-release}
for tool in wrk curl python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install wrk curl python3)"; exit 1; }
done
swift build -c "$build" --product wallet-orders >/dev/null
swift build -c "$build" --product console-benchmark >/dev/null
bin=.build/$build

work=$(mktemp -d "${TMPDIR:-/tmp}/wo-console.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  pg_stop
  [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT

"$bin/wallet-orders" keys dev --out "$work/keys" >/dev/null
set -a; . "$work/keys/dev.env"; set +a
type=$WALLET_ORDERS_ORDER_TYPE

case "$engine" in
  sqlite) data=${SEEDED:-$work/data}; database="$data/orders.sqlite"; mkdir -p "$data" ;;
  postgres)
    pg_start --settings bulk --database orders --in "$work"
    database=$PG_URL ;;
  *) echo "engine: sqlite or postgres"; exit 2 ;;
esac

if [ "$engine" = sqlite ] && [ -s "$data/seeded" ]; then
  read -r now orders merchants <"$data/seeded"
  echo "measuring the $orders orders of $merchants merchants seeded in $data"
else
  now=$(date +%s)
  echo "seeding $orders orders of $merchants merchants ($engine)"
  seed_start=$(date +%s)
  "$bin/console-benchmark" "$database" "$orders" "$merchants" "$type" "$now" | tail -2
  echo "seeded in $(( $(date +%s) - seed_start )) s"
  [ "$engine" = sqlite ] && echo "$now $orders $merchants" >"$data/seeded"
fi
[ "$engine" = sqlite ] && echo "database file: $(du -h "$database" | cut -f1)"

port=18091
admin_key=admin-key-for-the-console-benchmark
WALLET_ORDERS_DATABASE="$database" WALLET_ORDERS_ADMIN_KEY=$admin_key WALLET_ORDERS_PUBLIC_URL=https://orders.example.com \
  WALLET_ORDERS_TEMPLATE=OrderTemplates/sample WALLET_ORDERS_APNS_KEY= WALLET_ORDERS_AUTH_FAILURE_LIMIT=off \
  "$bin/wallet-orders" serve --port $port >"$work/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
base="http://127.0.0.1:$port"
export ORDERS=$orders MERCHANTS=$merchants NOW=$now ORDER_TYPE=$type ADMIN_KEY=$admin_key

pages="healthz list deep oldest identifier number tracking device token nothing status merchant merchant-status day month day-merchant order"
# One look at each page first: a page that answers an error is a broken benchmark, not a fast page.
for page in $pages; do
  PAGE=$page wrk -t1 -c1 -d1s -s Benchmarks/wrk/console.lua "$base" >"$work/warm-$page.txt"
  if grep -q "Non-2xx" "$work/warm-$page.txt"; then echo "$page answers errors:"; cat "$work/warm-$page.txt"; exit 1; fi
done
echo
echo "$engine, $orders orders of $merchants merchants; wrk -t1 -c$connections -d${duration}s on loopback, $build build, $(nproc) cores shared"
printf '  %-16s %10s %10s %10s %10s\n' page "req/s" p50 p99 non-2xx
for page in $pages; do
  PAGE=$page wrk -t1 -c"$connections" -d"${duration}s" --latency -s Benchmarks/wrk/console.lua "$base" >"$work/$page.txt"
  printf '  %-16s %10s %10s %10s %10s\n' "$page" "$(awk '/Requests\/sec/ {print $2}' "$work/$page.txt")" \
    "$(awk '/ 50%/ {print $2}' "$work/$page.txt")" "$(awk '/ 99%/ {print $2}' "$work/$page.txt")" \
    "$(awk '/Non-2xx/ {print $NF} END {}' "$work/$page.txt" | tail -1)"
done
start=$(date +%s.%N)
curl -sf -H "Authorization: Bearer $admin_key" "$base/admin/activity?days=30" >/dev/null
middle=$(date +%s.%N)
curl -sf -H "Authorization: Bearer $admin_key" "$base/admin/activity?days=30" >/dev/null
end=$(date +%s.%N)
python3 -c "import sys; a, b, c = map(float, sys.argv[1:]); print(f'  activity page: {1000 * (b - a):.0f} ms drawn, {1000 * (c - b):.0f} ms from the minute cache')" "$start" "$middle" "$end"
