#!/usr/bin/env bash
# Builds side by side by the server's CPU time per request, which moves far less than requests per second on a shared
# machine: for each round, each binary in turn serves DATABASE (read only: the device's listing of changed orders for
# random devices and tags, and the fetch of an unchanged order, 304) and wrk measures both, while the server's user and
# system time is read from /proc before and after.
#
# Usage: Benchmarks/cpu-per-request.sh DATABASE KEYS BINARY...
#   DATABASE and KEYS as for Benchmarks/compare.sh (an SQLite file, or a PostgreSQL URL), BINARY as there too.
# Settings: DURATION (seconds per wrk run, 10), CONNECTIONS (8), ROUNDS (3).
set -euo pipefail
cd "$(dirname "$0")/.."
database=${1:?usage: Benchmarks/cpu-per-request.sh DATABASE KEYS BINARY...}
keys=${2:?usage: Benchmarks/cpu-per-request.sh DATABASE KEYS BINARY...}
shift 2
duration=${DURATION:-10}
connections=${CONNECTIONS:-8}
work=$(mktemp -d "${TMPDIR:-/tmp}/wo-cpu.XXXXXX")
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

set -a; . "$keys/dev.env"; set +a
case "$database" in
  postgres://* | postgresql://*) query() { psql -X -q -A -t "$database" -c "$1"; } ;;
  *) query() { sqlite3 "$database" "$1"; } ;;
esac
export ORDERS=$(query "SELECT count(*) FROM orders") \
  DEVICES=$(query "SELECT count(DISTINCT device_identifier) FROM registrations") ORDER_TYPE=$WALLET_ORDERS_ORDER_TYPE \
  MERCHANT_KEY=merchant-key-for-the-scale-benchmark FETCHED=1000
port=18094
base="http://127.0.0.1:$port"
hz=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15 }' "/proc/$server/stat"; }

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores shared, load $(cut -d' ' -f1-3 /proc/loadavg); $ORDERS orders"
printf '%-6s %-28s %-16s %10s %9s %14s\n' round binary request "req/s" p99 "server µs/req"
for round in $(seq "${ROUNDS:-3}"); do
  for binary in "$@"; do
    WALLET_ORDERS_DATABASE="$database" WALLET_ORDERS_MERCHANT_KEY=$MERCHANT_KEY \
      WALLET_ORDERS_PUBLIC_URL=https://orders.example.com WALLET_ORDERS_TEMPLATE=OrderTemplates/sample \
      WALLET_ORDERS_APNS_KEY= WALLET_ORDERS_LISTING_LIMIT=off WALLET_ORDERS_MERCHANT_LIMIT=off \
      WALLET_ORDERS_AUTH_FAILURE_LIMIT=off "$binary" serve --port $port >"$work/serve.log" 2>&1 &
    server=$!
    for _ in $(seq 300); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.1; done
    wrk -t2 -c"$connections" -d3s -s Benchmarks/wrk/listing.lua "$base" >/dev/null
    for script in listing fetch-unchanged; do
      before=$(cpu)
      wrk -t2 -c"$connections" -d"${duration}s" --latency -s "Benchmarks/wrk/$script.lua" "$base" >"$work/$script.txt"
      after=$(cpu)
      requests=$(awk '/requests in/ {print $1}' "$work/$script.txt")
      printf '%-6s %-28s %-16s %10s %9s %14s\n' "$round" "$(basename "$(dirname "$binary")")/$(basename "$binary")" \
        "$script" "$(awk '/Requests\/sec/ {print $2}' "$work/$script.txt")" "$(awk '/ 99%/ {print $2}' "$work/$script.txt")" \
        "$(python3 -c "print(f'{($after - $before) / $hz / $requests * 1e6:.1f}')")"
    done
    kill "$server"; wait "$server" 2>/dev/null || true; server=""
  done
done
