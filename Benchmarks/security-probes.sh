#!/usr/bin/env bash
# Issue 29's four findings of medium severity and issue 39's, probed again as the outside tests probed them: the real
# server with an order type configured (development keys), SQLite, on loopback. Prints each probe's answers.
#   1. The admin key on /playground, with the playground off (the default) and on: what the page's key can write.
#   2. 1,500 wrong keys each on /admin (Basic), /metrics and /api/v1/orders (Bearer), on one connection each.
#   3. 3,000 made-up devices registered for one order with its token; the pushes the next update queues.
#   4. 4,200 idle sockets from one address, then one normal request from it and one from another address.
#   5. (issue 39, H1 and L2) signed AfterShip requests whose `ts` is 2^63-1 and -2^63, each sent twice, then a
#      merchant write that gives an order their tracking number, and an event dated 9999-12-31 before a real one:
#      what each answers, and whether the server is still up.
#   6. (issue 39) a merchant key made with the command line beside the running server, used at once; Last-Modified
#      against Date on a fetch right after an update.
# Parts 7 to 13 probe issue 39's other findings and print a verdict for each, `PASS` or `FAIL` with what was answered
# (Benchmarks/security-probes.py holds them), and the tally at the end:
#   7. (M1) 100,000 tracking events waiting for one sender, half `received`, then 2,000 more: refused and not kept.
#   8. (L1) 8 PATCHes of 150 members with 30 KB names: the history stored, the merchant's storage, the order's page.
#   9. (L3) a suspended merchant's partners; a partner unlinked, given a new secret, removed, by the operator's API.
#  10. (L4, L5) HEAD on a one-time link; near-miss link paths, with traces sent to a collector that keeps raw bytes.
#  11. (L6, L7, L8, the empty patch) special-purpose webhook addresses; the default merchant's PUT and PATCH of
#      another merchant's order; the admin key on the package download; `{}` as a merge patch.
#  12. (L9) device log text and an order number with escape sequences, through `admin logs` and `admin orders`.
#  13. (L10, and L1 again) NUL in JSON and %00 in queries and paths, on SQLite, then on a throwaway PostgreSQL
#      cluster when the script can start one (as root, with PostgreSQL installed), where L1's case runs again.
# Usage: Benchmarks/security-probes.sh [BUILD]   (BUILD: debug, the default, or release)
#        BIN=PATH Benchmarks/security-probes.sh      (probe that wallet-orders binary, an older build's, unbuilt)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-debug}
for tool in curl python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install curl python3)"; exit 1; }
done
if [ -n "${BIN:-}" ]; then
  bin=$(realpath "$BIN")
else
  swift build -c "$build" --product wallet-orders >/dev/null
  bin=$PWD/.build/$build/wallet-orders
fi
for name in $(env | sed -n 's/^\(WALLET_ORDERS_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$name"; done

work=$(mktemp -d)
chmod 755 "$work"  # the postgres user reads its cluster folder in it
server= collector= pgdata= pgbin=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  [ -n "$collector" ] && kill "$collector" 2>/dev/null
  if [ -n "$pgdata" ]; then runuser -u postgres -- "$pgbin/pg_ctl" -D "$pgdata" -m fast -w stop >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
port=18290
base=http://127.0.0.1:$port
"$bin" keys dev --out "$work/keys" >/dev/null
set -a
# shellcheck disable=SC1091
. "$work/keys/dev.env"
set +a
export WALLET_ORDERS_TEMPLATE=$PWD/OrderTemplates/sample
export WALLET_ORDERS_MERCHANT_KEY=$(openssl rand -hex 16)
export WALLET_ORDERS_ADMIN_KEY=$(openssl rand -hex 16)
export WALLET_ORDERS_OPERATOR_KEY=$(openssl rand -hex 16)
# Pushes go nowhere: the probes count what is queued, not what is sent.
export WALLET_ORDERS_APNS_ENVIRONMENT=https://127.0.0.1:9

start() {
  "$bin" serve --port $port --database "$work/data/orders.sqlite" >>"$work/serve.log" 2>&1 &
  server=$!
  for _ in $(seq 300); do curl -sf "$base/healthz" >/dev/null && return; sleep 0.1; done
  echo "serve did not start:"; cat "$work/serve.log"; exit 1
}
stop() { kill "$server" 2>/dev/null || echo "   (the server had stopped by itself)"; wait "$server" 2>/dev/null || true; server=; }

echo "1. The admin key and /playground"
start
echo "   playground off (default): GET /playground with the admin key -> $(curl -s -o /dev/null -w '%{http_code}' -u "admin:$WALLET_ORDERS_ADMIN_KEY" "$base/playground")"
shop=$(curl -s -X POST "$base/api/v1/orders" -H "Authorization: Bearer $WALLET_ORDERS_MERCHANT_KEY" \
  -H 'Content-Type: application/json' -d @Examples/order.json)
read -r type id token < <(python3 -c 'import json,sys; d=json.loads(sys.argv[1])["orderDetails"]; print(d["orderTypeIdentifier"], d["orderIdentifier"], d["authenticationToken"])' "$shop")
stop
WALLET_ORDERS_PLAYGROUND=true start
page_key=$(curl -s -u "admin:$WALLET_ORDERS_ADMIN_KEY" "$base/playground" | sed -n 's/.*name="playground-key" content="\([0-9a-f]*\)".*/\1/p')
created=$(curl -s -w ' %{http_code}' -X POST "$base/api/v1/orders" -H "Authorization: Bearer $page_key" \
  -H 'Content-Type: application/json' -d @Examples/order.json)
echo "   playground on: the page's key creates an order -> ${created##* }, identifier $(python3 -c 'import json,sys; print(json.loads(sys.argv[1].rsplit(" ",1)[0])["orderDetails"]["orderIdentifier"])' "$created")"
echo "   the page's key reads the shop's order $id -> $(curl -s -o /dev/null -w '%{http_code}' "$base/api/v1/orders/$type/$id" -H "Authorization: Bearer $page_key")"
echo "   the page's key patches the shop's order -> $(curl -s -o /dev/null -w '%{http_code}' -X PATCH "$base/api/v1/orders/$type/$id" -H "Authorization: Bearer $page_key" -H 'Content-Type: application/merge-patch+json' -d '{"status":"cancelled"}')"
echo "   the admin key on the merchant API -> $(curl -s -o /dev/null -w '%{http_code}' -X POST "$base/api/v1/orders" -H "Authorization: Bearer $WALLET_ORDERS_ADMIN_KEY" -H 'Content-Type: application/json' -d @Examples/order.json)"
stop

echo "2. 1,500 wrong keys on each door, one connection each"
start
python3 - "$port" <<'EOF'
import base64, http.client, os, sys, time
port = int(sys.argv[1])
doors = [
    ("/admin", lambda k: "Basic " + base64.b64encode(b"admin:" + k.encode()).decode()),
    ("/metrics", lambda k: "Bearer " + k),
    ("/api/v1/orders", lambda k: "Bearer " + k),
]
for path, header in doors:
    connection = http.client.HTTPConnection("127.0.0.1", port)
    statuses = {}
    first_429 = None
    started = time.monotonic()
    for n in range(1500):
        connection.request("GET", path, headers={"Authorization": header(os.urandom(16).hex())})
        response = connection.getresponse()
        response.read()
        statuses[response.status] = statuses.get(response.status, 0) + 1
        if response.status == 429 and first_429 is None:
            first_429 = n + 1
    elapsed = time.monotonic() - started
    print(f"   {path:16} {dict(sorted(statuses.items()))}, first 429 at guess {first_429}, {1500 / elapsed:.0f} guesses/s")
    connection.close()
EOF
stop

echo "3. 3,000 made-up devices for one order"
start
python3 - "$port" "$type" "$id" "$token" <<'EOF'
import http.client, json, os, sys
port, type_, id_, token = int(sys.argv[1]), *sys.argv[2:]
connection = http.client.HTTPConnection("127.0.0.1", port)
statuses = {}
retry_after = None
for n in range(3000):
    connection.request("POST", f"/v1/devices/device-{n}-{os.urandom(4).hex()}/registrations/{type_}/{id_}",
                       body=json.dumps({"pushToken": os.urandom(32).hex()}),
                       headers={"Authorization": f"AppleOrder {token}"})
    response = connection.getresponse()
    response.read()
    statuses[response.status] = statuses.get(response.status, 0) + 1
    retry_after = response.getheader("Retry-After") or retry_after
print(f"   registrations: {dict(sorted(statuses.items()))}, Retry-After {retry_after}")
EOF
refused=$(curl -s "$base/metrics" -H "Authorization: Bearer $WALLET_ORDERS_ADMIN_KEY" | sed -n 's/^wallet_orders_registrations_refused_total //p')
curl -s -o /dev/null -X PATCH "$base/api/v1/orders/$type/$id" -H "Authorization: Bearer $WALLET_ORDERS_MERCHANT_KEY" \
  -H 'Content-Type: application/merge-patch+json' -d '{"statusDescription":"probe"}'
echo "   wallet_orders_registrations_refused_total $refused"
stop
echo "   pushes the next update queued: $(sqlite3 "$work/data/orders.sqlite" "SELECT COUNT(*) FROM push_outbox WHERE order_identifier = '$id'")"

echo "4. 4,200 idle sockets from one address"
start
python3 - "$port" <<'EOF'
import http.client, resource, socket, sys, time
port = int(sys.argv[1])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 10000), hard))
held, refused = [], 0
for _ in range(4200):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        held.append(s)
    except OSError:
        refused += 1
time.sleep(1)
# The server closes what is over its cap: count the sockets still open.
open_ = 0
for s in held:
    s.setblocking(False)
    try:
        data = s.recv(1)
        if data != b"":
            open_ += 1
    except BlockingIOError:
        open_ += 1
    except OSError:
        pass
for source in ["127.0.0.1", "127.0.0.2"]:
    started = time.monotonic()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20, source_address=(source, 0))
        connection.request("GET", "/healthz")
        status = connection.getresponse().status
    except Exception as error:
        status = type(error).__name__
    print(f"   {len(held)} connected, {open_} still open after 1 s; GET /healthz from {source}: {status} in {time.monotonic() - started:.2f} s")
for s in held:
    s.close()
EOF
stop

echo "5. Signed AfterShip requests with absurd instants"
export WALLET_ORDERS_DATABASE=$work/data/orders.sqlite
"$bin" merchants add acme --name Acme >/dev/null
secret=$(openssl rand -hex 16)
echo -n "$secret" > "$work/aftership-secret"
"$bin" partners add acme-aftership --merchant acme --provider aftership --secret-file "$work/aftership-secret" >/dev/null
acme_key=$("$bin" merchants key create acme | head -1)
unset WALLET_ORDERS_DATABASE
start
python3 - "$port" "$secret" "$acme_key" <<'EOF'
import base64, hashlib, hmac, http.client, json, sys
port, secret, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def post(path, body, headers):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.read().decode()[:160]
    except Exception as error:
        return type(error).__name__, ""
def aftership(event_id, number, ts=None, checkpoint=None):
    tracking = {"tracking_number": number, "slug": "dhl", "tag": "InTransit", "checkpoints": []}
    if checkpoint:
        tracking["checkpoints"] = [{"created_at": checkpoint, "message": "probe"}]
    payload = {"event": "tracking_update", "event_id": event_id, "msg": tracking}
    if ts is not None:
        payload["ts"] = ts
    body = json.dumps(payload).encode()
    signature = base64.b64encode(hmac.new(secret.encode(), body, hashlib.sha256).digest()).decode()
    return post("/hooks/aftership/acme-aftership", body, {"aftership-hmac-sha256": signature, "Content-Type": "application/json"})
for ts in [9223372036854775807, -9223372036854775808]:
    for attempt in ["sent", "sent again"]:
        status, body = aftership(f"ts-{ts}", "PROBE-TS", ts=ts)
        print(f"   ts {ts} {attempt}: {status} {body}")
order = json.load(open("Examples/order.json"))
order["orderIdentifier"] = "probe-1"
for fulfillment in order.get("fulfillments", []):
    fulfillment["trackingNumber"] = "PROBE-TS"
status, body = post("/api/v1/orders", json.dumps(order).encode(), {"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
print(f"   a merchant write that adds the tracking number: {status}")
status, body = aftership("year-9999", "PROBE-TS", checkpoint="9999-12-31T00:00:00Z")
print(f"   an event dated 9999-12-31: {status} {body}")
status, body = aftership("real", "PROBE-TS", checkpoint="2026-11-27T10:00:00Z")
print(f"   a real event after it: {status} {body}")
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
connection.request("GET", "/healthz")
print(f"   the server afterwards: /healthz {connection.getresponse().status}")
EOF
stop

echo "6. A key made beside the running server; Last-Modified and Date"
start
fresh_key=$(WALLET_ORDERS_DATABASE="$work/data/orders.sqlite" "$bin" merchants key create acme | head -1)
echo "   the new key at once -> $(curl -s -o /dev/null -w '%{http_code}' "$base/api/v1/orders" -H "Authorization: Bearer $fresh_key")"
curl -s -o /dev/null -X PATCH "$base/api/v1/orders/$type/$id" -H "Authorization: Bearer $WALLET_ORDERS_MERCHANT_KEY" \
  -H 'Content-Type: application/merge-patch+json' -d '{"statusDescription":"probe again"}'
headers=$(curl -s -D - -o /dev/null "$base/v1/orders/$type/$id" -H "Authorization: AppleOrder $token")
python3 - "$headers" <<'EOF'
import sys
from email.utils import parsedate_to_datetime
fields = {line.split(":", 1)[0].lower(): line.split(":", 1)[1].strip() for line in sys.argv[1].splitlines() if ":" in line}
modified, date = parsedate_to_datetime(fields["last-modified"]), parsedate_to_datetime(fields["date"])
verdict = "ok" if modified <= date else "LATER THAN DATE"
print(f"   right after an update: Last-Modified {fields['last-modified']}, Date {fields['date']}: {verdict}")
EOF
stop

# Parts 7 to 13: verdicts. Each probe prints its lines and keeps them for the tally.
export BASE=$base MERCHANT_KEY=$WALLET_ORDERS_MERCHANT_KEY ACME_KEY=$acme_key ADMIN_KEY=$WALLET_ORDERS_ADMIN_KEY
export OPERATOR_KEY=$WALLET_ORDERS_OPERATOR_KEY ORDER_TYPE=$type
export STORE_QUERY="sqlite3 $work/data/orders.sqlite"
probe() { { python3 Benchmarks/security-probes.py "$@" 2>&1 || echo "   FAIL $1: the probe stopped (above)"; } | tee -a "$work/verdicts"; }

echo "7. (M1) Refused tracking events are not kept; the bound counts what is stored"
acme_id=$(sqlite3 "$work/data/orders.sqlite" "SELECT id FROM merchants WHERE slug = 'acme'")
sqlite3 "$work/data/orders.sqlite" "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99999)
  INSERT INTO tracking_events (source, event_id, tracking_number, body, state, received_at)
  SELECT 'merchant:$acme_id', 'filler-' || i, 'FILLER-' || i, CAST('{}' AS BLOB),
         CASE i % 2 WHEN 0 THEN 'received' ELSE 'pending' END, CAST(strftime('%s', 'now') AS INTEGER) FROM n"
start
probe events-bound "merchant:$acme_id"

echo "8. (L1) 8 PATCHes of 150 members with 30 KB names"
probe wide-history sqlite

echo "9. (L3) Partners of a suspended merchant; unlinking, a new secret, removing"
probe partners "$secret"
stop

echo "10. (L4, L5) HEAD on a one-time link; near-miss link paths and traces"
python3 Benchmarks/security-probes.py collector "$work/collector.port" "$work/collector.log" &
collector=$!
for _ in $(seq 100); do [ -s "$work/collector.port" ] && break; sleep 0.1; done
WALLET_ORDERS_TRACING_ENDPOINT=http://127.0.0.1:$(cat "$work/collector.port") OTEL_BSP_SCHEDULE_DELAY=200 start
probe links "$work/links.json"
stop  # stopping sends the last batch of spans
probe traces "$work/links.json" "$work/collector.log"
kill "$collector"; wait "$collector" 2>/dev/null || true; collector=

echo "11. (L6, L7, L8, the empty patch) Webhook addresses, another merchant's order, the package, {}"
start
probe webhook-addresses
probe writes

echo "12. (L9) Escape sequences through the admin command"
probe escapes-seed
stop
WALLET_ORDERS_DATABASE=$work/data/orders.sqlite probe escapes-check "$bin"

echo "13. (L10) NUL in JSON and %00 in queries and paths"
start
probe nul sqlite
stop
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  pgdata="$work/pg/data"; mkdir -p "$work/pg"; chown postgres "$work/pg"
  pgport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  runuser -u postgres -- "$pgbin/initdb" -D "$pgdata" -U postgres -A trust -E UTF8 >/dev/null
  runuser -u postgres -- "$pgbin/pg_ctl" -D "$pgdata" -l "$work/pg/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -c port=$pgport -c unix_socket_directories=$work/pg" start >/dev/null
  "$pgbin/psql" -h 127.0.0.1 -p "$pgport" -U postgres -qc "CREATE DATABASE orders"
  pg_url="postgres://postgres@127.0.0.1:$pgport/orders?sslmode=disable"
  WALLET_ORDERS_DATABASE=$pg_url "$bin" migrate >/dev/null
  WALLET_ORDERS_DATABASE=$pg_url "$bin" merchants add acme --name Acme >/dev/null
  ACME_KEY=$(WALLET_ORDERS_DATABASE=$pg_url "$bin" merchants key create acme | head -1)
  export ACME_KEY STORE_QUERY="$pgbin/psql -h 127.0.0.1 -p $pgport -U postgres -d orders -At -c"
  "$bin" serve --port $port --database "$pg_url" >>"$work/serve.log" 2>&1 &
  server=$!
  for _ in $(seq 300); do curl -sf "$base/healthz" >/dev/null && break; sleep 0.1; done
  echo "   (PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}'), a cluster of its own)"
  probe nul postgres
  probe wide-history postgres
  stop
else
  echo "   PostgreSQL skipped: the script starts a cluster only as root with PostgreSQL installed"
fi

echo "Verdicts: $(grep -c '^   PASS' "$work/verdicts" || true) PASS, $(grep -c '^   FAIL' "$work/verdicts" || true) FAIL"
