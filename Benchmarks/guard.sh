#!/usr/bin/env bash
# The guard of the hot paths: two commits built for release and measured in one sitting, taking turns (BASE HEAD
# BASE HEAD …), on the device fetch, the listing at ORDERS orders, registrations, merchant updates and the push path
# (one update to an order PUSHES devices hold, until APNs has answered every push; the median of three). Prints each
# figure, HEAD/BASE for each round and a verdict: a path more than 10% worse in every round fails, and so does the
# script.
# Run it before a change to a hot path lands, and quote what it prints in the change's note.
#
# Usage: Benchmarks/guard.sh BASE [HEAD (HEAD)]
# Settings: ROUNDS (2), DURATION (seconds per wrk run, 8), ORDERS (200000), DEVICES (40000), PER_DEVICE (5),
# PUSHES (20000), UPDATES (updates timed on the push path each round, the median kept: 3), ONLY=push (the push path
# alone, to look at it more rounds), GUARD_CACHE (/var/tmp/wallet-orders-guard: one worktree where each commit is built in turn, so a
# second build is incremental, and the binaries and seeded databases of each commit, kept for the next run).
#
# Each commit serves a database seeded by its own build (the schema is its own), a fresh copy each round. The push
# path goes to nghttpd (Debian's nghttp2-server), which answers every POST /3/device/<token> with 200 as APNs does.
# Per-address rate limits are off (wrk stands for many devices from one address), and so is the cap on devices per order.
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in wrk curl nghttpd openssl python3 sqlite3 git; do
  command -v "$tool" >/dev/null || {
    echo "needs $tool (apt-get install wrk curl nghttp2-server openssl python3 sqlite3 git)"
    exit 1
  }
done
base_rev=${1:?usage: Benchmarks/guard.sh BASE [HEAD]}
head_rev=${2:-HEAD}
base=$(git rev-parse --short=10 "$base_rev^{commit}")
head=$(git rev-parse --short=10 "$head_rev^{commit}")
rounds=${ROUNDS:-2}
duration=${DURATION:-8}
orders=${ORDERS:-200000}
devices=${DEVICES:-40000}
per_device=${PER_DEVICE:-5}
pushes=${PUSHES:-20000}
updates=${UPDATES:-3}
only=${ONLY:-}
cache=${GUARD_CACHE:-/var/tmp/wallet-orders-guard}
mkdir -p "$cache/bin" "$cache/seed"
repo=$(pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/wo-guard.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Builds `commit`, unless its binaries are kept already: here when it is this checkout's commit with nothing
# changed, otherwise in the shared worktree.
build() {
  local commit=$1 out="$cache/bin/$1" tree="$cache/tree"
  [ -x "$out/wallet-orders" ] && [ -x "$out/scale-benchmark" ] && return
  if [ "$(git rev-parse --short=10 HEAD)" = "$commit" ] && [ -z "$(git status --porcelain --untracked-files=no)" ]; then
    tree=$repo
  else
    if [ ! -d "$tree" ]; then git worktree add -q --detach "$tree" "$commit"; fi
    git -C "$tree" checkout -q --detach "$commit"
  fi
  echo "building $commit for release in $tree (a first build there takes about 20 minutes)"
  # SwiftPM's warnings about a dependency's files say nothing of ours.
  (cd "$tree" && swift build -c release --product wallet-orders >/dev/null 2> >(grep -v "unhandled\|CMakeLists" >&2) &&
    swift build -c release --product scale-benchmark >/dev/null 2> >(grep -v "unhandled\|CMakeLists" >&2))
  rm -rf "$out.partial" && mkdir -p "$out.partial"
  cp -r "$tree/.build/release/wallet-orders" "$tree/.build/release/scale-benchmark" "$tree/.build/release/"*.resources \
    "$out.partial/"
  rm -rf "$out" && mv "$out.partial" "$out"
}

# Seeds ORDERS orders and DEVICES × PER_DEVICE registrations with `commit`'s own build, unless kept already.
seed() {
  local commit=$1 out="$cache/seed/$1-$orders-$devices-$per_device"
  [ -f "$out/done" ] && return
  rm -rf "$out" && mkdir -p "$out/data"
  echo "seeding $orders orders and $((devices * per_device)) registrations for $commit"
  "$cache/bin/$commit/wallet-orders" keys dev --out "$out/keys" >/dev/null
  (set -a; . "$out/keys/dev.env"; set +a
    "$cache/bin/$commit/scale-benchmark" "$out/data/orders.sqlite" "$orders" "$devices" "$per_device" \
      "$WALLET_ORDERS_ORDER_TYPE" >/dev/null)
  sqlite3 "$out/data/orders.sqlite" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
  touch "$out/done"
}

git worktree prune
for commit in "$base" "$head"; do build "$commit"; done
for commit in "$base" "$head"; do seed "$commit"; done

# The APNs stand-in: nghttpd serves files, so one empty file per device token makes every push a 200.
nghttpd_port=22199
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=127.0.0.1 \
  -addext "subjectAltName=IP:127.0.0.1" -keyout "$work/apns.key" -out "$work/apns.pem" 2>/dev/null
mkdir -p "$work/htdocs/3/device"
seq 0 $((pushes - 1)) | awk '{ printf "%064x\n", $1 }' | (cd "$work/htdocs/3/device" && xargs touch)
nghttpd -d "$work/htdocs" $nghttpd_port "$work/apns.key" "$work/apns.pem" >"$work/nghttpd.log" 2>&1 &
pids+=($!)

port=18093
url="http://127.0.0.1:$port"
key=merchant-key-for-the-guard
server=""
# Serves a fresh copy of `commit`'s seeded database; with `push`, its pushes go to the stand-in.
serve() {
  local commit=$1 push=${2:-} seeded="$cache/seed/$1-$orders-$devices-$per_device"
  rm -rf "$work/db" && mkdir -p "$work/db"
  cp "$seeded/data/orders.sqlite" "$work/db/orders.sqlite"
  sync
  (
    set -a; . "$seeded/keys/dev.env"; set +a
    if [ -n "$push" ]; then
      export WALLET_ORDERS_APNS_ENVIRONMENT=https://127.0.0.1:$nghttpd_port WALLET_ORDERS_APNS_CA="$work/apns.pem"
    else
      export WALLET_ORDERS_APNS_KEY=
    fi
    WALLET_ORDERS_DATABASE="$work/db/orders.sqlite" WALLET_ORDERS_MERCHANT_KEY=$key \
      WALLET_ORDERS_PUBLIC_URL=https://orders.example.com WALLET_ORDERS_TEMPLATE=OrderTemplates/sample \
      WALLET_ORDERS_LISTING_LIMIT=off WALLET_ORDERS_MERCHANT_LIMIT=off WALLET_ORDERS_AUTH_FAILURE_LIMIT=off \
      WALLET_ORDERS_MAX_DEVICES_PER_ORDER=0 exec "$cache/bin/$commit/wallet-orders" serve --port $port
  ) >"$work/serve.log" 2>&1 &
  server=$!
  pids+=($server)
  for _ in $(seq 600); do curl -sf "$url/healthz" >/dev/null && return; sleep 0.1; done
  echo "the server of $commit did not start:"; tail -20 "$work/serve.log"; exit 1
}
stop() { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; server=""; }

rps() { awk '/Requests\/sec/ {print $2}' "$work/$1.txt"; }
p99() { # in milliseconds
  awk '/ 99%/ { v = $2; if (v ~ /us$/) v = v / 1000; else if (v ~ /ms$/) v = v + 0; else if (v ~ /s$/) v = v * 1000;
    print v }' "$work/$1.txt"
}
run() { # name script connections
  wrk -t2 -c"$3" -d"${duration}s" --latency -s "Benchmarks/wrk/$2.lua" "$url" >"$work/$1.txt"
}
delivered() {
  curl -sf "$url/metrics" | awk '/^wallet_orders_push_attempts_total\{.*outcome="delivered"/ {s += $NF} END {print s + 0}'
}

results="$work/results"
: >"$results"
for round in $(seq "$rounds"); do
  for commit in "$base" "$head"; do
    echo "round $round: $commit"
    seeded="$cache/seed/$commit-$orders-$devices-$per_device"
    type=$(. "$seeded/keys/dev.env" && echo "$WALLET_ORDERS_ORDER_TYPE")
    export ORDERS=$orders DEVICES=$devices FETCHED=1000 ORDER_TYPE=$type MERCHANT_KEY=$key
    if [ "$only" != push ]; then
      serve "$commit"
      # The first fetch of an order signs its package: the measured ones are signed and cached first.
      wrk -t2 -c64 -d3s -s Benchmarks/wrk/fetch.lua "$url" >/dev/null
      run fetch fetch 64
      wrk -t2 -c8 -d2s -s Benchmarks/wrk/listing.lua "$url" >/dev/null
      run listing listing 8
      run register register 8
      run update update 8
      stop
    fi
    # The push path: PUSHES devices register for one order, one merchant update, then the time until APNs answered
    # every push.
    serve "$commit" push
    python3 - "$url" "$type" "$pushes" <<'PY'
import http.client, json, sys, threading
url, kind, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
host, port = url.removeprefix("http://").split(":")
failures = []
def register(first, step):
    connection = http.client.HTTPConnection(host, int(port))
    for n in range(first, count, step):
        connection.request("POST", f"/v1/devices/guard{n}/registrations/{kind}/o1",
            body=json.dumps({"pushToken": f"{n:064x}"}),
            headers={"Authorization": "AppleOrder bench-token-1-0123456789", "Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        if response.status not in (200, 201):
            failures.append(f"registration {n}: {response.status}")
            return
threads = [threading.Thread(target=register, args=(i, 4)) for i in range(4)]
for t in threads: t.start()
for t in threads: t.join()
sys.exit("; ".join(failures) if failures else 0)
PY
    # UPDATES updates in turn, each measured from its PATCH until APNs answered all its pushes; the median is kept,
    # as one log sync that takes long halves a single figure.
    rates=()
    for update in $(seq "$updates"); do
      before=$(delivered)
      start=$(date +%s.%N)
      curl -sf -X PATCH "$url/api/v1/orders/$type/o1" -H "Authorization: Bearer $key" \
        -H "Content-Type: application/merge-patch+json" -d "{\"orderNumber\":\"guard-$update\"}" >/dev/null
      deadline=$(( $(date +%s) + 120 ))
      while [ $(( $(delivered) - before )) -lt "$pushes" ]; do
        [ "$(date +%s)" -lt $deadline ] || { echo "pushes not all delivered within 120 s"; break; }
        sleep 0.02
      done
      rates+=("$(python3 -c "import sys; print(f'{int(sys.argv[1]) / (float(sys.argv[3]) - float(sys.argv[2])):.0f}')" \
        "$(( $(delivered) - before ))" "$start" "$(date +%s.%N)")")
    done
    push_rate=$(printf '%s\n' "${rates[@]}" | sort -n | sed -n "$(( (updates + 1) / 2 ))p")
    echo "  pushes/s of each update: ${rates[*]}"
    stop
    if [ "$only" != push ]; then
      printf '%s %s fetch %s\n%s %s listing %s\n%s %s listing_p99 %s\n%s %s register %s\n%s %s update %s\n' \
        "$round" "$commit" "$(rps fetch)" "$round" "$commit" "$(rps listing)" "$round" "$commit" "$(p99 listing)" \
        "$round" "$commit" "$(rps register)" "$round" "$commit" "$(rps update)" >>"$results"
    fi
    printf '%s %s push %s\n' "$round" "$commit" "$push_rate" >>"$results"
  done
done

echo
echo "guard: BASE $base, HEAD $head; $orders orders, $((devices * per_device)) registrations (SQLite), $rounds rounds" \
  "taking turns, wrk ${duration}s each; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results" "$base" "$head" "$rounds" <<'PY'
import sys
path, base, head, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
figures = {}
for line in open(path):
    round, commit, name, value = line.split()
    figures[(int(round), commit, name)] = float(value)
paths = [("fetch", "order fetch, cache warm (req/s, -c64)", True), ("listing", "listing (req/s, -c8)", True),
         ("listing_p99", "listing p99 (ms)", False), ("register", "registrations (req/s)", True),
         ("update", "merchant updates (req/s)", True), ("push", "update -> pushes delivered (/s)", True)]
failed = []
print(f"  {'path':<38} {'BASE':>20} {'HEAD':>20} {'HEAD/BASE':>16}  verdict")
for name, label, higher in paths:
    if not any(key[2] == name for key in figures):
        continue
    b = [figures.get((r, base, name), 0) for r in range(1, rounds + 1)]
    h = [figures.get((r, head, name), 0) for r in range(1, rounds + 1)]
    # Each round's ratio, written so that above 1 is better: HEAD/BASE for rates, BASE/HEAD for latencies.
    ratios = [(y / x if higher else x / y) if x > 0 and y > 0 else 0 for x, y in zip(b, h)]
    worse = all(r < 0.9 for r in ratios)
    if worse: failed.append(label)
    show = lambda values: " ".join(f"{v:,.0f}" if v >= 100 else f"{v:.2f}" for v in values)
    print(f"  {label:<38} {show(b):>20} {show(h):>20} {' '.join(f'{r:.2f}' for r in ratios):>16}  "
          f"{'FAIL: more than 10% worse in every round' if worse else 'ok'}")
print("  (ratios above 1 are better for HEAD; for the p99 the ratio is BASE/HEAD)")
if failed:
    print("guard failed: " + ", ".join(failed))
    sys.exit(1)
print("guard passed")
PY
