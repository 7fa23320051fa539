#!/usr/bin/env bash
# Pushes per second over one HTTP/2 connection, in one run: h2load (Debian's nghttp2-client) and our libcurl
# transport against nghttpd (Debian's nghttp2-server, TLS, answering 200 with an empty body to every
# POST /3/device/<token>, as APNs does), then against the local APNs (`wallet-orders apns-sandbox`), with the
# ratios; then the whole outbox path against the local APNs.
# Usage: Benchmarks/push.sh [PUSHES]; STREAMS=N sets the concurrent streams (100 by default).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v h2load >/dev/null || { echo "needs h2load (apt-get install nghttp2-client)"; exit 1; }
command -v nghttpd >/dev/null || { echo "needs nghttpd (apt-get install nghttp2-server)"; exit 1; }
pushes=${1:-20000}
swift build -c release --product wallet-orders >/dev/null
swift build -c release --product push-benchmark >/dev/null
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

.build/release/wallet-orders keys dev --out "$work/keys" >/dev/null
apns_port=22197
.build/release/wallet-orders apns-sandbox --quiet --port $apns_port --keys "$work/keys" >"$work/apns.log" 2>&1 &
pids+=($!)

# nghttpd serves files: one empty file per device token makes every push a 200 with no body.
nghttpd_port=22198
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=127.0.0.1 \
  -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" -keyout "$work/nghttpd.key" -out "$work/nghttpd.pem" 2>/dev/null
mkdir -p "$work/htdocs/3/device"
seq 0 $((pushes - 1)) | awk '{ printf "%064x\n", $1 }' | (cd "$work/htdocs/3/device" && xargs touch)
nghttpd -d "$work/htdocs" $nghttpd_port "$work/nghttpd.key" "$work/nghttpd.pem" >"$work/nghttpd.log" 2>&1 &
pids+=($!)

for _ in $(seq 50); do grep -q "listening" "$work/apns.log" && break; sleep 0.1; done
.build/release/push-benchmark $apns_port "$work/keys" "$pushes" $nghttpd_port "$work/nghttpd.pem"
