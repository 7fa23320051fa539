#!/usr/bin/env bash
# Webhook deliveries per second, in one run: the outbox → nginx on loopback answering 204 to every POST (SQLite,
# then PostgreSQL), beside wrk POSTing the same kind of body to the same nginx (the receiver's own ceiling) and the
# push outbox's pushes per second (Benchmarks/push.sh's last figures).
# Usage: Benchmarks/webhooks.sh [EVENTS] [CONCURRENCY]
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib/postgres.sh
events=${1:-20000}
concurrency=${2:-16}
for tool in wrk nginx curl; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install wrk nginx-light curl)"; exit 1; }
done
swift build -c release --product webhook-benchmark >/dev/null

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  pg_stop
  rm -rf "$work"
}
trap cleanup EXIT

nginx_port=18091
mkdir -p "$work/nginx/logs"
cat >"$work/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
error_log $work/nginx/logs/error.log;
pid $work/nginx/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/nginx/body;
  server { listen 127.0.0.1:$nginx_port; location / { return 204; } }
}
CONF
nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" &
pids+=($!)
for _ in $(seq 50); do curl -s -o /dev/null -X POST "http://127.0.0.1:$nginx_port/hook" && break; sleep 0.1; done

cat >"$work/post.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["webhook-id"] = "msg_2f0c6b1e9d8a4c3b2a1f0e9d8c7b6a59"
wrk.headers["webhook-timestamp"] = "1795000000"
wrk.headers["webhook-signature"] = "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="
wrk.body = '{"data":{"orderIdentifier":"bench-1","orderTypeIdentifier":"order.com.example.bench","walletOrderIdentifier":"bench-1"},"timestamp":"2026-11-25T10:15:30Z","type":"order.added_to_wallet"}'
LUA
echo "== wrk → nginx, $concurrency connections (the receiver's ceiling)"
wrk -t2 -c"$concurrency" -d10s -s "$work/post.lua" "http://127.0.0.1:$nginx_port/hook" | grep -E "Requests/sec|Non-2xx|requests in"

echo "== the webhook outbox → nginx, SQLite"
.build/release/webhook-benchmark "$work/webhooks.sqlite" "http://127.0.0.1:$nginx_port/hook" "$events" "$concurrency"

echo "== the webhook outbox → nginx, PostgreSQL"
pg_start
.build/release/webhook-benchmark "$PG_URL" "http://127.0.0.1:$nginx_port/hook" "$events" "$concurrency"
pg_stop

echo "== pushes, for comparison (Benchmarks/push.sh 20000)"
Benchmarks/push.sh 20000 | tail -4
