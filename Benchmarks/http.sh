#!/usr/bin/env bash
# Requests per second on loopback, measured with wrk:
#   the order fetch (a cached signed package, with AppleOrder token check) and device registration,
#   beside nginx serving the same package bytes as a static file, in the same run.
# Usage: Benchmarks/http.sh [SECONDS] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-10}
connections=${2:-32}
for tool in wrk nginx curl python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install wrk nginx-light curl)"; exit 1; }
done
swift build -c release --product wallet-orders >/dev/null

work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

port=18080; nginx_port=18081
# Every wrk connection comes from 127.0.0.1: no cap on connections per client, whatever the connection count.
env -u WALLET_ORDERS_MERCHANT_KEY WALLET_ORDERS_MAX_CONNECTIONS_PER_CLIENT=0 .build/release/wallet-orders serve --port $port --database "$work/data/orders.sqlite" \
  >"$work/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
key=$(cat "$work/data/merchant-key")
curl -sf -X POST "http://127.0.0.1:$port/api/v1/orders" -H "Authorization: Bearer $key" \
  -H 'Content-Type: application/json' -d @Examples/order.json >"$work/created.json"
read -r type id token < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["orderDetails"]; print(d["orderTypeIdentifier"], d["orderIdentifier"], d["authenticationToken"])' "$work/created.json")
curl -sf -o "$work/package.order" "http://127.0.0.1:$port/v1/orders/$type/$id" -H "Authorization: AppleOrder $token"
bytes=$(stat -c %s "$work/package.order")

mkdir -p "$work/nginx/logs" "$work/nginx/html"
cp "$work/package.order" "$work/nginx/html/package.order"
cat >"$work/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
error_log $work/nginx/logs/error.log;
pid $work/nginx/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  types { application/vnd.apple.finance.order order; }
  server { listen 127.0.0.1:$nginx_port; root $work/nginx/html; }
}
CONF
nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" &
pids+=($!)
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$nginx_port/package.order" && break; sleep 0.1; done

cat >"$work/register.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"pushToken":"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"}'
wrk.headers["Authorization"] = "AppleOrder $token"
wrk.headers["Content-Type"] = "application/json"
counter = 0
request = function()
  counter = counter + 1
  return wrk.format(nil, "/v1/devices/bench-" .. (counter % 1000) .. "/registrations/$type/$id")
end
LUA

rps() { awk '/Requests\/sec/ {print $2}'; }
run() { wrk -t2 -c"$connections" -d"${duration}s" --latency "$@"; }
echo "wrk -t2 -c$connections -d${duration}s on loopback; package $bytes bytes; $(nproc) cores shared by client and server"
fetch=$(run -H "Authorization: AppleOrder $token" "http://127.0.0.1:$port/v1/orders/$type/$id" | tee "$work/fetch.txt" | rps)
static=$(run "http://127.0.0.1:$nginx_port/package.order" | tee "$work/nginx.txt" | rps)
register=$(run -s "$work/register.lua" "http://127.0.0.1:$port" | tee "$work/register.txt" | rps)
p99() { awk '/ 99%/ {print $2}' "$1"; }
printf '  order fetch (wallet-orders):    %10s req/s  p99 %s\n' "$fetch" "$(p99 "$work/fetch.txt")"
printf '  same bytes, nginx static file:  %10s req/s  p99 %s\n' "$static" "$(p99 "$work/nginx.txt")"
printf '  registration (wallet-orders):   %10s req/s  p99 %s\n' "$register" "$(p99 "$work/register.txt")"
python3 -c 'import sys; f, s = float(sys.argv[1]), float(sys.argv[2]); print(f"  order fetch / nginx static: {f / s:.2f}")' "$fetch" "$static"
for f in fetch register; do
  grep -q "Non-2xx" "$work/$f.txt" && { echo "  $f: some answers were not 2xx:"; grep "Non-2xx" "$work/$f.txt"; }
done
true
