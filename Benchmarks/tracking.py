#!/usr/bin/env python3
"""The client side of Benchmarks/tracking.sh: makes the orders and devices, posts the tracking events (phase A) and
the merchant PATCHes (phase B) from a few keep-alive connections, and watches /metrics until the pushes each phase
queued are delivered. Each step prints one JSON line; `report` turns them into the table.

  tracking.py setup  BASE TYPE MERCHANT_KEY ORDERS CONNECTIONS STATE
  tracking.py track  BASE PARTNER_KEY STATE EVENTS CONNECTIONS     (LAYOUT=spread|grouped in the environment)
  tracking.py patch  BASE TYPE MERCHANT_KEY STATE COUNT CONNECTIONS
  tracking.py report SETUP TRACK PATCH FACTS

Python 3 standard library only. The driver's own CPU time is reported, since it shares the machine's cores with
the server it measures.
"""
import datetime
import http.client
import json
import os
import re
import resource
import sys
import threading
import time
import urllib.parse

BATCH = 1_000  # events per request: the API's maximum
CARRIER = "ParcelCo Express"
# Every status of the vocabulary, in the order a parcel's events walk through them. Each event also carries words of
# its own, so that every one of them changes the fulfillment (an event that changes nothing makes no version).
STATUSES = [
    "info_received", "in_transit", "out_for_delivery", "failed_attempt", "exception", "available_for_pickup",
    "picked_up", "delivered", "returned_to_sender", "cancelled",
]
# What the merchant's own PATCHes set, in turn: Wallet's shipping statuses.
SHIPPING = ["processing", "onTheWay", "outForDelivery", "delivered", "issue", "onTheWay"]
START = datetime.datetime(2026, 11, 20, 8, 0, tzinfo=datetime.timezone.utc)


def rfc3339(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


TICKS = os.sysconf("SC_CLK_TCK")


def process_seconds(pid, children_too=False):
    """CPU seconds process `pid` used; with `children_too`, also those of its live children and of the children it
    waited for (a PostgreSQL cluster: the postmaster and its backends)."""
    def fields(p):
        with open(f"/proc/{p}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    try:
        own = fields(pid)
    except OSError:
        return 0.0
    ticks = int(own[11]) + int(own[12])
    if children_too:
        ticks += int(own[13]) + int(own[14])
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    child = fields(entry)
                except OSError:
                    continue
                if child[1] == str(pid):
                    ticks += int(child[11]) + int(child[12])
    return ticks / TICKS


def machine_seconds():
    """CPU seconds all cores spent busy, and in all, since boot."""
    with open("/proc/stat") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    idle = values[3] + values[4]
    return (sum(values[:8]) - idle) / TICKS, sum(values[:8]) / TICKS


class CPUWatch:
    """Where the machine's CPU went during a phase: the server, the database, the local APNs, this driver, and
    everything else (the machine is shared). WATCH_PIDS names them: `server=PID,apns=PID[,postgres=PID]`."""

    def __init__(self):
        self.pids = dict(item.split("=") for item in os.environ.get("WATCH_PIDS", "").split(",") if item)

    def read(self):
        used = {name: process_seconds(int(pid), children_too=(name == "postgres")) for name, pid in self.pids.items()}
        me = resource.getrusage(resource.RUSAGE_SELF)
        used["driver"] = me.ru_utime + me.ru_stime
        used["busy"], used["total"] = machine_seconds()
        return used

    def start(self):
        self.before = self.read()

    def stop(self):
        after = self.read()
        delta = {name: after[name] - self.before.get(name, 0) for name in after}
        delta["other"] = delta["busy"] - sum(v for k, v in delta.items() if k not in ("busy", "total"))
        return delta


class Client:
    """One keep-alive connection; reconnects once if the server closed it between requests."""

    def __init__(self, base):
        url = urllib.parse.urlsplit(base)
        self.host, self.port = url.hostname, url.port

    def request(self, method, path, body=None, headers=None):
        if not hasattr(self, "connection"):
            self.connection = http.client.HTTPConnection(self.host, self.port, timeout=600)
        data = json.dumps(body, separators=(",", ":")).encode() if body is not None else None
        for attempt in (1, 2):
            try:
                self.connection.request(method, path, body=data, headers=headers or {})
                response = self.connection.getresponse()
                return response.status, response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.connection.close()
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=600)
                if attempt == 2:
                    raise


def in_parallel(connections, base, items, work):
    """Runs work(client, item) for each item, in the items' order, from `connections` threads each with its own
    connection; answers the seconds it took."""
    lock = threading.Lock()
    position = iter(items)
    failures = []

    def worker():
        client = Client(base)
        while True:
            with lock:
                item = next(position, None)
            if item is None:
                return
            try:
                work(client, item)
            except Exception as error:  # noqa: BLE001 - reported, and the run stops with it
                failures.append(error)
                return

    threads = [threading.Thread(target=worker) for _ in range(connections)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    return time.monotonic() - began


class PushWatch:
    """Reads /metrics (pushes delivered, the push worker's own counter, and the outbox's depth) when a phase starts,
    and after its last answer until its outbox is empty again; and the CPU used in between."""

    pattern = re.compile(r'^wallet_orders_push_attempts_total\{outcome="(\w+)"\} (\S+)$|^wallet_orders_outbox_depth (\S+)$', re.M)

    def __init__(self, base):
        self.client = Client(base)

    def read(self):
        status, body = self.client.request("GET", "/metrics")
        if status != 200:
            raise RuntimeError(f"/metrics answered {status}")
        attempts, depth = {}, None
        for outcome, count, outbox in self.pattern.findall(body.decode()):
            if outbox:
                depth = int(float(outbox))
            else:
                attempts[outcome] = int(float(count))
        return attempts, depth

    def start(self):
        self.before, _ = self.read()
        self.cpu = CPUWatch()
        self.cpu.start()
        self.began = time.monotonic()

    def wait_until_drained(self, limit=900):
        """After the last answer: polls until nothing waits in the outbox; answers the figures of the phase."""
        ended = time.monotonic()
        while True:
            attempts, depth = self.read()
            now = time.monotonic()
            if depth == 0 or now - ended > limit:
                break
            time.sleep(0.2)
        cpu = self.cpu.stop()
        delta = {key: value - self.before.get(key, 0) for key, value in attempts.items()}
        return {
            "cpu": cpu,
            "pushes": delta.get("delivered", 0),
            "push_retries": delta.get("retry", 0),
            "push_failures": delta.get("failed", 0) + delta.get("token_rejected", 0),
            "drained_after": now - self.began,
            "drain_lag": now - ended,
            "outbox_left": depth,
        }


def setup(base, order_type, key, orders, connections, state_path):
    """ORDERS orders, each with one shipping fulfillment following a tracking number of its own, made through
    POST /api/v1/orders (so their numbers are indexed as a merchant's write indexes them), and one device each."""
    details = [None] * orders

    def create(client, n):
        order = {
            "orderIdentifier": f"T-{n:07d}",
            "orderNumber": f"{100000 + n}",
            "orderManagementURL": f"https://shop.example.com/account/orders/{100000 + n}",
            "status": "open",
            "statusDescription": "STATUS_PROCESSING",
            "payment": {"total": {"amount": 12.5, "currency": "EUR"}, "status": "paid"},
            "lineItems": [{"title": "ITEM_MUG", "quantity": 1, "image": "mug.png",
                           "price": {"amount": 12.5, "currency": "EUR"}}],
            "fulfillments": [{"fulfillmentType": "shipping", "fulfillmentIdentifier": "parcel-1",
                              "status": "processing", "carrier": CARRIER, "trackingNumber": tracking_number(n)}],
        }
        status, body = client.request("POST", "/api/v1/orders", order,
                                      {"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
        if status != 201:
            raise RuntimeError(f"creating order {n}: {status} {body[:300]!r}")
        details[n] = json.loads(body)["orderDetails"]

    def register(client, n):
        order = details[n]
        path = (f"/v1/devices/{n:032x}/registrations/{order['orderTypeIdentifier']}/"
                f"{urllib.parse.quote(order['orderIdentifier'], safe=':')}")
        status, body = client.request("POST", path, {"pushToken": f"{n:064x}"},
                                      {"Authorization": f"AppleOrder {order['authenticationToken']}",
                                       "Content-Type": "application/json"})
        if status != 201:
            raise RuntimeError(f"registering a device for order {n}: {status} {body[:300]!r}")

    created = in_parallel(connections, base, range(orders), create)
    registered = in_parallel(connections, base, range(orders), register)
    with open(state_path, "w") as out:
        json.dump({"type": order_type, "orders": [d["orderIdentifier"] for d in details]}, out)
    print(json.dumps({"orders": orders, "created_per_s": orders / created, "registered_per_s": orders / registered}))


def tracking_number(n):
    return f"PC{n:010d}"


def track(base, key, state_path, events, connections, layout):
    """Phase A. With the `spread` layout the events go out in rounds: round k holds each order's k-th event, so every
    request names 1,000 different orders and every event makes a version of its own (the costliest case: a carrier's
    batch of scans of many parcels). With `grouped`, a request holds all the events of 1,000 / EVENTS-per-order
    orders, which the service applies as one version per order. A group's rounds take turns (round k+1 is sent once
    round k is answered), so that an order's events arrive in the order they happened and none is stale for having
    overtaken the one before it; with more groups than connections the wait is rare."""
    orders = len(json.load(open(state_path))["orders"])
    per_order = events // orders
    rounds = [range(k, k + 1) for k in range(per_order)] if layout == "spread" else [range(per_order)]
    # Orders a request, fewer when there are too few orders to keep every connection busy.
    size = min(BATCH // len(rounds[0]), -(-orders // connections))
    groups = -(-orders // size)
    turns = threading.Condition()
    next_round = [0] * groups
    requests = [(r, g) for r in rounds for g in range(groups)]
    results, statuses, versions = {}, {}, [0]
    count_lock = threading.Lock()
    latencies = []

    def post(client, item):
        r, g = item
        batch = []
        for n in range(g * size, min(orders, (g + 1) * size)):
            for k in r:
                at = START + datetime.timedelta(hours=k, seconds=n % 3600)
                batch.append({
                    "id": f"e{n}-{k}", "trackingNumber": tracking_number(n), "carrier": CARRIER,
                    "status": STATUSES[k % len(STATUSES)], "occurredAt": rfc3339(at),
                    "estimatedDeliveryAt": rfc3339(START + datetime.timedelta(days=3, hours=k)),
                    "estimatedDeliveryWindowDuration": "PT2H",
                    "description": f"Scan {k + 1} of parcel {n}",
                })
        with turns:
            turns.wait_for(lambda: next_round[g] == r.start)
        began = time.monotonic()
        try:
            status, body = client.request("POST", "/api/v1/tracking-events", {"events": batch},
                                          {"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
        finally:
            with turns:
                next_round[g] = r.stop
                turns.notify_all()
        took = time.monotonic() - began
        with count_lock:
            statuses[status] = statuses.get(status, 0) + 1
            latencies.append(took)
        if status != 200:
            return
        changed = set()
        for result in json.loads(body)["results"]:
            with count_lock:
                results[result["result"]] = results.get(result["result"], 0) + 1
            for order in result.get("orders", []):
                changed.add(order["orderIdentifier"])
        # One version per order a request's events changed.
        with count_lock:
            versions[0] += len(changed)

    watch = PushWatch(base)
    watch.start()
    wall = in_parallel(connections, base, requests, post)
    pushes = watch.wait_until_drained()
    sent = per_order * orders
    latencies.sort()
    print(json.dumps({
        "phase": "tracking", "requests": len(requests), "events": sent, "per_request": size * len(rounds[0]), "layout": layout, "wall": wall, "statuses": statuses,
        "results": results, "versions": versions[0],
        "request_p50": latencies[len(latencies) // 2], "request_max": latencies[-1], **pushes,
    }))


def patch(base, order_type, key, state_path, count, connections):
    """Phase B: COUNT merchant PATCHes, each a new status and words for an order's fulfillment (so each is a version
    and a push), the orders taken in turn so that no two PATCHes of one order are under way at once."""
    orders = json.load(open(state_path))["orders"]
    statuses, versions = {}, [0]
    count_lock = threading.Lock()

    def send(client, i):
        n, k = i % len(orders), i // len(orders)
        own = orders[n].split(":", 1)[1]  # the merchant names its orders by its own identifier
        change = {"fulfillments": [{
            "fulfillmentType": "shipping", "fulfillmentIdentifier": "parcel-1",
            "status": SHIPPING[k % len(SHIPPING)], "carrier": CARRIER, "trackingNumber": tracking_number(n),
            "statusDescription": f"Merchant update {k + 1}",
        }]}
        status, body = client.request("PATCH", f"/api/v1/orders/{order_type}/{urllib.parse.quote(own)}", change,
                                      {"Authorization": f"Bearer {key}", "Content-Type": "application/merge-patch+json"})
        with count_lock:
            statuses[status] = statuses.get(status, 0) + 1
            if status == 200:
                versions[0] += 1
        if status >= 500 and statuses[status] <= 3:
            print(f"PATCH {own}: {status} {body[:300]!r}", file=sys.stderr)

    watch = PushWatch(base)
    watch.start()
    wall = in_parallel(connections, base, range(count), send)
    pushes = watch.wait_until_drained()
    print(json.dumps({
        "phase": "patch", "requests": count, "wall": wall, "statuses": statuses, "versions": versions[0],
        **pushes,
    }))


def report(setup_path, track_path, patch_path, facts_path):
    setup = json.load(open(setup_path))
    a, b = json.load(open(track_path)), json.load(open(patch_path))
    facts = json.load(open(facts_path))
    cores = os.cpu_count()
    print(f"  {setup['orders']:,} orders (created {setup['created_per_s']:,.0f}/s, devices registered "
          f"{setup['registered_per_s']:,.0f}/s), one device each; `openssl speed -seconds 5 rsa2048` just before: "
          f"{facts['openssl']:,.0f} sign/s")
    print(f"  {'phase':<46}{'requests':>9}{'not 200':>8}{'wall s':>8}{'events/s':>10}{'versions':>10}"
          f"{'versions/s':>11}{'pushes':>9}{'pushes/s':>10}{'server CPU/version':>20}")
    for name, phase, events in ((f"A: tracking events, {a['per_request']:,} a request ({a['layout']})", a, a["events"]),
                                ("B: merchant PATCHes, one a request", b, None)):
        failed = sum(count for status, count in phase["statuses"].items() if status != "200")
        per_version = phase["cpu"].get("server", 0) / phase["versions"] * 1000 if phase["versions"] else 0
        rate = f"{events / phase['wall']:,.0f}" if events else "-"
        print(f"  {name:<46}{phase['requests']:>9,}{failed:>8,}{phase['wall']:>8.1f}"
              f"{rate:>10}"
              f"{phase['versions']:>10,}{phase['versions'] / phase['wall']:>11,.0f}{phase['pushes']:>9,}"
              f"{phase['pushes'] / phase['drained_after']:>10,.0f}{per_version:>17.2f} ms")
    print("  pushes/s: pushes delivered from the phase's first request until its outbox was empty again")
    for name, phase in (("A", a), ("B", b)):
        cpu, seconds = phase["cpu"], phase["drained_after"]
        parts = [f"{who} {cpu[who]:.0f} s ({cpu[who] / seconds:.0%})" for who in ("server", "postgres", "apns", "driver", "other")
                 if who in cpu]
        notes = [f"the outbox empty {phase['drain_lag']:.1f} s after the last answer"]
        if phase["push_retries"] or phase["push_failures"]:
            notes.append(f"{phase['push_retries']} push retries, {phase['push_failures']} failed")
        if phase["outbox_left"]:
            notes.append(f"{phase['outbox_left']} pushes still in the outbox")
        print(f"  {name}: CPU over {seconds:.0f} s on {cores} cores ({cpu['busy'] / seconds:.0%} of one core busy in all): "
              f"{', '.join(parts)}; {'; '.join(notes)}")
    print(f"  A's events: {', '.join(f'{c:,} {r}' for r, c in sorted(a['results'].items()))}; a request answered in "
          f"{a['request_p50']:.2f} s (median), {a['request_max']:.2f} s at most")
    print(f"  the store holds {facts['partner']:,} versions made by the partner and {facts['merchant']:,} by the merchant "
          f"past the creates; the local APNs took {facts['apns']:,} pushes")

    def ratio(x, y):
        return x / y if y else float("nan")
    va, vb = a["versions"] / a["wall"], b["versions"] / b["wall"]
    pa, pb = a["pushes"] / a["drained_after"], b["pushes"] / b["drained_after"]
    print(f"  tracking ÷ PATCH: versions/s {ratio(va, vb):.2f}, pushes/s {ratio(pa, pb):.2f}, events/s ÷ PATCHes/s "
          f"{ratio(a['events'] / a['wall'], b['requests'] / b['wall']):.2f}; versions/s ÷ openssl sign/s: "
          f"tracking {ratio(va, facts['openssl']):.2f}, PATCH {ratio(vb, facts['openssl']):.2f}")


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "setup":
        setup(args[0], args[1], args[2], int(args[3]), int(args[4]), args[5])
    elif command == "track":
        track(args[0], args[1], args[2], int(args[3]), int(args[4]), os.environ.get("LAYOUT", "spread"))
    elif command == "patch":
        patch(args[0], args[1], args[2], args[3], int(args[4]), int(args[5]))
    elif command == "report":
        report(*args)
    else:
        sys.exit(__doc__)
