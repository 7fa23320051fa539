#!/usr/bin/env bash
# Abuse figures on loopback (issue 13), recorded in RELIABILITY.md under "Abuse":
#   1. /v1/log flooded for SECONDS with the largest accepted body (~250 KB, 100 distinct messages a request, new
#      ones each request so nothing folds), with the configured log rate limit and again with it off (the total
#      bound alone), while wrk fetches an order on other connections: database growth, fetch p99, non-2xx.
#   2. Afterwards, a log entry posted once is stored and shown by `wallet-orders admin logs`.
#   3. 1,000 connections held open (half idle, half trickling a header byte a second) while wrk fetches the order.
# Usage: Benchmarks/abuse.sh [SECONDS] [BUILD]   (BUILD: release, the default, or debug)
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-15}
build=${2:-release}
for tool in wrk curl python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install wrk curl python3)"; exit 1; }
done
swift build -c "$build" --product wallet-orders >/dev/null
bin=.build/$build/wallet-orders
for name in $(env | sed -n 's/^\(WALLET_ORDERS_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$name"; done

work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
port=18090

# Starts the server on a fresh database in $work/$1 (extra WALLET_ORDERS_* settings in the environment) and
# creates an order: sets db, type, id, token.
start() {
  local dir=$work/$1
  mkdir -p "$dir"
  db=$dir/data/orders.sqlite
  "$bin" serve --port $port --database "$db" >"$dir/serve.log" 2>&1 &
  server=$!
  pids+=($server)
  for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
  local key; key=$(cat "$dir/data/merchant-key")
  curl -sf -X POST "http://127.0.0.1:$port/api/v1/orders" -H "Authorization: Bearer $key" \
    -H 'Content-Type: application/json' -d @Examples/order.json >"$dir/created.json"
  read -r type id token < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["orderDetails"]; print(d["orderTypeIdentifier"], d["orderIdentifier"], d["authenticationToken"])' "$dir/created.json")
  curl -sf -o /dev/null "http://127.0.0.1:$port/v1/orders/$type/$id" -H "Authorization: AppleOrder $token"
}
stop() { kill "$server"; wait "$server" 2>/dev/null || true; }
# The database's files together: the main file, its write-ahead log and shared memory.
size() { du -cb "$db" "$db-wal" "$db-shm" 2>/dev/null | tail -1 | cut -f1; }
mb() { python3 -c "import sys; print(f'{int(sys.argv[1]) / 1048576:.1f} MB')" "$1"; }
p99() { awk '/ 99%/ {print $2}' "$1"; }
rps() { awk '/Requests\/sec/ {print $2}' "$1"; }
non2xx() { awk '/Non-2xx/ {print $4}' "$1" | grep . || echo 0; }
requests() { awk '/requests in/ {print $1}' "$1"; }

# Each request: 100 messages of ~2,500 bytes, each naming the request, so that no two messages are alike.
cat >"$work/flood.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local filler = string.rep("x", 2480)
local counter = 0
request = function()
  counter = counter + 1
  local parts = {}
  for i = 1, 100 do parts[i] = '"' .. math.random(1e9) .. "-" .. counter .. "-" .. i .. " " .. filler .. '"' end
  return wrk.format(nil, "/v1/log", nil, '{"logs":[' .. table.concat(parts, ",") .. "]}")
end
LUA

echo "wallet-orders ($build build) on loopback, $(nproc) cores shared by client and server; ${duration}s each"
for limit in default off; do
  if [ "$limit" = off ]; then export WALLET_ORDERS_LOG_LIMIT=off; fi
  start "flood-$limit"
  before=$(size)
  wrk -t1 -c8 -d"${duration}s" -s "$work/flood.lua" "http://127.0.0.1:$port" >"$work/flood-$limit.txt" &
  flood=$!
  wrk -t1 -c4 -d"${duration}s" --latency -H "Authorization: AppleOrder $token" \
    "http://127.0.0.1:$port/v1/orders/$type/$id" >"$work/fetch-$limit.txt"
  wait $flood
  after=$(size)
  # One second refills one request of the flooder's address at 60/min: a device posting now is heard.
  sleep 2
  marker="after-the-flood-$RANDOM$RANDOM"
  curl -sf -o /dev/null -X POST "http://127.0.0.1:$port/v1/log" -H 'Content-Type: application/json' \
    -d "{\"logs\": [\"$marker\"]}" || true
  status=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/v1/log" -d '{"logs": ["one more"]}')
  metrics=$(curl -sf "http://127.0.0.1:$port/metrics")
  stop
  shown=$("$bin" admin logs --database "$db" --contains "$marker" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["logs"]))')
  echo "log rate limit: $limit ($( [ "$limit" = off ] && echo "WALLET_ORDERS_LOG_LIMIT=off" || echo "60/min per address"))"
  echo "  flood: $(requests "$work/flood-$limit.txt") requests of ~250 KB ($(rps "$work/flood-$limit.txt") req/s), non-2xx $(non2xx "$work/flood-$limit.txt")"
  echo "  database: $(mb "$before") before, $(mb "$after") after: grew $(mb $((after - before)))"
  echo "$metrics" | grep -E '^wallet_orders_device_log_(bytes|messages_total|dropped_total|requests_dropped_total)' \
    | grep -v ' 0$' | sed 's/^/  /'
  echo "  order fetch meanwhile: $(requests "$work/fetch-$limit.txt") requests, $(rps "$work/fetch-$limit.txt") req/s, p99 $(p99 "$work/fetch-$limit.txt"), non-2xx $(non2xx "$work/fetch-$limit.txt")"
  echo "  a log entry posted afterwards: shown by admin logs: $shown; the log endpoint still answers $status"
  unset WALLET_ORDERS_LOG_LIMIT
done

# 1,000 connections held: 500 idle, 500 trickling a header byte a second (cut off after the header timeout, 10 s,
# and opened again), while wrk fetches the order. All of them come from 127.0.0.1, wrk's too: the cap on
# connections per client is off here, or it would close all but 64 of them (and wrk's with them).
WALLET_ORDERS_MAX_CONNECTIONS_PER_CLIENT=0 start slow
cat >"$work/slow.py" <<'PY'
import socket, sys, time
port, count, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
def connect():
    s = socket.create_connection(("127.0.0.1", port)); s.setblocking(False); return s
idle = [connect() for _ in range(count // 2)]
trickling = [connect() for _ in range(count - count // 2)]
cut = reopened = 0
end = time.time() + seconds
while time.time() < end:
    for i, s in enumerate(trickling):
        try:
            s.send(b"G")
        except OSError:
            cut += 1; s.close(); trickling[i] = connect(); reopened += 1
    time.sleep(1)
open_idle = 0
for s in idle:
    try:
        open_idle += s.recv(1) == b"" and 0 or 1
    except BlockingIOError:
        open_idle += 1
    except OSError:
        pass
print(f"{len(idle)} idle (still open: {open_idle}), {len(trickling)} trickling: {cut} cut off by the server and opened again")
PY
python3 "$work/slow.py" $port 1000 $((duration + 5)) >"$work/slow.txt" &
slow=$!
sleep 3
wrk -t1 -c4 -d"${duration}s" --latency -H "Authorization: AppleOrder $token" \
  "http://127.0.0.1:$port/v1/orders/$type/$id" >"$work/fetch-slow.txt"
wait $slow
closes=$(curl -sf "http://127.0.0.1:$port/metrics" | grep '^wallet_orders_slow_client_closes_total' | sed 's/^/  /' || true)
stop
echo "1,000 connections held open: $(cat "$work/slow.txt")"
[ -n "$closes" ] && echo "$closes"
echo "  order fetch meanwhile: $(requests "$work/fetch-slow.txt") requests, $(rps "$work/fetch-slow.txt") req/s, p99 $(p99 "$work/fetch-slow.txt"), non-2xx $(non2xx "$work/fetch-slow.txt")"
