#!/usr/bin/env bash
# Issue 31, part 2: `pg_terminate_backend` on every connection of two `serve` instances, every INTERVAL seconds for
# SECONDS seconds, while each instance takes merchant writes one after another (each on an order of its own, so the
# two never race for one) and a device is registered for the first order. Counted: the writes' answers (200, 503,
# anything else, none within 10 s) and the slowest; then, after the loop, that both instances write again, each holds a
# `LISTEN` connection again, the device gets a push for a write, the outbox drains, and both stop on SIGTERM.
# PostgresOutageTests runs the same for 8 s in `make test`.
#
# Usage: Benchmarks/kill-connections.sh [SECONDS (60)] [INTERVAL (0.3)]
# Settings: BUILD=debug (release by default). Needs curl, python3 and PostgreSQL's server (Debian's postgresql); run
# as root (the cluster runs as postgres).
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib/postgres.sh
seconds=${1:-60}
interval=${2:-0.3}
build=${BUILD:-release}
swift build -c "$build" --product wallet-orders >/dev/null
bin=$PWD/.build/$build

work=$(mktemp -d "${TMPDIR:-/tmp}/wo-pg-kills.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  pg_stop immediate
  [ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT

# A durable cluster with PostgreSQL's defaults.
pg_start --database orders --in "$work"

"$bin/wallet-orders" keys dev --out "$work/keys" >/dev/null
set -a; . "$work/keys/dev.env"; set +a
"$bin/wallet-orders" apns-sandbox --quiet --port 22241 --keys "$work/keys" >"$work/apns.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q "WALLET_ORDERS_APNS_CA" "$work/apns.log" && break; sleep 0.1; done
export $(grep -o 'WALLET_ORDERS_APNS_ENVIRONMENT=[^ ]*' "$work/apns.log") $(grep -o 'WALLET_ORDERS_APNS_CA=[^ ]*' "$work/apns.log")
export WALLET_ORDERS_DATABASE="$PG_URL" \
  WALLET_ORDERS_MERCHANT_KEY=merchant-key-for-the-kill-loop WALLET_ORDERS_PUBLIC_URL=https://orders.example.com \
  WALLET_ORDERS_TEMPLATE=OrderTemplates/sample WALLET_ORDERS_MERCHANT_LIMIT=off
servers=()
for port in 18211 18212; do
  "$bin/wallet-orders" serve --port $port >"$work/serve-$port.log" 2>&1 &
  pids+=($!); servers+=($!)
  for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
done

echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $build build, $(nproc) cores shared, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "every connection of two instances killed every $interval s for $seconds s under merchant writes"
python3 - "$WALLET_ORDERS_MERCHANT_KEY" "$seconds" "$interval" "$PG_BIN/psql" "$PG_PORT" "$work" <<'PY'
import http.client, json, subprocess, sys, threading, time
key, seconds, interval, psql, pgport, work = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
merchant = {"Authorization": f"Bearer {key}"}
body = json.load(open("Examples/order.json"))
for field in ["createdAt", "updatedAt", "merchant", "orderIdentifier", "orderTypeIdentifier"]: body.pop(field, None)

def send(port, method, path, payload=None, headers=merchant, content="application/json", timeout=10):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, None if payload is None else json.dumps(payload),
                           {**headers, "Content-Type": content})
        answer = connection.getresponse()
        return answer.status, answer.read()
    except (TimeoutError, OSError):
        return None, b""
    finally:
        connection.close()

orders = []
for port in (18211, 18212):
    status, answer = send(port, "POST", "/api/v1/orders", body)
    details = json.loads(answer)["orderDetails"]
    orders.append((details["orderTypeIdentifier"], details["orderIdentifier"], details["authenticationToken"]))
kind, first, token = orders[0]
status, _ = send(18212, "POST", f"/v1/devices/d1/registrations/{kind}/{first}", {"pushToken": "dd01"},
                 {"Authorization": f"AppleOrder {token}"})
assert status in (200, 201), status

end = time.monotonic() + seconds
answers = {18211: [], 18212: []}
def write(port, order):
    number = 0
    while time.monotonic() < end:
        number += 1
        started = time.monotonic()
        status, answer = send(port, "PATCH", f"/api/v1/orders/{order[0]}/{order[1]}", {"orderNumber": f"K-{number}"},
                              content="application/merge-patch+json")
        answers[port].append((status, time.monotonic() - started, answer[:200]))
writers = [threading.Thread(target=write, args=(port, order)) for port, order in zip((18211, 18212), orders)]
for writer in writers: writer.start()
killed = rounds = 0
while time.monotonic() < end:
    output = subprocess.run([psql, "-X", "-q", "-A", "-t", "-h", "127.0.0.1", "-p", pgport, "-U", "postgres", "-c",
                             "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                             "WHERE datname = 'orders' AND pid <> pg_backend_pid()"], capture_output=True, text=True)
    killed += int(output.stdout.strip() or 0)
    rounds += 1
    time.sleep(interval)
for writer in writers: writer.join()
print(f"kills: {rounds} rounds, {killed} connections")
everything = [a for port in answers for a in answers[port]]
for port in answers:
    statuses = {}
    for status, _, _ in answers[port]: statuses[status] = statuses.get(status, 0) + 1
    slowest = max(t for _, t, _ in answers[port])
    print(f"  instance {port}: writes {sum(statuses.values())}: " +
          ", ".join(f"{count} {'no answer' if status is None else status}" for status, count in sorted(statuses.items(), key=lambda s: str(s[0]))) +
          f"; slowest {slowest:.3f} s")
others = [a for a in everything if a[0] not in (200, 503)]
refused = [a for a in everything if a[0] == 503]
print(f"  answers other than 200 or 503: {len(others)}" + (f" (first: {others[0]})" if others else ""))
print(f"  503 bodies naming the database: {sum(b'database' in a[2] for a in refused)} of {len(refused)}")

# After: each instance writes again, each listens again, the device hears of a write, the outbox drains.
for port, order in zip((18211, 18212), orders):
    started = time.monotonic()
    while send(port, "PATCH", f"/api/v1/orders/{order[0]}/{order[1]}", {"orderNumber": "after"},
               content="application/merge-patch+json")[0] != 200 and time.monotonic() - started < 30:
        time.sleep(0.1)
    print(f"  after: instance {port} wrote again within {time.monotonic() - started:.2f} s")
def pg(sql):
    return subprocess.run([psql, "-X", "-q", "-A", "-t", "-h", "127.0.0.1", "-p", pgport, "-U", "postgres", "-d", "orders",
                           "-c", sql], capture_output=True, text=True).stdout.strip()
started = time.monotonic()
while pg("SELECT count(*) FROM pg_stat_activity WHERE datname = 'orders' AND query LIKE 'LISTEN%' AND state = 'idle'") != "2" \
        and time.monotonic() - started < 30:
    time.sleep(0.1)
listening = pg("SELECT count(*) FROM pg_stat_activity WHERE datname = 'orders' AND query LIKE 'LISTEN%'")
print(f"  after: LISTEN connections {listening} within {time.monotonic() - started:.2f} s")
before = int(pg("SELECT count(*) FROM push_outbox WHERE push_token = 'dd01' AND status = 'delivered'"))
send(18211, "PATCH", f"/api/v1/orders/{kind}/{first}", {"orderNumber": "heard"}, content="application/merge-patch+json")
started = time.monotonic()
while (int(pg("SELECT count(*) FROM push_outbox WHERE status IN ('pending', 'sending')")) > 0
       or int(pg("SELECT count(*) FROM push_outbox WHERE push_token = 'dd01' AND status = 'delivered'")) <= before) \
        and time.monotonic() - started < 30:
    time.sleep(0.1)
waited = time.monotonic() - started
outbox = pg("SELECT coalesce(string_agg(status || ' ' || n, ', '), 'empty') "
            "FROM (SELECT status, count(*) AS n FROM push_outbox GROUP BY status) s")
print(f"  after: the device's push delivered and the outbox empty within {waited:.2f} s; outbox now: {outbox}")
PY
for port in 18211 18212; do
  echo "  instance $port: calls given up by the watch (a query lost with its connection, or no connection within 5 s):" \
    "$(grep -c 'gave up a database call' "$work/serve-$port.log" || true)"
done
for pid in "${servers[@]}"; do
  kill -TERM "$pid"
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then echo "  serve $pid still running 10 s after SIGTERM"; else echo "  serve $pid stopped on SIGTERM"; fi
done
