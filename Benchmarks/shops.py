#!/usr/bin/env python3
"""The client side of Benchmarks/shops.sh: Shopify-shaped webhooks against merchant API writes of the same orders,
in one run on one server. Four phases, each from CONNECTIONS keep-alive connections as fast as they are answered:

  1. ORDERS signed `orders/create` webhooks (Shopify's documented payload, each its own order), then one device each;
  2. one signed `fulfillments/create` webhook for each of those orders (a version each, pushed to its device);
  3. ORDERS merchant `POST /api/v1/orders` of the Wallet order phase 1 made, each its own order, one device each;
  4. one merchant `PATCH` for each, setting the fulfillment phase 2 made (a version each, pushed).

  shops.py BASE TYPE MERCHANT_KEY HOOK_PATH SECRET ORDERS CONNECTIONS FIXTURES

Prints one JSON line a phase, then the table with the webhook ÷ API ratios. Python 3 standard library only.
"""
import base64
import hashlib
import hmac
import json
import sys
import urllib.parse

from tracking import Client, PushWatch, in_parallel

MANAGED = ("authenticationToken", "webServiceURL", "createdAt", "updatedAt", "orderTypeIdentifier")


def main(base, order_type, key, hook_path, secret, orders, connections, fixtures):
    with open(f"{fixtures}/shopify/orders-create.json") as file:
        shop_order = json.load(file)
    with open(f"{fixtures}/shopify/fulfillments-create.json") as file:
        shop_fulfillment = json.load(file)
    merchant = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    details = {"shop": [None] * orders, "api": [None] * orders}
    results = {}

    def webhook(client, topic, payload, delivery):
        body = json.dumps(payload, separators=(",", ":")).encode()
        signature = base64.b64encode(hmac.new(secret.encode(), body, hashlib.sha256).digest()).decode()
        headers = {"Content-Type": "application/json", "X-Shopify-Topic": topic, "X-Shopify-Hmac-Sha256": signature,
                   "X-Shopify-Webhook-Id": delivery, "X-Shopify-Shop-Domain": "acme.myshopify.com"}
        # The client sends the payload as these very bytes (compact JSON), which the signature covers.
        status, answer = client.request("POST", hook_path, payload, headers)
        if status != 200:
            raise RuntimeError(f"{topic} {delivery}: {status} {answer[:300]!r}")
        return json.loads(answer)

    def shop_id(n):
        return 7_000_000_000_000 + n

    def create_by_webhook(client, n):
        payload = dict(shop_order, id=shop_id(n), name=f"#S{n}", order_number=100_000 + n)
        answer = webhook(client, "orders/create", payload, f"create-{n}")
        if answer.get("result") != "created":
            raise RuntimeError(f"orders/create {n}: {answer}")

    def lookup(client, n):
        number = urllib.parse.quote(f"#S{n}")
        status, body = client.request("GET", f"/api/v1/orders?orderNumber={number}", headers=merchant)
        found = json.loads(body).get("orders", []) if status == 200 else []
        if len(found) != 1:
            raise RuntimeError(f"looking up #S{n}: {status} {body[:300]!r}")
        details["shop"][n] = found[0]["orderDetails"]

    def register(kind):
        def work(client, n):
            order = details[kind][n]
            device = f"{kind}{n:030d}"
            path = (f"/v1/devices/{device}/registrations/{order['orderTypeIdentifier']}/"
                    f"{urllib.parse.quote(order['orderIdentifier'], safe=':')}")
            status, body = client.request("POST", path, {"pushToken": hashlib.sha256(device.encode()).hexdigest()},
                                          {"Authorization": f"AppleOrder {order['authenticationToken']}",
                                           "Content-Type": "application/json"})
            if status != 201:
                raise RuntimeError(f"registering a device for {kind} order {n}: {status} {body[:300]!r}")
        return work

    def ship_by_webhook(client, n):
        payload = dict(shop_fulfillment, id=8_000_000_000_000 + n, order_id=shop_id(n))
        answer = webhook(client, "fulfillments/create", payload, f"ship-{n}")
        if answer.get("result") != "updated":
            raise RuntimeError(f"fulfillments/create {n}: {answer}")

    # 1 and 2: the shop's webhooks.
    took = in_parallel(connections, base, range(orders), create_by_webhook)
    results["shop_creates_per_s"] = orders / took
    in_parallel(connections, base, range(orders), lookup)
    in_parallel(connections, base, range(orders), register("shop"))
    watch = PushWatch(base)
    watch.start()
    took = in_parallel(connections, base, range(orders), ship_by_webhook)
    drained = watch.wait_until_drained()
    results["shop_updates_per_s"] = orders / took
    results["shop_pushes_per_s"] = drained["pushes"] / drained["drained_after"]
    results["shop_pushes"] = drained["pushes"]
    print(json.dumps({"phase": "shop", **results}), flush=True)

    # The Wallet orders the webhooks made, as a merchant would send them: the same fields, the same fulfillment.
    reader = Client(base)
    first = details["shop"][0]
    status, body = reader.request(
        "GET", f"/api/v1/orders/{first['orderTypeIdentifier']}/{urllib.parse.quote(first['orderIdentifier'], safe=':')}",
        headers=merchant)
    if status != 200:
        raise RuntimeError(f"reading the first shop order: {status} {body[:300]!r}")
    shipped = json.loads(body)["order"]
    template = {k: v for k, v in shipped.items() if k not in MANAGED}
    placed = dict(template, fulfillments=[])

    def create_by_api(client, n):
        order = dict(placed, orderIdentifier=f"api-{n}", orderNumber=f"#A{n}")
        status, body = client.request("POST", "/api/v1/orders", order, merchant)
        if status != 201:
            raise RuntimeError(f"creating order {n}: {status} {body[:300]!r}")
        details["api"][n] = json.loads(body)["orderDetails"]

    def ship_by_api(client, n):
        order = details["api"][n]
        path = f"/api/v1/orders/{order['orderTypeIdentifier']}/{urllib.parse.quote(order['orderIdentifier'], safe=':')}"
        status, body = client.request("PATCH", path, {"fulfillments": template["fulfillments"]},
                                      dict(merchant, **{"Content-Type": "application/merge-patch+json"}))
        if status != 200:
            raise RuntimeError(f"patching order {n}: {status} {body[:300]!r}")

    took = in_parallel(connections, base, range(orders), create_by_api)
    results["api_creates_per_s"] = orders / took
    in_parallel(connections, base, range(orders), register("api"))
    watch = PushWatch(base)
    watch.start()
    took = in_parallel(connections, base, range(orders), ship_by_api)
    drained = watch.wait_until_drained()
    results["api_updates_per_s"] = orders / took
    results["api_pushes_per_s"] = drained["pushes"] / drained["drained_after"]
    results["api_pushes"] = drained["pushes"]
    print(json.dumps({"phase": "api", **results}), flush=True)

    print()
    print(f"{orders:,} orders, {connections} connections: Shopify webhooks beside merchant API writes of the same orders")
    print("| | Shopify webhooks | merchant API | webhooks ÷ API |")
    print("|---|---|---|---|")
    for label, name in (("orders created/s", "creates_per_s"), ("versions written/s (shipped)", "updates_per_s"),
                        ("pushes delivered/s (until the outbox is empty)", "pushes_per_s")):
        shop, api = results[f"shop_{name}"], results[f"api_{name}"]
        print(f"| {label} | {shop:,.0f} | {api:,.0f} | {shop / api:.2f} |")
    print(f"pushes delivered: {results['shop_pushes']:,} after the webhooks, {results['api_pushes']:,} after the PATCHes")


if __name__ == "__main__":
    if len(sys.argv) != 9:
        sys.exit(__doc__)
    a = sys.argv[1:]
    main(a[0], a[1], a[2], a[3], a[4], int(a[5]), int(a[6]), a[7])
