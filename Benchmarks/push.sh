#!/usr/bin/env bash
# Pushes per second to the local APNs over one HTTP/2 connection: our libcurl transport, the whole outbox path,
# and h2load (Debian's nghttp2-client) posting the same requests to the same server, in one run.
# Usage: Benchmarks/push.sh [PUSHES]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v h2load >/dev/null || { echo "needs h2load (apt-get install nghttp2-client)"; exit 1; }
swift build -c release --product wallet-orders >/dev/null
swift build -c release --product push-benchmark >/dev/null
work=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
.build/release/wallet-orders keys dev --out "$work/keys" >/dev/null
port=22197
.build/release/wallet-orders apns-sandbox --quiet --port $port --keys "$work/keys" >"$work/apns.log" 2>&1 &
pid=$!
for _ in $(seq 50); do grep -q "listening" "$work/apns.log" && break; sleep 0.1; done
.build/release/push-benchmark $port "$work/keys" "${1:-20000}"
