#!/usr/bin/env bash
# Tracking events against merchant PATCHes, in one run on one server (issue 28): EVENTS events (100,000) for ORDERS
# orders (10,000) posted by a logistics partner, 1,000 a request, from CONNECTIONS connections as fast as they are
# answered (phase A); then as many merchant PATCHes as phase A wrote versions, each changing a fulfillment's status,
# from as many connections (phase B). For each: requests answered, versions written and pushes delivered to a local
# APNs per second, each phase's pushes counted until its outbox is empty again. Every order has one device, so a
# version is one push unless the outbox folds it into a push still waiting for that device.
#
# Usage: Benchmarks/tracking.sh sqlite|postgres [ORDERS (10000)] [EVENTS (100000)]
# Settings: CONNECTIONS (4); LAYOUT=grouped sends all of an order's events in one request (one version for them
# all) instead of one event per order a request (`spread`, the default: every event a version); KEEP=1 keeps the
# work folder (the server's and the local APNs' logs, the answers); PROFILE=1 samples the server with `perf record`
# during each phase and prints where its CPU time went, by library; STATEMENTS=1 (PostgreSQL) loads
# pg_stat_statements and prints, after each phase, the statements that took the database's time.
# PostgreSQL runs in a throwaway cluster with production settings (fsync and synchronous commit on).
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib/postgres.sh
engine=${1:?usage: Benchmarks/tracking.sh sqlite|postgres [ORDERS] [EVENTS]}
orders=${2:-10000}
events=${3:-100000}
connections=${CONNECTIONS:-4}
case "$engine" in sqlite | postgres) ;; *) echo "engine: sqlite or postgres"; exit 2 ;; esac
[ "$engine" = postgres ] || unset STATEMENTS
for tool in curl python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install curl python3)"; exit 1; }
done
[ "$engine" = sqlite ] && { command -v sqlite3 >/dev/null || { echo "needs sqlite3 (apt-get install sqlite3)"; exit 1; }; }
[ $((events % orders)) = 0 ] || { echo "EVENTS must be a multiple of ORDERS (each order gets EVENTS/ORDERS events)"; exit 2; }
swift build -c release --product wallet-orders >/dev/null
bin=.build/release/wallet-orders

work=$(mktemp -d "${TMPDIR:-/tmp}/wo-tracking.XXXXXX")
apns="" server="" perf=""
cleanup() {
  [ -n "$perf" ] && kill -INT "$perf" 2>/dev/null
  [ -n "$server" ] && kill "$server" 2>/dev/null
  [ -n "$apns" ] && kill "$apns" 2>/dev/null
  pg_stop
  [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT
# Ports the kernel hands out are free now; another benchmark on the machine may hold the fixed ones the others use.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

$bin keys dev --out "$work/keys" >/dev/null
set -a; . "$work/keys/dev.env"; set +a
type=$WALLET_ORDERS_ORDER_TYPE

# The local APNs prints a line per push it takes: counted at the end, beside the push worker's own count.
apns_port=$(free_port)
$bin apns-sandbox --port "$apns_port" --keys "$work/keys" >"$work/apns.log" 2>&1 &
apns=$!
for _ in $(seq 100); do grep -q "listening" "$work/apns.log" && break; sleep 0.1; done

case "$engine" in
  sqlite)
    export WALLET_ORDERS_DATABASE="$work/orders.sqlite"
    store_query() { sqlite3 "$WALLET_ORDERS_DATABASE" "$1"; } ;;
  postgres)
    pg_start --settings bulk --database orders --in "$work" \
      ${STATEMENTS:+-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all}
    [ -n "${STATEMENTS:-}" ] && pg_psql -d orders -c "CREATE EXTENSION pg_stat_statements"
    export WALLET_ORDERS_DATABASE=$PG_URL
    store_query() { pg_psql -d orders -AtF '|' -c "$1"; } ;;
esac

# The merchant and its partner, made as an operator makes them, on the migrated database before the server starts.
$bin migrate >/dev/null
$bin merchants add acme --name Acme >/dev/null
merchant_key=$($bin merchants key create acme --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["key"])')
$bin partners add parcelco --merchant acme >/dev/null
partner_key=$($bin partners key create parcelco --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["key"])')

port=$(free_port)
base="http://127.0.0.1:$port"
# Limits off: one client makes all the requests here, as many as the server answers.
WALLET_ORDERS_MERCHANT_KEY=$(openssl rand -hex 16) WALLET_ORDERS_PUBLIC_URL=https://orders.example.com \
  WALLET_ORDERS_TEMPLATE=OrderTemplates/sample \
  WALLET_ORDERS_APNS_ENVIRONMENT="https://127.0.0.1:$apns_port" WALLET_ORDERS_APNS_CA="$work/keys/local-apns-ca.pem" \
  WALLET_ORDERS_MERCHANT_LIMIT=off WALLET_ORDERS_AUTH_FAILURE_LIMIT=off WALLET_ORDERS_LISTING_LIMIT=off \
  $bin serve --port "$port" >"$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 600); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.1; done
curl -sf "$base/healthz" >/dev/null || { echo "the server did not start:"; tail -20 "$work/serve.log"; exit 1; }

# phase NAME ARGS...: one step of the driver, its JSON line kept in NAME.json; with PROFILE, perf samples the server.
phase() {
  local name=$1; shift
  if [ -n "${PROFILE:-}" ]; then
    perf record -q -F 499 -p "$server" -o "$work/$name.perf" 2>/dev/null &
    perf=$!
  fi
  [ -n "${STATEMENTS:-}" ] && store_query "SELECT pg_stat_statements_reset()" >/dev/null
  python3 Benchmarks/tracking.py "$@" | tee "$work/$name.json"
  if [ -n "${STATEMENTS:-}" ]; then
    echo "  the statements that took PostgreSQL's time ($name): total ms | calls | ms a call | rows | statement"
    store_query "SELECT round(total_exec_time), calls, round((total_exec_time / calls)::numeric, 3), rows,
                        left(regexp_replace(query, '\s+', ' ', 'g'), 110)
                 FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 12" | sed 's/^/   /'
  fi
  if [ -n "$perf" ]; then
    kill -INT "$perf"; wait "$perf" 2>/dev/null || true; perf=""
    echo "  where the server's CPU went ($name), by library:"
    perf report -i "$work/$name.perf" --sort dso --stdio 2>/dev/null | awk '/%/ && !/^#/ {print "   " $0}' | head -8
  fi
}

# The driver counts the CPU each of these used in each phase, and what the rest of the (shared) machine used.
export WATCH_PIDS="server=$server,apns=$apns${PG_DATA:+,postgres=$(head -1 "$PG_DATA/postmaster.pid")}"
echo "$engine: $orders orders, $events events, $connections connections; $(nproc) cores shared, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 Benchmarks/tracking.py setup "$base" "$type" "$merchant_key" "$orders" "$connections" "$work/state.json" | tee "$work/setup.json"
# Each version is signed once: one process's RSA-2048 signatures per second is the reference for versions per second.
openssl=$(openssl speed -seconds 5 rsa2048 2>/dev/null | awk '/^rsa 2048 bits/ {print $(NF-1)}')
echo "phase A: tracking events (load $(cut -d' ' -f1-3 /proc/loadavg))"
phase track track "$base" "$partner_key" "$work/state.json" "$events" "$connections"
partner_versions=$(store_query "SELECT count(*) FROM order_versions WHERE made_by LIKE 'partner:%'")
# Phase B writes as many versions as phase A did, one PATCH each.
patches=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["versions"])' "$work/track.json")
echo "phase B: $patches merchant PATCHes (load $(cut -d' ' -f1-3 /proc/loadavg))"
phase patch patch "$base" "$type" "$merchant_key" "$work/state.json" "$patches" "$connections"
merchant_versions=$(store_query "SELECT count(*) FROM order_versions WHERE made_by LIKE 'merchant:%'")
kill "$server"; wait "$server" 2>/dev/null || true; server=""
grep -iE "error|fatal" "$work/serve.log" | head -5 || true
taken=$(grep -c '^push 200' "$work/apns.log" || true)
printf '{"partner": %d, "merchant": %d, "apns": %d, "openssl": %s}\n' \
  "$partner_versions" "$((merchant_versions - orders))" "$taken" "$openssl" >"$work/facts.json"

echo
echo "$engine, $orders orders × $((events / orders)) events, $connections connections, loopback; $(nproc) cores shared, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 Benchmarks/tracking.py report "$work/setup.json" "$work/track.json" "$work/patch.json" "$work/facts.json"
