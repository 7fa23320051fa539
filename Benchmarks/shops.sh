#!/usr/bin/env bash
# Shops that write no code, measured (issue 42): Shopify-shaped webhooks into orders and pushes, beside merchant API
# writes of the same orders, in one run on one server. ORDERS (2,000) signed `orders/create` webhooks made from
# Shopify's documented payload, a device registered for each order, then a signed `fulfillments/create` for each (a
# version and a push each); then as many merchant `POST /api/v1/orders` of the same Wallet order and a `PATCH` of the
# same fulfillment. Prints orders created, versions written and pushes delivered to a local APNs per second, and the
# webhook ÷ API ratio of each (see Benchmarks/shops.py).
#
# Usage: Benchmarks/shops.sh sqlite|postgres [ORDERS (2000)]
# Settings: CONNECTIONS (4); BIN (a release build of wallet-orders; built here when unset); KEEP=1 keeps the work
# folder (the server's and the local APNs' logs). PostgreSQL runs in a throwaway cluster with fsync on.
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib/postgres.sh
engine=${1:?usage: Benchmarks/shops.sh sqlite|postgres [ORDERS]}
orders=${2:-2000}
connections=${CONNECTIONS:-4}
case "$engine" in sqlite | postgres) ;; *) echo "engine: sqlite or postgres"; exit 2 ;; esac
for tool in curl python3 openssl; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install curl python3 openssl)"; exit 1; }
done
if [ -z "${BIN:-}" ]; then
  swift build -c release --product wallet-orders >/dev/null
  BIN=.build/release/wallet-orders
fi
bin=$BIN

work=$(mktemp -d "${TMPDIR:-/tmp}/wo-shops.XXXXXX")
apns="" server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  [ -n "$apns" ] && kill "$apns" 2>/dev/null
  pg_stop
  [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

$bin keys dev --out "$work/keys" >/dev/null
set -a; . "$work/keys/dev.env"; set +a
type=$WALLET_ORDERS_ORDER_TYPE

apns_port=$(free_port)
$bin apns-sandbox --port "$apns_port" --keys "$work/keys" >"$work/apns.log" 2>&1 &
apns=$!
for _ in $(seq 100); do grep -q "listening" "$work/apns.log" && break; sleep 0.1; done

case "$engine" in
  sqlite) export WALLET_ORDERS_DATABASE="$work/orders.sqlite" ;;
  postgres)
    pg_start --settings bulk --database orders --in "$work"
    export WALLET_ORDERS_DATABASE=$PG_URL ;;
esac

# The merchant and its Shopify store, connected as an operator connects them, before the server starts.
$bin migrate >/dev/null
$bin merchants add acme --name Acme >/dev/null
merchant_key=$($bin merchants key create acme --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["key"])')
secret=$(openssl rand -hex 24)
printf '%s' "$secret" >"$work/secret.txt"
connection=$($bin shops connect --merchant acme --kind shopify --shop acme.myshopify.com --secret-file "$work/secret.txt" \
  --order-management-url 'https://acme.example/account/orders/{id}' --json |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["shops"][0]["id"])')

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

export WATCH_PIDS="server=$server,apns=$apns${PG_DATA:+,postgres=$(head -1 "$PG_DATA/postmaster.pid")}"
echo "$engine: $orders orders, $connections connections; $(nproc) cores shared, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 Benchmarks/shops.py "$base" "$type" "$merchant_key" "/hooks/shopify/$connection" "$secret" "$orders" \
  "$connections" Tests/Fixtures/shops
grep -iE "fatal" "$work/serve.log" | head -5 || true
