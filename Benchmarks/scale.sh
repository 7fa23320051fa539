#!/usr/bin/env bash
# The service at scale, on one engine: seeds ORDERS orders and DEVICES devices registered for PER_DEVICE orders
# each through the store's bulk path, serves them with a release build, and measures with wrk on loopback:
# "which orders changed since" for random devices and tags, the order fetch, registration alone, merchant
# updates alone, then updates and registrations at once; `openssl speed rsa2048` in the same run is the
# reference for updates (signing one package per update is the work that cannot be avoided).
#
# Usage: Benchmarks/scale.sh sqlite|postgres [ORDERS] [DEVICES] [PER_DEVICE]
# Settings: DURATION (seconds per wrk run, 20), CONNECTIONS (8), KEEP=1 keeps the data folder.
# PostgreSQL runs in a throwaway cluster with production settings (fsync and synchronous commit on). wrk stands for
# many devices from one address, so the per-address rate limits are off.
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib/postgres.sh
engine=${1:?usage: Benchmarks/scale.sh sqlite|postgres [ORDERS] [DEVICES] [PER_DEVICE]}
orders=${2:-1000000}
devices=${3:-1000000}
per_device=${4:-5}
duration=${DURATION:-20}
connections=${CONNECTIONS:-8}
fetched=1000
for tool in wrk curl openssl python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install wrk curl openssl python3)"; exit 1; }
done
swift build -c release --product wallet-orders >/dev/null
swift build -c release --product scale-benchmark >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/wo-scale.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  pg_stop
  [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT

.build/release/wallet-orders keys dev --out "$work/keys" >/dev/null
set -a; . "$work/keys/dev.env"; set +a
type=$WALLET_ORDERS_ORDER_TYPE

case "$engine" in
  sqlite) database="$work/data/orders.sqlite" ;;
  postgres)
    pg_start --settings bulk -c shared_buffers=4GB --database orders --in "$work"
    database=$PG_URL ;;
  *) echo "engine: sqlite or postgres"; exit 2 ;;
esac

echo "seeding $orders orders, $devices devices x $per_device registrations ($engine)"
seed_start=$(date +%s)
.build/release/scale-benchmark "$database" "$orders" "$devices" "$per_device" "$type" | tail -3
echo "seeded in $(( $(date +%s) - seed_start )) s"
[ "$engine" = sqlite ] && echo "database file: $(du -h "$database" | cut -f1)"

port=18090
key=merchant-key-for-the-scale-benchmark
WALLET_ORDERS_DATABASE="$database" WALLET_ORDERS_MERCHANT_KEY=$key WALLET_ORDERS_PUBLIC_URL=https://orders.example.com \
  WALLET_ORDERS_TEMPLATE=OrderTemplates/sample WALLET_ORDERS_APNS_KEY= \
  WALLET_ORDERS_LISTING_LIMIT=off WALLET_ORDERS_MERCHANT_LIMIT=off WALLET_ORDERS_AUTH_FAILURE_LIMIT=off \
  .build/release/wallet-orders serve --port $port >"$work/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
base="http://127.0.0.1:$port"
export ORDERS=$orders DEVICES=$devices FETCHED=$fetched ORDER_TYPE=$type MERCHANT_KEY=$key

run() { # name script [connections]: one wrk run, its output kept
  wrk -t2 -c"${3:-$connections}" -d"${duration}s" --latency -s "Benchmarks/wrk/$2.lua" "$base" >"$work/$1.txt"
}
rps() { awk '/Requests\/sec/ {print $2}' "$work/$1.txt"; }
p99() { awk '/ 99%/ {print $2}' "$work/$1.txt"; }
non2xx() { awk '/Non-2xx/ {print $NF}' "$work/$1.txt"; }

# The fetch serves signed packages: the first fetch of each order signs it, so sign the measured ones first.
DURATION=5 wrk -t2 -c"$connections" -d5s -s Benchmarks/wrk/fetch.lua "$base" >/dev/null

run listing listing
run fetch fetch
run register register
run update update
PREFIX=mixed wrk -t1 -c"$connections" -d"${duration}s" --latency -s Benchmarks/wrk/register.lua "$base" >"$work/mixed-register.txt" &
mixed=$!
wrk -t1 -c"$connections" -d"${duration}s" --latency -s Benchmarks/wrk/update.lua "$base" >"$work/mixed-update.txt"
wait $mixed
openssl speed -seconds 10 rsa2048 2>/dev/null >"$work/openssl-1.txt"
openssl speed -seconds 10 -multi "$(nproc)" rsa2048 2>/dev/null >"$work/openssl-n.txt"
signs() { awk '/^rsa 2048 bits/ {print $(NF-1)}' "$1"; }

echo
echo "$engine, $orders orders, $devices devices, $(( devices * per_device )) registrations; wrk -t2 -c$connections -d${duration}s on loopback, $(nproc) cores shared"
printf '  %-44s %10s req/s  p99 %8s  non-2xx %s\n' "changed since (random device and tag)" "$(rps listing)" "$(p99 listing)" "$(non2xx listing)"
printf '  %-44s %10s req/s  p99 %8s  non-2xx %s\n' "order fetch ($fetched signed orders)" "$(rps fetch)" "$(p99 fetch)" "$(non2xx fetch)"
printf '  %-44s %10s req/s  p99 %8s  non-2xx %s\n' "registration alone" "$(rps register)" "$(p99 register)" "$(non2xx register)"
printf '  %-44s %10s req/s  p99 %8s  non-2xx %s\n' "update alone (merge patch, signed package)" "$(rps update)" "$(p99 update)" "$(non2xx update)"
printf '  %-44s %10s req/s  p99 %8s  non-2xx %s\n' "registration while updates run" "$(rps mixed-register)" "$(p99 mixed-register)" "$(non2xx mixed-register)"
printf '  %-44s %10s req/s  p99 %8s  non-2xx %s\n' "update while registrations run" "$(rps mixed-update)" "$(p99 mixed-update)" "$(non2xx mixed-update)"
printf '  %-44s %10s sign/s\n' "openssl speed rsa2048, 1 process" "$(signs "$work/openssl-1.txt")"
printf '  %-44s %10s sign/s\n' "openssl speed rsa2048, $(nproc) processes" "$(signs "$work/openssl-n.txt")"
python3 - "$(rps register)" "$(rps mixed-register)" "$(rps update)" "$(rps mixed-update)" \
  "$(signs "$work/openssl-1.txt")" "$(signs "$work/openssl-n.txt")" <<'PY'
import sys
register, mixed_register, update, mixed_update, one, many = map(float, sys.argv[1:])
print(f"  registrations while updating / alone: {mixed_register / register:.2f}")
print(f"  updates alone / openssl signs (1 process, {int(many / one + 0.5)} processes): {update / one:.2f}, {update / many:.2f}")
print(f"  updates while registering / openssl signs (1 process): {mixed_update / one:.2f}")
PY
