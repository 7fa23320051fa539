#!/usr/bin/env python3
"""Seed corpora and dictionaries for Fuzz/fuzz.sh, from the repository's own files.

    python3 Fuzz/seeds.py OUT WALLET_ORDERS_BINARY

Writes OUT/<target>/ for each fuzz target, and OUT/json.dict, OUT/strings.dict, OUT/zip.dict. Packages are built
with `wallet-orders package` and development keys made by `wallet-orders keys dev`, from every valid order fixture.
"""
import glob
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT, BINARY = sys.argv[1], sys.argv[2]


def put(target, name, data):
    folder = os.path.join(OUT, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def read(path):
    with open(os.path.join(ROOT, path), "rb") as f:
        return f.read()


shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)

# order.json: every fixture, the tour's order and the sample template's defaults.
orders = sorted(glob.glob(os.path.join(ROOT, "Tests/Fixtures/orders/*/*.json")))
orders += [os.path.join(ROOT, "Examples/order.json"), os.path.join(ROOT, "OrderTemplates/sample/template.json")]
for path in orders:
    put("order-validator", os.path.basename(os.path.dirname(path)) + "-" + os.path.basename(path), read(path))

# Merge patches: RFC 7396's own examples (Appendix A), and the tour's patches over each valid fixture.
rfc_examples = [
    ({"a": "b"}, {"a": "c"}), ({"a": "b"}, {"b": "c"}), ({"a": "b"}, {"a": None}),
    ({"a": "b", "b": "c"}, {"a": None}), ({"a": ["b"]}, {"a": "c"}), ({"a": "c"}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}), ({"a": [{"b": "c"}]}, {"a": [1]}),
    (["a", "b"], ["c", "d"]), ({"a": "b"}, ["c"]), ({"a": "foo"}, None), ({"a": "foo"}, "bar"),
    ({"e": None}, {"a": 1}), ([1, 2], {"a": "b", "c": None}), ({}, {"a": {"bb": {"ccc": None}}}),
]
for index, (target, patch) in enumerate(rfc_examples):
    put("merge-patch", f"rfc7396-{index}", json.dumps(target).encode() + b"\0" + json.dumps(patch).encode())
tour_patches = [
    {"statusDescription": "STATUS_SHIPPED", "fulfillments": [{"fulfillmentType": "shipping",
     "fulfillmentIdentifier": "parcel-1", "status": "onTheWay", "carrier": "Example Post"}]},
    {"status": "completed", "payment": {"status": "refunded"}, "customer": None},
    {"merchant": {"logo": "logo", "url": None}, "lineItems": []},
]
for path in glob.glob(os.path.join(ROOT, "Tests/Fixtures/orders/valid/*.json")):
    for index, patch in enumerate(tour_patches):
        put("merge-patch", f"{os.path.basename(path)}-{index}", read(path) + b"\0" + json.dumps(patch).encode())

# Strings files: the sample's, in UTF-8 and in UTF-16 with either byte order mark, and one with every construct.
every_construct = r'''/* A comment
   over two lines */
"KEY" = "value";
// a line comment
"ESCAPES" = "\n\t\r\a\b\f\v\"\\\'\U00e9\UD83D\UDE00\101";
unquoted_key = unquoted.value-1;
"ALONE";
"MULTI" /* between */ = /* and */ "line
break";
'''
strings = {"every-construct": every_construct.encode()}
for path in glob.glob(os.path.join(ROOT, "OrderTemplates/sample/*.lproj/order.strings")):
    strings[os.path.basename(os.path.dirname(path))] = read(path)
for name, data in strings.items():
    text = data.decode("utf-8")
    put("strings-file", name + "-utf8", data)
    put("strings-file", name + "-utf16le", b"\xff\xfe" + text.encode("utf-16-le"))
    put("strings-file", name + "-utf16be", b"\xfe\xff" + text.encode("utf-16-be"))
    put("strings-file", name + "-bom", b"\xef\xbb\xbf" + data)

# Packages: each valid fixture (and the tour's order) packaged with the sample template and development keys.
packages = {}
with tempfile.TemporaryDirectory() as scratch:
    keys = os.path.join(scratch, "keys")
    subprocess.run([BINARY, "keys", "dev", "--out", keys], check=True, capture_output=True)
    env = dict(os.environ)
    for line in open(os.path.join(keys, "dev.env")):
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            name, value = line.split("=", 1)
            env[name] = value.strip("'\"")
    # The sample template, with the attachments the fixtures name besides its own images.
    template = os.path.join(scratch, "template")
    shutil.copytree(os.path.join(ROOT, "OrderTemplates/sample"), template)
    png, jpeg, pdf = read("OrderTemplates/sample/mug.png"), b"\xff\xd8\xff\xe0" + bytes(16), b"%PDF-1.4\n%%EOF\n"
    for name, data in [("beans.png", png), ("filters.jpeg", jpeg), ("receipt.pdf", pdf), ("label.pdf", pdf),
                       ("provider-light.png", png), ("provider-dark.png", png)]:
        with open(os.path.join(template, name), "wb") as f:
            f.write(data)
    # The tour's order is a merchant API body: the service adds what it leaves out.
    tour = json.loads(read("Examples/order.json"))
    tour.update({"schemaVersion": 1, "orderIdentifier": "tour-1001", "orderType": "ecommerce",
                 "createdAt": "2026-11-20T10:00:00Z", "updatedAt": "2026-11-21T09:30:00Z"})
    with open(os.path.join(scratch, "tour.json"), "w") as f:
        json.dump(tour, f)
    sources = glob.glob(os.path.join(ROOT, "Tests/Fixtures/orders/valid/*.json")) + [os.path.join(scratch, "tour.json")]
    for path in sorted(sources):
        out = os.path.join(scratch, os.path.basename(path) + ".order")
        result = subprocess.run([BINARY, "package", path, "--template", template, "--out", out],
                                env=env, capture_output=True, cwd=ROOT)
        if result.returncode == 0:
            packages[os.path.basename(path)] = open(out, "rb").read()
        else:
            print(f"seeds: {os.path.basename(path)} does not package: {result.stderr.decode().strip()[:300]}",
                  file=sys.stderr)
if not packages:
    sys.exit("seeds: no order packaged; the verifier would start from hostile archives alone")
for name, data in packages.items():
    put("package-archive", name + ".order", data)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        files = [(info.filename, z.read(info)) for info in z.infolist()]
    unsigned = [(n, d) for n, d in files if n not in ("manifest.json", "signature")]
    put("package-files", name + "-unsigned", b"".join(n.encode() + b"\0" + struct.pack(">I", len(d)) + d for n, d in unsigned))
    put("package-files", name + "-signed", b"".join(n.encode() + b"\0" + struct.pack(">I", len(d)) + d for n, d in files))


# Hostile archives, small: headers that lie, links, encryption flags, duplicates, zip64, truncation.
def deflate(data):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def archive(entries, zip64=False):
    out, central = b"", b""
    for name, data, declared, method, mode, flags in entries:
        comp = deflate(data) if method == 8 else data
        name = name.encode()
        offset = len(out)
        extra = struct.pack("<HHQQ", 1, 16, declared, len(comp)) if zip64 else b""
        sizes = (0xFFFFFFFF, 0xFFFFFFFF) if zip64 else (len(comp), declared)
        crc = zlib.crc32(data)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, flags, method, 0, 0x21, crc, sizes[0], sizes[1],
                           len(name), len(extra)) + name + extra + comp
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 3 << 8 | 45, 45, flags, method, 0, 0x21, crc,
                               sizes[0], sizes[1], len(name), len(extra), 0, 0, 0, mode << 16, offset) + name + extra
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), len(out), 0)
    return out + central + end


order = b'{"schemaVersion": 1}'
regular = 0o100644
put("package-archive", "lying-small", archive([("order.json", bytes(100000), 10, 8, regular, 0)]))
put("package-archive", "lying-large", archive([("order.json", order, 1 << 40, 8, regular, 0)], zip64=True))
put("package-archive", "symlink", archive([("logo.png", b"/etc/passwd", 11, 0, 0o120777, 0)]))
put("package-archive", "encrypted-flag", archive([("order.json", order, len(order), 8, regular, 1)]))
put("package-archive", "dot-dot", archive([("../order.json", order, len(order), 8, regular, 0)]))
put("package-archive", "duplicate", archive([("order.json", order, len(order), 8, regular, 0)] * 2))
put("package-archive", "stored", archive([("order.json", order, len(order), 0, regular, 0),
                                          ("en.lproj/order.strings", b'"A" = "B";', 10, 0, regular, 0)]))
first = next(iter(packages.values()))
put("package-archive", "truncated", first[: len(first) // 2])
put("package-archive", "no-end-record", first[:-22])

# Dictionaries: the schema's member names and enumerated values for JSON; tokens for strings files and zips.
schema = json.loads(read("Sources/WalletOrdersSchemas/order.schema.json"))
words = set()


def walk(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                words.update(value.keys())
            if key in ("enum", "const"):
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, str):
                        words.add(item)
            walk(value)
    elif isinstance(node, list):
        for item in node:
            walk(item)


walk(schema)
tokens = ['"{"', '"}"', '"["', '"]"', '":"', '","', '"null"', '"true"', '"false"', '"-0"', '"1e308"', '"0.1"',
          '"\\"\\\\u0000\\""', '"\\"https://example.com/\\""', '"\\"2026-11-20T10:00:00Z\\""', '"\\"PT30M\\""',
          '"\\"EUR\\""', '"\\"23.40\\""', '"\\"logo.png\\""', '"\\"logo\\""']
with open(os.path.join(OUT, "json.dict"), "w") as f:
    for token in tokens:
        f.write(token + "\n")
    for word in sorted(words):
        f.write(json.dumps(json.dumps(word)) + "\n")
with open(os.path.join(OUT, "strings.dict"), "w") as f:
    for token in ['"\\""', '"="', '";"', '"/*"', '"*/"', '"//"', '"\\\\U"', '"\\\\n"', '"\\\\"', '"\\xff\\xfe"',
                  '"\\xfe\\xff"', '"\\xef\\xbb\\xbf"', '"\\xd8\\x3d"', '"\\\\UD83D"', '"\\\\UDE00"', '"\\\\101"']:
        f.write(token + "\n")
with open(os.path.join(OUT, "zip.dict"), "w") as f:
    for token in ['"PK\\x03\\x04"', '"PK\\x01\\x02"', '"PK\\x05\\x06"', '"PK\\x06\\x06"', '"PK\\x06\\x07"',
                  '"\\xff\\xff\\xff\\xff"', '"\\x01\\x00\\x10\\x00"', '"order.json"', '"manifest.json"', '"signature"',
                  '".lproj/"', '"order.strings"', '"\\x00\\x00\\xff\\xa1"', '"\\x00\\x00\\xa4\\x81"']:
        f.write(token + "\n")

# Tracking payloads: the providers' fixtures, each with its times made extreme (AfterShip's `ts` alone, at Int64's
# ends, zero, past Int64 and past a Double; checkpoints and estimates in the years 0000, 1970 and 9999), and the tracking
# events API's body with events at the window's edges and beyond it.
tracking = {os.path.basename(p): json.loads(read(p)) for p in glob.glob(os.path.join(ROOT, "Tests/Fixtures/tracking/*.json"))}
for name, payload in tracking.items():
    put("tracking-payloads", name, json.dumps(payload))
aftership = tracking["aftership-tracking-update.json"]
for index, ts in enumerate(["9223372036854775807", "-9223372036854775808", "0", "9223372036854775808", "1e300",
                            "-1e300", "253402300800", "-62167219201"]):
    payload = json.loads(json.dumps(aftership))
    payload["msg"]["checkpoints"], payload["msg"]["updated_at"], payload["ts"] = [], None, 0
    # Written by hand: Python's json writes no number past a Double as such.
    put("tracking-payloads", f"aftership-ts-{index}", json.dumps(payload).replace('"ts": 0', '"ts": ' + ts))
for index, at in enumerate(["9999-12-31T23:59:59+00:00", "0000-01-01T00:00:00Z", "1970-01-01T00:00:00Z",
                            "9999-12-31T23:59:59-23:59", "0000-01-01T00:00:00+23:59"]):
    payload = json.loads(json.dumps(aftership))
    payload["msg"]["checkpoints"][-1]["checkpoint_time"] = at
    payload["msg"]["latest_estimated_delivery"] = {"datetime_min": at, "datetime_max": "9999-12-31T23:59:59Z"}
    put("tracking-payloads", f"aftership-at-{index}", json.dumps(payload))
    easypost = json.loads(json.dumps(tracking["easypost-tracker-updated.json"]))
    easypost["result"]["tracking_details"][-1]["datetime"] = at
    easypost["result"]["est_delivery_date"] = at
    put("tracking-payloads", f"easypost-at-{index}", json.dumps(easypost))
api_events = [{"id": f"e{index}", "trackingNumber": "1Z999", "status": status, "occurredAt": at,
               "estimatedDeliveryAt": estimate, "estimatedDeliveryWindowDuration": "PT2H", "description": "On the van"}
              for index, (status, at, estimate) in enumerate([
                  ("delivered", "2026-11-22T10:15:30Z", "2026-11-25T12:00:00Z"),
                  ("out_for_delivery", "2026-11-25T10:15:30Z", "2027-11-22T10:15:30Z"),
                  ("picked_up", "2000-01-01T00:00:00Z", "2000-01-01T00:00:00Z"),
                  ("in_transit", "9999-12-31T23:59:59Z", "0000-01-01T00:00:00Z"),
                  ("exception", "1970-01-01T00:00:00Z", "9999-12-31T23:59:59-23:59"),
              ])]
put("tracking-payloads", "api-events", json.dumps({"events": api_events}))
for event in api_events:
    put("tracking-payloads", "api-" + event["id"], json.dumps(event))
# Tracking numbers of every format Carrier.recognizing knows (the published examples of the carrier recognition tests), as
# they come: spaced, dashed, lowercase, one digit off, and inside a tracking events API event.
for index, number in enumerate(["1Z 999 AA1 01 2345 6784", "1z999aa10123456785", "123456789012", "0123 4567 8983",
                                "123456770100011", "9611020123456770100011", "9400 1000 0000 0000 0000 06",
                                "7112 3456 7890 0000 0010", "EA 473 124 829 US", "1234567891", "00340434161094042557",
                                "201298452283", "JJD1410302937991", "JVGL9999999999", "GM99999999999", "01015026003653c",
                                "RR-473-124-829-GB", "AB 123 456 785 CA", "8D00432154798", "TBA123456789012"]):
    put("tracking-payloads", f"number-{index}", number)
    put("tracking-payloads", f"number-event-{index}", json.dumps(dict(api_events[0], trackingNumber=number)))
with open(os.path.join(OUT, "tracking.dict"), "w") as f:
    for word in ["event", "event_id", "tracking_update", "edd_revise", "msg", "ts", "tracking_number", "slug", "tag",
                 "subtag", "checkpoints", "checkpoint_time", "created_at", "updated_at", "message", "subtag_message",
                 "latest_estimated_delivery", "datetime", "datetime_min", "datetime_max",
                 "courier_estimated_delivery_date", "estimated_delivery_date", "estimated_delivery_date_max",
                 "expected_delivery", "Delivered", "Delivered_002", "Exception", "Exception_010", "InTransit",
                 "object", "Event", "description", "tracker.updated", "result", "Tracker", "tracking_code", "carrier",
                 "status", "tracking_details", "est_delivery_date", "pre_transit", "delivered", "events", "id",
                 "trackingNumber", "occurredAt", "estimatedDeliveryAt", "estimatedDeliveryWindowDuration",
                 "out_for_delivery", "picked_up", "9223372036854775807", "-9223372036854775808", "1e300",
                 "9999-12-31T23:59:59Z", "0000-01-01T00:00:00Z", "2026-11-25T10:15:30Z", "+23:59", "PT2H"]:
        # Member names and words as JSON strings (quoted); numbers, times' pieces and offsets bare.
        token = word if word[0].isdigit() or word[0] in "-+" else json.dumps(word)
        f.write(json.dumps(token) + "\n")
    # Tracking numbers' pieces, bare: prefixes, S10 countries, separators.
    for token in ["1Z", "96", "92", "94", "0034043", "JJD", "JVGL", "GM", "TBA", "GB", "US", "CA", "AU", "NL", "FR", "DE", " ", "-"]:
        f.write(json.dumps(token) + "\n")

for target in sorted(os.listdir(OUT)):
    if os.path.isdir(os.path.join(OUT, target)):
        print(f"seeds: {target}: {len(os.listdir(os.path.join(OUT, target)))} inputs")
