"""Issue 39's probes that print a verdict, for Benchmarks/security-probes.sh (parts 7 to 13).

    security-probes.py PROBE [ARGUMENTS]

Each probe talks to a running server at $BASE with the keys the script exports ($MERCHANT_KEY, the default merchant;
$ACME_KEY, merchant acme's; $ADMIN_KEY; $OPERATOR_KEY) and prints one line per check:
`   PASS <finding>: <what was answered>` or `   FAIL <finding>: <what was answered>`. A probe that needs the
database runs $STORE_QUERY (a command that prints what one SQL statement answers, `|`-separated).
"""
import base64
import hashlib
import hmac
import http.client
import json
import os
import subprocess
import sys
import time
import urllib.parse
from datetime import datetime, timezone

BASE = os.environ.get("BASE", "http://127.0.0.1:18290")
HOST, PORT = urllib.parse.urlsplit(BASE).hostname, urllib.parse.urlsplit(BASE).port
TYPE = os.environ.get("ORDER_TYPE", "")
verdicts = {"PASS": 0, "FAIL": 0}


def verdict(passed, finding, text):
    word = "PASS" if passed else "FAIL"
    verdicts[word] += 1
    print(f"   {word} {finding}: {text}", flush=True)


def request(method, path, body=None, headers=None, key=None, timeout=120, source="127.0.0.1"):
    """(status, headers, body bytes), sent from the loopback address `source`; a connection that fails answers its
    error's name as the status."""
    headers = dict(headers or {})
    if key:
        headers["Authorization"] = f"Bearer {key}"
    if isinstance(body, (dict, list)):
        body = json.dumps(body).encode()
        headers.setdefault("Content-Type", "application/json")
    connection = http.client.HTTPConnection(HOST, PORT, timeout=timeout, source_address=(source, 0))
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    except Exception as error:  # noqa: BLE001 - a probe reports whatever went wrong
        return type(error).__name__, {}, b""
    finally:
        connection.close()


def parsed(body):
    try:
        return json.loads(body)
    except ValueError:
        return None


def store_query(sql):
    command = os.environ["STORE_QUERY"]
    return subprocess.run(command + [sql] if isinstance(command, list) else [*command.split(), sql],
                          capture_output=True, text=True, check=True).stdout.strip()


def now_rfc3339(offset=0):
    return datetime.fromtimestamp(time.time() + offset, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def create_order(key, identifier, change=None):
    order = json.load(open("Examples/order.json"))
    order["orderIdentifier"] = identifier
    for field in ("updatedAt", "createdAt"):
        order.pop(field, None)
    if change:
        change(order)
    status, _, body = request("POST", "/api/v1/orders", order, key=key)
    details = (parsed(body) or {}).get("orderDetails", {})
    return status, details.get("orderTypeIdentifier"), details.get("orderIdentifier"), details.get("authenticationToken")


def merge_patch(key, type_, id_, patch):
    body = patch if isinstance(patch, bytes) else json.dumps(patch).encode()
    return request("PATCH", f"/api/v1/orders/{type_}/{urllib.parse.quote(id_, safe='')}", body,
                   {"Content-Type": "application/merge-patch+json"}, key=key)


# M1: refused events are not kept, and the bound counts what is stored.
def events_bound(source):
    count = lambda: int(store_query(  # noqa: E731
        f"SELECT count(*) FROM tracking_events WHERE source = '{source}' AND state IN ('received', 'pending')"))
    before = count()
    results = {}
    for batch in range(2):
        events = [{"id": f"over-{batch}-{n}", "trackingNumber": f"NOBODY-{batch}-{n}", "status": "in_transit",
                   "occurredAt": now_rfc3339(-60)} for n in range(1_000)]
        status, _, body = request("POST", "/api/v1/tracking-events", {"events": events}, key=os.environ["ACME_KEY"])
        for result in (parsed(body) or {}).get("results", []):
            results[result.get("result")] = results.get(result.get("result"), 0) + 1
        results[f"HTTP {status}"] = results.get(f"HTTP {status}", 0) + 1
    after = count()
    verdict(results.get("invalid") == 2_000 and after == before, "M1 refused events not kept",
            f"{before:,} events waiting ({source}, received and pending alike), 2,000 more sent: {results}; "
            f"{after:,} waiting afterwards")


# L1: what 8 PATCHes of 150 members with 30 KB names leave in the history, the storage and the console.
def wide_history(engine):
    key = os.environ["ACME_KEY"]
    status, type_, id_, _ = create_order(key, f"history-{engine}")
    names = [f"x{n}-" + os.urandom(15_000).hex() for n in range(150)]
    answers = []
    for round_ in range(8):
        patch = {name: (None if round_ % 2 else "v") for name in names}
        answers.append(merge_patch(key, type_, id_, patch)[0])
    stored = int(store_query(
        f"SELECT COALESCE(SUM({'octet_length(changes)' if engine == 'postgres' else 'length(CAST(changes AS BLOB))'}), 0) "
        f"FROM order_versions WHERE order_identifier = '{id_}'"))
    merchant = parsed(request("GET", "/api/v1/admin/merchants/acme", key=os.environ["OPERATOR_KEY"])[2]) or {}
    usage = merchant.get("merchant", {}).get("usage", {})
    verdict(answers == [200] * 8 and 0 < stored <= 8 * 16_384, f"L1 history stored ({engine})",
            f"create {status}, PATCHes {answers}; {stored:,} bytes of change records for the order "
            f"(before the fix: about 36,000,000)")
    verdict(usage.get("historyBytes", 0) >= stored, f"L1 history counted ({engine})",
            f"merchant acme's usage {usage}")
    started = time.monotonic()
    status, _, page = request("GET", f"/admin/order?type={type_}&id={urllib.parse.quote(id_)}",
                              key=os.environ["ADMIN_KEY"])
    elapsed = time.monotonic() - started
    verdict(status == 200 and len(page) < 1_000_000, f"L1 console page ({engine})",
            f"{status}, {len(page):,} bytes of HTML in {elapsed:.2f} s (before: 40 MB in 9 s)")


def aftership(path, secret, event_id, number):
    payload = {"event": "tracking_update", "event_id": event_id,
               "msg": {"tracking_number": number, "slug": "dhl", "tag": "InTransit",
                       "checkpoints": [{"created_at": now_rfc3339(-30), "message": "probe"}]}}
    body = json.dumps(payload).encode()
    signature = base64.b64encode(hmac.new(secret.encode(), body, hashlib.sha256).digest()).decode()
    return request("POST", path, body, {"aftership-hmac-sha256": signature, "Content-Type": "application/json"})


# L3: a suspended merchant's partners change nothing; a partner can be unlinked, given a new secret and removed.
def partners(secret):
    operator, acme, merchant = os.environ["OPERATOR_KEY"], os.environ["ACME_KEY"], os.environ["MERCHANT_KEY"]
    hook = "/hooks/aftership/acme-aftership"

    def tracked(order):
        for fulfillment in order.get("fulfillments", []):
            fulfillment["trackingNumber"] = "PROBE-L3"

    def shipped(key, type_, id_):
        order = (parsed(request("GET", f"/api/v1/orders/{type_}/{id_}", key=merchant if id_.find(":") < 0 else acme)[2])
                 or {}).get("order", {})
        fulfillments = [dict(fulfillment, status="onTheWay") for fulfillment in order.get("fulfillments", [])]
        return merge_patch(key, type_, id_, {"fulfillments": fulfillments})[0]

    status, type_, id_, _ = create_order(acme, "partner-1", tracked)
    _, _, mine, _ = create_order(merchant, "partner-2", tracked)
    made = request("POST", "/api/v1/admin/partners", {"name": "l3-partner", "merchants": ["acme", "default"]},
                   key=operator)[0]
    partner_key = (parsed(request("POST", "/api/v1/admin/partners/l3-partner/keys", key=operator)[2]) or {}).get("key", "")
    version = lambda: store_query(f"SELECT version FROM orders WHERE order_identifier = '{id_}'")  # noqa: E731
    before = version()
    suspend = request("PATCH", "/api/v1/admin/merchants/acme", {"status": "suspended"}, key=operator)[0]
    hooked_status, _, hooked = aftership(hook, secret, "l3-suspended", "PROBE-L3")
    patched = shipped(partner_key, type_, id_)
    after = version()
    resumed = request("PATCH", "/api/v1/admin/merchants/acme", {"status": "active"}, key=operator)[0]
    results = (parsed(hooked) or {}).get("results") or [{}]
    result, problem = results[0].get("result"), (results[0].get("problems") or [{}])[0].get("message", "")
    problem = problem or (parsed(hooked) or {}).get("error", "")
    verdict(suspend == 200 and (result == "invalid" or hooked_status == 403) and patched == 403 and before == after,
            "L3 suspended merchant's partners refused",
            f"acme suspended {suspend}; its AfterShip partner's event {hooked_status} {result} ({problem[:60]}); "
            f"a partner key's PATCH of its order {patched}; the order at version {before} before, {after} after; "
            f"resumed {resumed}")
    new_secret = os.urandom(16).hex()
    rotated = request("PUT", "/api/v1/admin/partners/acme-aftership/provider", {"providerSecret": new_secret},
                      key=operator)[0]
    old_signed = aftership(hook, secret, "l3-old-secret", "PROBE-L3")[0]
    new_signed = aftership(hook, new_secret, "l3-new-secret", "PROBE-L3")[0]
    before_unlink = shipped(partner_key, type_, mine)
    unlinked = request("DELETE", "/api/v1/admin/partners/l3-partner/merchants/default", key=operator)[0]
    after_unlink = shipped(partner_key, type_, mine)
    removed = request("DELETE", "/api/v1/admin/partners/l3-partner", key=operator)[0]
    key_after = request("GET", "/api/v1/orders", key=partner_key)[0]
    hook_removed = request("DELETE", "/api/v1/admin/partners/acme-aftership", key=operator)[0]
    hook_after = aftership(hook, new_secret, "l3-removed", "PROBE-L3")[0]
    verdict(rotated == 200 and old_signed == 401 and new_signed == 200 and unlinked == 200 and after_unlink == 404
            and removed == 200 and key_after == 401 and hook_removed == 200 and hook_after in (401, 404),
            "L3 partner unlink/secret/remove by API",
            f"new provider secret {rotated} (the old one then {old_signed}, the new {new_signed}); partner made "
            f"{made}, its PATCH of a default-merchant order {before_unlink}, unlinked {unlinked}, then {after_unlink}; "
            f"removed {removed}, its key then {key_after}; the AfterShip partner removed {hook_removed}, its hook then "
            f"{hook_after}")


# L4: HEAD on a one-time link leaves it usable; L5: near-miss link paths reach no trace.
def links(state):
    status, type_, id_, _ = create_order(os.environ["MERCHANT_KEY"], "link-1")
    link = parsed(request("POST", f"/api/v1/orders/{type_}/{id_}/links", b"", key=os.environ["MERCHANT_KEY"])[2]) or {}
    reference = link.get("url", "").rsplit("/", 1)[-1]
    # A mail scanner's HEAD from one address, then the customer's GET from another (a client gets a short grace to
    # download again), then someone else's GET from a third.
    heads = [request("HEAD", f"/links/{reference}", source="127.0.0.2")[0] for _ in range(3)]
    first = request("GET", f"/links/{reference}", source="127.0.0.3")
    other = request("GET", f"/links/{reference}", source="127.0.0.4")[0]
    verdict(heads == [200] * 3 and first[0] == 200 and len(first[2]) > 0 and other != 200,
            "L4 HEAD leaves a one-time link usable",
            f"link {'one-time' if link.get('reusable') is False else link}; HEAD ×3 from one address {heads}; then "
            f"GET from another {first[0]} ({len(first[2]):,} bytes), GET from a third {other}")
    near = [f"/links/{reference}/x", f"/Links/{reference}", f"/./links/{reference}", f"/LINKS/{reference}",
            f"/links/{reference}%2F", f"//links/{reference}", f"/api/../links/{reference}"]
    answers = [request("GET", path)[0] for path in near]
    request("GET", "/healthz")
    json.dump({"reference": reference, "answers": answers}, open(state, "w"))


def traces_hold(state, trace_log):
    reference, answers = (lambda kept: (kept["reference"], kept["answers"]))(json.load(open(state)))
    data = open(trace_log, "rb").read() if os.path.exists(trace_log) else b""
    spans = data.count(b"/healthz")
    verdict(spans > 0 and reference.encode() not in data, "L5 near-miss link paths not traced",
            f"{len(answers)} near-miss paths answered {answers}; the collector received {len(data):,} bytes of "
            f"OTLP ({spans} mentions of /healthz, so spans arrived); the link's reference in them: "
            f"{'FOUND' if reference.encode() in data else 'nowhere'}")


# L6: special-purpose webhook addresses refused.
def webhook_addresses():
    refused = {}
    for address in ["192.0.2.1", "198.51.100.7", "203.0.113.9", "192.88.99.1", "[::ffff:192.0.2.1]",
                    "[::ffff:100.64.0.1]", "[64:ff9b:1::808:808]", "[2001::1]", "[2001:0:4136:e378:8000:63bf:3fff:fdd2]"]:
        status, _, body = request("POST", "/api/v1/webhooks", {"url": f"https://{address}/hook"},
                                  key=os.environ["MERCHANT_KEY"])
        refused[address] = status
    control = request("POST", "/api/v1/webhooks", {"url": "https://8.8.8.8/hook"}, key=os.environ["MERCHANT_KEY"])
    made = (parsed(control[2]) or {}).get("id")
    if made:
        request("DELETE", f"/api/v1/webhooks/{made}", key=os.environ["MERCHANT_KEY"])
    verdict(all(status == 400 for status in refused.values()) and control[0] == 201,
            "L6 special-purpose webhook addresses refused",
            f"{refused}; a public address (8.8.8.8) {control[0]}")


# L7, L8 and the empty merge patch.
def writes():
    merchant, acme = os.environ["MERCHANT_KEY"], os.environ["ACME_KEY"]
    _, type_, acme_id, _ = create_order(acme, "foreign-1")
    order = json.load(open("Examples/order.json"))
    order["orderIdentifier"] = acme_id
    foreign_patch = merge_patch(merchant, type_, acme_id, {"statusDescription": "not mine"})
    foreign_put = request("PUT", f"/api/v1/orders/{type_}/{acme_id}", order, key=merchant)
    missing = merge_patch(merchant, type_, "acme:nobody", {"statusDescription": "not mine"})
    same_body = parsed(foreign_patch[2]) == parsed(missing[2])
    verdict(foreign_patch[0] == 404 and foreign_put[0] == 404 and missing[0] == 404 and same_body,
            "L7 default merchant's PUT/PATCH of another's order",
            f"PATCH {foreign_patch[0]}, PUT {foreign_put[0]}, a missing order {missing[0]}, "
            f"{'the same body' if same_body else 'DIFFERENT bodies'} (timing: a test counts the store calls)")
    path = f"/admin/order/package?type={type_}&id={urllib.parse.quote(acme_id)}"
    by_admin = request("GET", path, key=os.environ["ADMIN_KEY"])
    by_operator = request("GET", path, key=os.environ["OPERATOR_KEY"])
    verdict(by_admin[0] == 403 and by_operator[0] == 200, "L8 read-only admin key refused the package",
            f"admin key {by_admin[0]} ({(parsed(by_admin[2]) or {}).get('error', '')[:60]}…), "
            f"operator key {by_operator[0]} ({len(by_operator[2]):,} bytes)")
    _, type_, id_, token = create_order(merchant, "empty-patch-1")
    request("POST", f"/v1/devices/probe-device/registrations/{type_}/{id_}", {"pushToken": "ab" * 32},
            {"Authorization": f"AppleOrder {token}"})
    before = (parsed(request("GET", f"/api/v1/orders/{type_}/{id_}", key=merchant)[2]) or {}).get("order", {})
    status, _, body = merge_patch(merchant, type_, id_, {})
    answer = parsed(body) or {}
    after = (parsed(request("GET", f"/api/v1/orders/{type_}/{id_}", key=merchant)[2]) or {}).get("order", {})
    pushes = store_query(f"SELECT count(*) FROM push_outbox WHERE order_identifier = '{id_}'")
    verdict(status == 200 and answer.get("pushesQueued") == 0 and before.get("updatedAt") == after.get("updatedAt")
            and pushes == "0", "empty merge patch",
            f"PATCH {{}} {status}, pushesQueued {answer.get('pushesQueued')}, updatedAt "
            f"{'unchanged' if before.get('updatedAt') == after.get('updatedAt') else 'MOVED'}, pushes stored {pushes}")


# L9: the admin command prints escape sequences as text.
def escapes_seed():
    sequences = "\x1b[31mRED\x1b[0m \x1b]52;c;cHJvYmU=\x07 \r\x1b[2Kforged line"
    logged = request("POST", "/v1/log", {"logs": [f"probe-l9 {sequences}"]})[0]
    status, *_ = create_order(os.environ["MERCHANT_KEY"], "escape-1",
                              lambda order: order.update(orderNumber=f"N-\x1b[31m1\x1b]52;c;eA==\x07"))
    print(f"   (seeded: device log {logged}, an order whose number holds escape sequences {status})")


def escapes_check(binary):
    outputs = {}
    for command in (["admin", "logs", "--contains", "probe-l9"], ["admin", "orders"]):
        result = subprocess.run([binary, *command], capture_output=True)
        outputs[" ".join(command[:2])] = result.stdout
    found = {name: sum(output.count(byte) for byte in (b"\x1b", b"\x07", b"\r")) for name, output in outputs.items()}
    shown = {name: output.count(b"\\u{1B}") + output.count(b"\\e") + output.count(b"^[") + output.count(b"\\x1b")
             for name, output in outputs.items()}
    verdict(all(count == 0 for count in found.values()) and all(count > 0 for count in shown.values()),
            "L9 admin logs/orders print escapes as text",
            f"raw ESC/BEL/CR bytes in the output {found}; escapes written out as text {shown}")


# L10: NUL in JSON and %00 in a query answer 400 with a JSON body.
def nul(engine):
    merchant = os.environ["MERCHANT_KEY"]
    _, type_, id_, _ = create_order(merchant, f"nul-{engine}")
    order = json.load(open("Examples/order.json"))
    order["orderNumber"] = "a\u0000b"
    order["orderIdentifier"] = f"nul-new-{engine}"
    line = dict(order, orderIdentifier=f"nul-import-{engine}")
    probes = [
        ("POST /orders", "POST", "/api/v1/orders", json.dumps(order).encode(), {"Content-Type": "application/json"}),
        ("POST /orders/validate", "POST", "/api/v1/orders/validate", json.dumps(order).encode(),
         {"Content-Type": "application/json"}),
        ("PATCH", "PATCH", f"/api/v1/orders/{type_}/{id_}", b'{"statusDescription": "a\\u0000b"}',
         {"Content-Type": "application/merge-patch+json"}),
        ("PUT", "PUT", f"/api/v1/orders/{type_}/{id_}", json.dumps(dict(order, orderIdentifier=id_)).encode(),
         {"Content-Type": "application/json"}),
        ("import", "POST", "/api/v1/orders/import", json.dumps(line).encode() + b"\n",
         {"Content-Type": "application/x-ndjson"}),
        ("tracking event", "POST", "/api/v1/tracking-events",
         json.dumps({"events": [{"id": "n1", "trackingNumber": "a\u0000b", "status": "in_transit",
                                 "occurredAt": now_rfc3339(-60)}]}).encode(), {"Content-Type": "application/json"}),
        ("webhook", "POST", "/api/v1/webhooks", b'{"url": "https://example.com/a\\u0000b"}',
         {"Content-Type": "application/json"}),
        ("?orderNumber=%00", "GET", "/api/v1/orders?orderNumber=a%00b", None, {}),
        ("?type=%00", "GET", "/api/v1/orders?type=a%00b", None, {}),
        ("export ?type=%00", "GET", "/api/v1/orders/export?type=a%00b", None, {}),
        ("pushes ?order=%00", "GET", "/api/v1/pushes?order=a%00b", None, {}),
        ("path %00", "GET", f"/api/v1/orders/{type_}/a%00b", None, {}),
    ]
    answers = {}
    for name, method, path, body, headers in probes:
        status, response_headers, response = request(method, path, body, headers, key=merchant)
        is_json = response_headers.get("content-type", "").startswith("application/json") and parsed(response)
        # An import answers 200 line by line: its line must say invalid.
        if name == "import" and status == 200:
            status = "line invalid" if b'"invalid"' in response else "line taken"
        elif name == "tracking event" and status == 200:
            status = "event invalid" if b'"invalid"' in response else "event taken"
        answers[name] = status if is_json or status not in (400,) else f"{status} (no JSON)"
    admin = request("GET", "/admin?q=a%00b", key=os.environ["ADMIN_KEY"])[0]
    answers["/admin?q=%00"] = admin
    good = all(value in (400, "line invalid", "event invalid") for value in answers.values())
    verdict(good, f"L10 NUL answers 400 ({engine})", f"{answers}")


def collector(port_file, log_file):
    """An OTLP/HTTP endpoint that keeps every body it is sent, raw: protobuf keeps strings as their bytes, so a
    search of the bytes finds any text a span holds, with no decoder to install."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with open(log_file, "ab") as log:
                log.write(self.path.encode() + b"\n" + body + b"\n")
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    open(port_file, "w").write(str(server.server_address[1]))
    server.serve_forever()


def main():
    probe, arguments = sys.argv[1], sys.argv[2:]
    {
        "events-bound": lambda: events_bound(*arguments),
        "wide-history": lambda: wide_history(*arguments),
        "partners": lambda: partners(*arguments),
        "links": lambda: links(*arguments),
        "traces": lambda: traces_hold(*arguments),
        "collector": lambda: collector(*arguments),
        "webhook-addresses": webhook_addresses,
        "writes": writes,
        "escapes-seed": escapes_seed,
        "escapes-check": lambda: escapes_check(*arguments),
        "nul": lambda: nul(*arguments),
    }[probe]()
    sys.exit(0)


if __name__ == "__main__":
    main()
