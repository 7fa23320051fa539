#!/usr/bin/env bash
# Bulk import: ORDERS generated orders (100,000 by default) sent as one NDJSON body to POST /api/v1/orders/import of
# a release build, on SQLite and then on PostgreSQL, each into a fresh database: orders per second for the first
# import (every order created, so signed once), for the same file again (every line unchanged: nothing signed or
# written) and for an export of them all; and the server's peak RSS (VmHWM) after all three. Before each engine,
# `openssl speed -seconds 5 rsa2048` (one process, then one per core) measures the signatures per second this machine
# has: the ceiling for orders that are each signed once.
#
# Usage: Benchmarks/import.sh [ORDERS (100000)] [ENGINES ("sqlite postgres")]
# Settings: KEEP=1 keeps the work folder (the orders, the answers, the server logs).
# PostgreSQL runs in a throwaway cluster with production settings (fsync and synchronous commit on).
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib/postgres.sh
orders=${1:-100000}
engines=${2:-sqlite postgres}
for tool in curl openssl python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install curl openssl python3)"; exit 1; }
done
swift build -c release --product wallet-orders >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/wo-import.XXXXXX")
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  pg_stop
  [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT

.build/release/wallet-orders keys dev --out "$work/keys" >/dev/null
set -a; . "$work/keys/dev.env"; set +a

# Orders as a shop's backend would send them: its own identifiers and numbers, a few statuses, amounts and items.
python3 - "$orders" "$work/orders.ndjson" <<'PY'
import json, random, sys
count, path = int(sys.argv[1]), sys.argv[2]
random.seed(20261125)
with open(path, "w") as out:
    for n in range(1, count + 1):
        quantity = random.randint(1, 4)
        price = random.randint(300, 9_900) / 100
        order = {
            "orderIdentifier": f"B-{n:07d}",
            "orderNumber": f"{100000 + n}",
            "orderManagementURL": f"https://shop.example.com/account/orders/{100000 + n}",
            "status": random.choice(["open", "open", "open", "completed"]),
            "statusDescription": "STATUS_PROCESSING",
            "payment": {"total": {"amount": round(price * quantity, 2), "currency": "EUR"}, "status": "paid"},
            "lineItems": [{"title": "ITEM_MUG", "quantity": quantity, "image": "mug.png",
                           "price": {"amount": price, "currency": "EUR"}}],
            "fulfillments": [{"fulfillmentType": "shipping", "fulfillmentIdentifier": f"parcel-{n}",
                              "status": "processing", "carrier": "Example Post"}],
        }
        out.write(json.dumps(order, separators=(",", ":")) + "\n")
PY
echo "$orders orders, $(du -h "$work/orders.ndjson" | cut -f1) of NDJSON; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

port=18094
base="http://127.0.0.1:$port"
key=merchant-key-for-the-import-benchmark
signs() { awk '/^rsa 2048 bits/ {print $(NF-1)}' "$1"; }
# run_import NAME: the orders file through the import; prints the seconds it took, keeps the answer.
run_import() {
  curl -sS -o "$work/$1.ndjson" -w '%{time_total}' -T "$work/orders.ndjson" -X POST "$base/api/v1/orders/import" \
    -H "Authorization: Bearer $key" -H 'Content-Type: application/x-ndjson'
}
hwm() { awk '/^VmHWM/ {print int($2 / 1024)}' "/proc/$server/status"; }
count() { grep -c "\"result\":\"$2\"" "$work/$1.ndjson" || true; }
results=()
for engine in $engines; do
  case "$engine" in
    sqlite) database="$work/sqlite/orders.sqlite"; mkdir -p "$work/sqlite" ;;
    postgres)
      pg_start --settings bulk --database orders --in "$work"
      database=$PG_URL ;;
    *) echo "engine: sqlite or postgres"; exit 2 ;;
  esac

  openssl speed -seconds 5 rsa2048 2>/dev/null >"$work/openssl-$engine-1.txt"
  openssl speed -seconds 5 -multi "$(nproc)" rsa2048 2>/dev/null >"$work/openssl-$engine-n.txt"

  WALLET_ORDERS_DATABASE="$database" WALLET_ORDERS_MERCHANT_KEY=$key WALLET_ORDERS_PUBLIC_URL=https://orders.example.com \
    WALLET_ORDERS_TEMPLATE=OrderTemplates/sample WALLET_ORDERS_APNS_KEY= \
    .build/release/wallet-orders serve --port $port >"$work/serve-$engine.log" 2>&1 &
  server=$!
  for _ in $(seq 300); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.1; done
  echo "$engine: importing $orders orders (load $(cut -d' ' -f1-3 /proc/loadavg))"
  created=$(run_import "$engine-first")
  peaks="$(hwm)"
  again=$(run_import "$engine-again")
  peaks="$peaks $(hwm)"
  exported=$(curl -sS -o "$work/$engine-export.ndjson" -w '%{time_total}' "$base/api/v1/orders/export" -H "Authorization: Bearer $key")
  peak=$(hwm)
  echo "  peak RSS after the import, the second import, the export: $peaks $peak MiB (now $(awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$server/status") MiB)"
  kill "$server"; wait "$server" 2>/dev/null || true; server=""
  [ "$(count "$engine-first" created)" = "$orders" ] || echo "  first import: $(count "$engine-first" created) created of $orders"
  [ "$(count "$engine-again" unchanged)" = "$orders" ] || echo "  second import: $(count "$engine-again" unchanged) unchanged of $orders"
  [ "$(wc -l <"$work/$engine-export.ndjson")" = "$orders" ] || echo "  export: $(wc -l <"$work/$engine-export.ndjson") lines"
  results+=("$engine $created $again $exported $peak $(signs "$work/openssl-$engine-1.txt") $(signs "$work/openssl-$engine-n.txt") $(cut -d' ' -f1 /proc/loadavg)")
done

echo
echo "$orders orders in one import (curl -T, loopback), $(nproc) cores shared"
python3 - "$orders" "${results[@]}" <<'PY'
import sys
orders = int(sys.argv[1])
print(f"  {'engine':<9}{'created/s':>11}{'unchanged/s':>13}{'exported/s':>12}{'peak RSS':>11}"
      f"{'openssl 1':>11}{'openssl n':>11}{'created / 1':>13}{'created / n':>13}{'load':>6}")
for line in sys.argv[2:]:
    engine, created, again, exported, peak, one, many, load = line.split()
    rate = orders / float(created)
    print(f"  {engine:<9}{rate:>11,.0f}{orders / float(again):>13,.0f}{orders / float(exported):>12,.0f}"
          f"{int(peak):>8,} MiB{float(one):>11,.0f}{float(many):>11,.0f}"
          f"{rate / float(one):>13.2f}{rate / float(many):>13.2f}{float(load):>6.1f}")
print("  openssl: `openssl speed -seconds 5 rsa2048` sign/s, one process (1) and one per core (n), just before the import")
PY
