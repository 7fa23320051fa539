#!/usr/bin/env bash
# Two (or more) builds of the service compared on one database, because one run on a shared machine moves by more
# than most changes do: for each binary in turn, a fresh copy of DATABASE is served and wrk measures the
# listing, registration alone, updates alone, then registrations and updates at once. Name the binaries
# alternately (A B A B) and compare like with like. The fetch (a random order of the first 1,000, warmed first) and the
# fetch of an unchanged order (a random order of all of them, If-Modified-Since in the future: 304) come first.
#
# Usage: Benchmarks/compare.sh DATABASE KEYS BINARY...
#   DATABASE  a database seeded and kept by `KEEP=1 Benchmarks/scale.sh sqlite ORDERS DEVICES PER_DEVICE`
#             (data/orders.sqlite in the kept folder; checkpoint it first: sqlite3 DB "PRAGMA wal_checkpoint(TRUNCATE)"),
#             or the folder `KEEP=1 Benchmarks/scale.sh postgres …` kept (its cluster, in pg/, is started on a free
#             port and stopped at the end; Benchmarks/lib/postgres.sh), or the URL of a PostgreSQL database seeded so:
#             each binary serves a copy made from it as a template (`compare_copy` on the same server)
#   KEYS      that folder's keys/ (the order type and signing identity the database was seeded with)
#   BINARY    wallet-orders builds, each copied aside into a folder of its own together with the build's
#             .build/release/*.resources folders: a binary finds its migrations beside itself, or else in the build
#             folder it came from, which by then holds the other build's (mkdir /tmp/before && cp -r
#             .build/release/wallet-orders .build/release/*.resources /tmp/before/)
# Settings: DURATION (seconds per wrk run, 8), CONNECTIONS (8), TEMPLATE (the order template folder served, one
# whose template.json is the seeding template's; OrderTemplates/sample).
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib/postgres.sh
database=${1:?usage: Benchmarks/compare.sh DATABASE KEYS BINARY...}
keys=${2:?usage: Benchmarks/compare.sh DATABASE KEYS BINARY...}
shift 2
duration=${DURATION:-8}
connections=${CONNECTIONS:-8}
work=$(mktemp -d "${TMPDIR:-/tmp}/wo-compare.XXXXXX")
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  pg_stop
  rm -rf "$work"
}
trap cleanup EXIT

if [ -d "$database/pg" ]; then
  pg_resume "$database"
  database=$(pg_url orders)
fi

set -a; . "$keys/dev.env"; set +a
key=merchant-key-for-the-scale-benchmark
port=18091
base="http://127.0.0.1:$port"
case "$database" in
  postgres://* | postgresql://*)
    # The same server's maintenance database, and the copy each binary serves.
    admin=$(sed -E 's|(//[^/]*/)[^?]*|\1postgres|' <<<"$database")
    seeded=$(sed -E 's|^[^/]*//[^/]*/([^?]*).*|\1|' <<<"$database")
    served=$(sed -E 's|(//[^/]*/)[^?]*|\1compare_copy|' <<<"$database")
    query() { psql -X -q -A -t "$database" -c "$1"; }
    copy() {
      psql -X -q "$admin" -c "DROP DATABASE IF EXISTS compare_copy" -c "CREATE DATABASE compare_copy TEMPLATE \"$seeded\""
    } ;;
  *)
    served="$work/orders.sqlite"
    query() { sqlite3 "$database" "$1"; }
    copy() {
      rm -f "$work"/orders.sqlite*
      cp "$database" "$work/orders.sqlite"
      # Written out before measuring: otherwise the copy's writeback competes with the first runs.
      sync
    } ;;
esac
export ORDERS=$(query "SELECT count(*) FROM orders") \
  DEVICES=$(query "SELECT count(DISTINCT device_identifier) FROM registrations") ORDER_TYPE=$WALLET_ORDERS_ORDER_TYPE MERCHANT_KEY=$key \
  FETCHED=1000
rps() { awk '/Requests\/sec/ {print $2}' "$work/$1.txt"; }
p99() { awk '/ 99%/ {print $2}' "$work/$1.txt"; }

printf '%-28s %8s %8s %9s %8s %9s %9s %15s %6s %10s\n' binary fetch "304" listing p99 register update "both: reg/upd" ratio \
  "reg p99"
for binary in "$@"; do
  copy
  WALLET_ORDERS_DATABASE="$served" WALLET_ORDERS_MERCHANT_KEY=$key WALLET_ORDERS_PUBLIC_URL=https://orders.example.com \
    WALLET_ORDERS_TEMPLATE=${TEMPLATE:-OrderTemplates/sample} WALLET_ORDERS_APNS_KEY= \
    WALLET_ORDERS_LISTING_LIMIT=off WALLET_ORDERS_MERCHANT_LIMIT=off WALLET_ORDERS_AUTH_FAILURE_LIMIT=off \
    "$binary" serve --port $port >"$work/serve.log" 2>&1 &
  server=$!
  for _ in $(seq 300); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.1; done
  wrk -t2 -c"$connections" -d3s -s Benchmarks/wrk/fetch.lua "$base" >/dev/null
  wrk -t2 -c"$connections" -d"${duration}s" -s Benchmarks/wrk/fetch.lua "$base" >"$work/fetch.txt"
  wrk -t2 -c"$connections" -d"${duration}s" -s Benchmarks/wrk/fetch-unchanged.lua "$base" >"$work/unchanged.txt"
  wrk -t2 -c"$connections" -d3s -s Benchmarks/wrk/listing.lua "$base" >/dev/null
  wrk -t2 -c"$connections" -d"${duration}s" --latency -s Benchmarks/wrk/listing.lua "$base" >"$work/listing.txt"
  wrk -t2 -c"$connections" -d"${duration}s" -s Benchmarks/wrk/register.lua "$base" >"$work/register.txt"
  wrk -t2 -c"$connections" -d"${duration}s" -s Benchmarks/wrk/update.lua "$base" >"$work/update.txt"
  PREFIX=mixed wrk -t1 -c"$connections" -d"${duration}s" --latency -s Benchmarks/wrk/register.lua "$base" \
    >"$work/mixed-register.txt" &
  mixed=$!
  wrk -t1 -c"$connections" -d"${duration}s" -s Benchmarks/wrk/update.lua "$base" >"$work/mixed-update.txt"
  wait $mixed
  kill "$server"; wait "$server" 2>/dev/null || true; server=""
  ratio=$(python3 -c "import sys; print(f'{float(sys.argv[2]) / float(sys.argv[1]):.2f}')" "$(rps register)" "$(rps mixed-register)")
  printf '%-28s %8s %8s %9s %8s %9s %9s %15s %6s %10s\n' "$(basename "$(dirname "$binary")")/$(basename "$binary")" \
    "$(rps fetch)" "$(rps unchanged)" "$(rps listing)" "$(p99 listing)" \
    "$(rps register)" "$(rps update)" "$(rps mixed-register)/$(rps mixed-update)" "$ratio" "$(p99 mixed-register)"
done
