#!/usr/bin/env bash
# Many merchants against one, at the same size, in one run: ORDERS orders held by MERCHANTS merchants (1,000 by
# default) beside the same number held by a single merchant, on one engine. For each store in turn (A B A B), a
# release build serves it and wrk measures the order fetch (a device, the first 1,000 orders, signed first), a
# merchant's GET of one of its orders (random, with its own key) and a merchant's PATCH (random; each signs a
# package). The ratios many / one show what merchants cost at scale.
#
# Usage: Benchmarks/merchants.sh sqlite|postgres [ORDERS (1000000)] [MERCHANTS (1000)]
# Settings: DURATION (seconds per wrk run, 10), CONNECTIONS (8), KEEP=1 keeps the data folder.
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib/postgres.sh
engine=${1:?usage: Benchmarks/merchants.sh sqlite|postgres [ORDERS] [MERCHANTS]}
orders=${2:-1000000}
many=${3:-1000}
duration=${DURATION:-10}
connections=${CONNECTIONS:-8}
for tool in wrk curl python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install wrk curl python3)"; exit 1; }
done
swift build -c release --product wallet-orders >/dev/null
swift build -c release --product merchant-benchmark >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/wo-merchants.XXXXXX")
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  pg_stop
  [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT

.build/release/wallet-orders keys dev --out "$work/keys" >/dev/null
set -a; . "$work/keys/dev.env"; set +a
type=$WALLET_ORDERS_ORDER_TYPE

database() { # merchants: where that store lives
  case "$engine" in
    sqlite) echo "$work/m$1/orders.sqlite" ;;
    postgres) pg_url "m$1" ;;
  esac
}
case "$engine" in
  sqlite) ;;
  postgres)
    pg_start --settings bulk -c shared_buffers=2GB --database m1 --database "m$many" --in "$work" ;;
  *) echo "engine: sqlite or postgres"; exit 2 ;;
esac

for count in 1 "$many"; do
  mkdir -p "$work/m$count"
  echo "seeding $orders orders held by $count merchant(s) ($engine)"
  .build/release/merchant-benchmark "$(database "$count")" "$orders" "$count" "$type" "$work/m$count/keys.txt" | tail -1
done

port=18092
base="http://127.0.0.1:$port"
export ORDERS=$orders FETCHED=1000 ORDER_TYPE=$type
rps() { awk '/Requests\/sec/ {print $2}' "$work/$1.txt"; }
non2xx() { awk '/Non-2xx/ {print $NF}' "$work/$1.txt"; }
results=()
for round in 1 2; do
  for count in 1 "$many"; do
    WALLET_ORDERS_DATABASE="$(database "$count")" WALLET_ORDERS_PUBLIC_URL=https://orders.example.com \
      WALLET_ORDERS_TEMPLATE=OrderTemplates/sample WALLET_ORDERS_APNS_KEY= \
      WALLET_ORDERS_LISTING_LIMIT=off WALLET_ORDERS_MERCHANT_LIMIT=off WALLET_ORDERS_AUTH_FAILURE_LIMIT=off \
      .build/release/wallet-orders serve --port $port >"$work/serve-$count.log" 2>&1 &
    server=$!
    for _ in $(seq 600); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.1; done
    export MERCHANTS=$count KEYS_FILE="$work/m$count/keys.txt"
    # The first fetch of an order signs it: sign the fetched ones first.
    wrk -t2 -c"$connections" -d5s -s Benchmarks/wrk/merchant-fetch.lua "$base" >/dev/null
    wrk -t2 -c"$connections" -d3s -s Benchmarks/wrk/merchant-get.lua "$base" >/dev/null
    name="r$round-m$count"
    wrk -t2 -c"$connections" -d"${duration}s" -s Benchmarks/wrk/merchant-fetch.lua "$base" >"$work/$name-fetch.txt"
    wrk -t2 -c"$connections" -d"${duration}s" -s Benchmarks/wrk/merchant-get.lua "$base" >"$work/$name-get.txt"
    wrk -t2 -c"$connections" -d"${duration}s" -s Benchmarks/wrk/merchant-patch.lua "$base" >"$work/$name-patch.txt"
    kill "$server"; wait "$server" 2>/dev/null || true; server=""
    for kind in fetch get patch; do
      [ -n "$(non2xx "$name-$kind")" ] && echo "  $name $kind: $(non2xx "$name-$kind") answers were not 2xx"
    done
    results+=("$round $count $(rps "$name-fetch") $(rps "$name-get") $(rps "$name-patch")")
  done
done

echo
echo "$engine, $orders orders; wrk -t2 -c$connections -d${duration}s on loopback, $(nproc) cores shared, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-6s %-22s %12s %12s %12s\n' round store "fetch req/s" "GET req/s" "PATCH req/s"
for line in "${results[@]}"; do
  set -- $line
  printf '  %-6s %-22s %12s %12s %12s\n' "$1" "$2 merchant(s)" "$3" "$4" "$5"
done
python3 - "$many" "${results[@]}" <<'PY'
import sys
many = sys.argv[1]
rows = [line.split() for line in sys.argv[2:]]
def mean(count, column):
    values = [float(row[column]) for row in rows if row[1] == count]
    return sum(values) / len(values)
for column, name in ((2, "fetch"), (3, "merchant GET"), (4, "merchant PATCH")):
    one, lots = mean("1", column), mean(many, column)
    print(f"  {name:<16} {many} merchants / 1: {lots / one:.2f}  ({lots:.0f} against {one:.0f} req/s, means of 2 rounds)")
PY
