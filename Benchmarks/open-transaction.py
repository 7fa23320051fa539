#!/usr/bin/env python3
"""Drives Benchmarks/open-transaction.sh: phases of concurrent order updates with a device that lists its orders by
tag, an outbox drained from a backlog, and the tables' sizes; prints one block of figures per phase.

Usage: open-transaction.py BASE MERCHANT_KEY PSQL_URL PHASE_NAME SECONDS
Reads the watched orders (watched.json) and the orders with many devices (load.json) from the current folder."""
import http.client, json, subprocess, sys, threading, time
from urllib.parse import urlparse

base, key, psql_url, phase, seconds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
watched = json.load(open("watched.json"))
load_orders = json.load(open("load.json"))
host = urlparse(base)
merchant = {"Authorization": f"Bearer {key}"}


def request(conn, method, path, body=None, headers=None):
    headers = dict(headers or {})
    if body is not None:
        body = json.dumps(body).encode()
        headers["Content-Type"] = "application/merge-patch+json" if method == "PATCH" else "application/json"
    conn.request(method, path, body=body, headers=headers)
    answer = conn.getresponse()
    data = answer.read()
    return answer.status, (json.loads(data) if data and answer.getheader("Content-Type", "").startswith("application/json") else None)


def connect():
    return http.client.HTTPConnection(host.hostname, host.port, timeout=30)


def sql(query):
    return subprocess.run(["psql", "-X", "-q", "-A", "-t", "-d", psql_url, "-c", query],
                          check=True, capture_output=True, text=True).stdout.strip()


def sizes():
    rows = sql("SELECT relname, pg_total_relation_size(relid), n_live_tup, n_dead_tup FROM pg_stat_user_tables "
               "WHERE relname IN ('orders','order_versions','push_outbox','registrations','order_packages') ORDER BY relname")
    return {r.split("|")[0]: tuple(int(x) for x in r.split("|")[1:]) for r in rows.splitlines()}


lock = threading.Lock()
acked = {o["id"]: [] for o in watched}  # order → [(version, acknowledged at)]
stop = threading.Event()
counts = {"writes": 0, "write_errors": 0, "listings": 0, "listings_200": 0, "listed": 0, "repeated": 0,
          "missed": 0, "fetches": 0}
missed_examples = []


def writer(index):
    conn = connect()
    n = 0
    while not stop.is_set():
        order = watched[(index + 2 * n) % len(watched)]
        n += 1
        try:
            status, body = request(conn, "PATCH", f"/api/v1/orders/{order['type']}/{order['id']}",
                                   {"orderNumber": f"{phase}-{index}-{n}"}, merchant)
        except Exception:
            conn = connect(); status, body = 0, None
        with lock:
            if status == 200:
                acked[order["id"]].append((body["version"], time.monotonic()))
                counts["writes"] += 1
            else:
                counts["write_errors"] += 1


def device(tag):
    """Lists by tag as Wallet does, then asks the merchant API which version each listed order is at (what a fetch
    would get). An update acknowledged before a listing started, newer than what the device holds, must be listed."""
    conn = connect()
    known = {o["id"]: 0 for o in watched}
    for o in watched:
        _, body = request(conn, "GET", f"/api/v1/orders/{o['type']}/{o['id']}", headers=merchant)
        known[o["id"]] = body["version"]
    while not stop.is_set():
        started = time.monotonic()
        with lock:
            due = {oid: max(v for v, at in acks if at <= started) for oid, acks in acked.items()
                   if any(at <= started for v, at in acks)}
        status, body = request(conn, "GET", f"/v1/devices/watcher/registrations/{watched[0]['type']}"
                                            + (f"?ordersModifiedSince={tag}" if tag else ""))
        listed = set(body["orderIdentifiers"]) if status == 200 else set()
        with lock:
            counts["listings"] += 1
            counts["listings_200"] += status == 200
            counts["listed"] += len(listed)
            for oid, version in due.items():
                if version > known[oid] and oid not in listed:
                    counts["missed"] += 1
                    if len(missed_examples) < 5: missed_examples.append((oid, version, known[oid], tag))
        if status == 200:
            first_tag = bool(tag)
            tag = body["lastModified"]
            for oid in listed:
                order = next(o for o in watched if o["id"] == oid)
                _, fetched = request(conn, "GET", f"/api/v1/orders/{order['type']}/{oid}", headers=merchant)
                with lock:
                    counts["fetches"] += 1
                    # The first listing (no tag) names every order; a later one naming an order the device holds is a repeat.
                    if first_tag and fetched["version"] <= known[oid]: counts["repeated"] += 1
                known[oid] = max(known[oid], fetched["version"])
        time.sleep(0.2)


def drain():
    """Queues a push to every device of the load orders (one update each) and times the outbox back to empty."""
    conn = connect()
    before = int(sql("SELECT count(*) FROM push_outbox WHERE status = 'delivered'"))
    started = time.monotonic()
    for o in load_orders:
        status, _ = request(conn, "PATCH", f"/api/v1/orders/{o['type']}/{o['id']}", {"orderNumber": f"load-{time.time()}"}, merchant)
        if status != 200: print(f"  load update answered {status}", flush=True)
    queued = time.monotonic()
    while int(sql("SELECT count(*) FROM push_outbox WHERE status IN ('pending', 'sending')")) > 0:
        time.sleep(0.25)
    done = time.monotonic()
    delivered = int(sql("SELECT count(*) FROM push_outbox WHERE status = 'delivered'")) - before
    return delivered, queued - started, done - started


tag = ""
before = sizes()
threads = [threading.Thread(target=writer, args=(i,)) for i in range(2)]
checker = threading.Thread(target=device, args=(tag,))
for t in threads + [checker]: t.start()
phase_start = time.monotonic()
drains = []
horizon = ""
for fraction in (0.0, 0.6):
    while time.monotonic() - phase_start < seconds * fraction: time.sleep(1)
    if fraction: horizon = sql("SELECT pg_snapshot_xmin(pg_current_snapshot())::text || ' with the next at ' || pg_current_xact_id()::text")
    drains.append(drain())
while time.monotonic() - phase_start < seconds: time.sleep(1)
stop.set()
for t in threads + [checker]: t.join()
after = sizes()

print(f"{phase}: {seconds:.0f} s, {counts['writes']} updates of {len(watched)} watched orders acknowledged "
      f"({counts['write_errors']} not); 60% in, the oldest transaction running was {horizon}")
for n, (delivered, queued, took) in enumerate(drains):
    print(f"  outbox drain {n + 1}: {delivered} pushes delivered in {took:.1f} s after the first of {len(load_orders)} "
          f"updates ({queued:.1f} s to queue them all): {delivered / took:,.0f} pushes/s")
print(f"  device listings: {counts['listings']} ({counts['listings_200']} answered 200), orders listed {counts['listed']}, "
      f"of which repeated (no newer version than the device held) {counts['repeated']}; missed updates: {counts['missed']}"
      + (f" e.g. {missed_examples}" if missed_examples else ""))
for table in sorted(after):
    b, a = before.get(table, (0, 0, 0)), after[table]
    print(f"  {table:<15} {b[0] / 1048576:8.1f} MiB -> {a[0] / 1048576:8.1f} MiB   live {b[1]:>7} -> {a[1]:>7}   dead {b[2]:>7} -> {a[2]:>7}")
