import Foundation
import Hummingbird
import Mustache
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

/// `GET /admin`: a read-only page for people, rendered on the server: counts, recent orders with their status,
/// registrations, pushes with their outcomes, and device logs. Behind the admin key, sent as a Bearer token or
/// as the password of HTTP Basic authentication (so a browser asks for it); off when no admin key is set.
struct AdminPage: Sendable {
    let service: OrderService
    /// The admin key's guard; nil without an admin key, and then the page is off.
    let gate: AdminKeyMiddleware?

    static let rows = 50

    func add(to router: Router<ServiceRequestContext>) {
        guard let gate else {
            router.get("admin") { _, _ -> Response in
                throw APIError(.notFound, "the admin page is off: set adminKey (WALLET_ORDERS_ADMIN_KEY)")
            }
            return
        }
        router.group("admin").add(middleware: gate).get { _, _ in try await render() }
    }

    func render() async throws -> Response {
        let stats = try await service.stats()
        let newest = PageRequest(limit: Self.rows)
        // The records as the merchant API and `admin --json` show them, field for field.
        let context: [String: Any] = [
            "generatedAt": RFC3339.format(service.now()),
            "stats": [
                ["name": "Orders", "value": "\(stats.orders) (\(Self.counts(stats.ordersByStatus)))"],
                ["name": "Registrations", "value": "\(stats.registrations) on \(stats.devices) devices"],
                ["name": "Outbox depth", "value": "\(stats.outboxDepth)"],
                ["name": "Pushes, last hour", "value": Self.counts(stats.pushesLastHour)],
                ["name": "Pushes, last day", "value": Self.counts(stats.pushesLastDay)],
                ["name": "Device log entries", "value": "\(stats.deviceLogs)"],
            ],
            "orders": try Self.values(await service.orders(OrderFilter(), page: newest).records),
            "registrations": try Self.values(await service.registrations(RegistrationFilter(), limit: Self.rows)),
            "pushes": try Self.values(await service.pushes(PushFilter(), page: newest).records),
            "logs": try Self.values(await service.logs(LogFilter(), page: newest).records),
            "merchants": try await service.merchantsHolding().prefix(Self.rows).map { merchant -> [String: String] in
                let limits = [
                    merchant.limits.requestsPerSecond.map { "\($0)/s" }, merchant.limits.maxOrders.map { "\($0) orders" },
                    merchant.limits.maxAssetBytes.map { "\($0) bytes" },
                ].compactMap { $0 }
                return [
                    "slug": merchant.slug, "name": merchant.displayName, "status": merchant.status.rawValue,
                    "orders": "\(merchant.usage.orders)", "assetBytes": "\(merchant.usage.assetBytes)",
                    "limits": limits.isEmpty ? "none" : limits.joined(separator: ", "),
                ]
            },
        ]
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
        headers[.init("x-content-type-options")!] = "nosniff"
        // Parsed per request: the page is for a few people, and a template error then answers 500 rather than
        // stopping the server.
        let page = try MustacheTemplate(string: Self.html).render(Self.visible(context))
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    private static func counts<Key: RawRepresentable<String>>(_ values: [Key: Int]) -> String {
        values.isEmpty
            ? "none"
            : values.map { ($0.key.rawValue, $0.value) }.sorted { $0.0 < $1.0 }
                .map { "\($0.0) \($0.1)" }.joined(separator: " · ")
    }

    /// `value` with every string in it made `VisibleText`, which the template puts in as HTML.
    private static func visible(_ value: Any) -> Any {
        switch value {
        case let text as String: VisibleText(text: text)
        case let members as [String: Any]: members.mapValues(visible)
        case let elements as [Any]: elements.map(visible)
        default: value
        }
    }

    /// Records as Mustache reads them: their JSON form as dictionaries, arrays and strings.
    private static func values(_ records: some Encodable) throws -> Any {
        func plain(_ value: JSONValue) -> Any {
            switch value {
            case .object(let members): members.mapValues(plain)
            case .array(let elements): elements.map(plain)
            case .string(let text): text
            case .null: ""
            default: String(decoding: value.serialized(), as: UTF8.self)
            }
        }
        return plain(try JSONValue.encoding(records))
    }

    /// Every value is `VisibleText`, HTML already (escaped, its controls shown): text goes in with `{{{value}}}`.
    /// Device log messages and identifiers come from outside. Long values wrap anywhere rather than widen the page.
    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>wallet-orders admin</title>
        <style>
        body { font: 14px/1.4 system-ui, sans-serif; margin: 2rem; color: #1d1d1f; }
        h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid #ddd; vertical-align: top; overflow-wrap: anywhere; }
        th { background: #f5f5f7; } td.message { font-family: ui-monospace, monospace; white-space: pre-wrap; }
        td.token { font-family: ui-monospace, monospace; max-width: 12ch; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        span.control { font-family: ui-monospace, monospace; font-size: .85em; color: #cf222e; background: #ffebe9; border: 1px solid #ffcecb; border-radius: 3px; padding: 0 .15em; }
        .delivered, .completed { color: #1a7f37; } .failed, .cancelled, .suspended { color: #cf222e; } .pending, .sending { color: #9a6700; }
        </style>
        </head>
        <body>
        <h1>wallet-orders admin</h1>
        <p>Read-only, as of {{{generatedAt}}}; the newest \(rows) rows of each table.</p>
        <table id="stats">{{#stats}}<tr><th>{{{name}}}</th><td>{{{value}}}</td></tr>{{/stats}}</table>
        <h2>Orders</h2>
        <table id="orders"><tr><th>Type</th><th>Order</th><th>Status</th><th>Version</th><th>Devices</th><th>Updated</th></tr>
        {{#orders}}<tr><td>{{{orderTypeIdentifier}}}</td><td>{{{orderIdentifier}}}</td><td class="{{status}}">{{{status}}}</td><td>{{{version}}}</td><td>{{{registrations}}}</td><td>{{{updatedAt}}}</td></tr>
        {{/orders}}</table>
        <h2>Registrations</h2>
        <table id="registrations"><tr><th>Device</th><th>Order</th><th>Push token</th><th>Updated</th></tr>
        {{#registrations}}<tr><td>{{{deviceIdentifier}}}</td><td>{{{orderTypeIdentifier}}}/{{{orderIdentifier}}}</td><td class="token">{{{pushToken}}}</td><td>{{{updatedAt}}}</td></tr>
        {{/registrations}}</table>
        <h2>Pushes</h2>
        <table id="pushes"><tr><th>#</th><th>Order</th><th>Device</th><th>Status</th><th>Attempts</th><th>Updated</th><th>Last error</th></tr>
        {{#pushes}}<tr><td>{{{id}}}</td><td>{{{orderTypeIdentifier}}}/{{{orderIdentifier}}}</td><td>{{{deviceIdentifier}}}</td><td class="{{status}}">{{{status}}}</td><td>{{{attempts}}}</td><td>{{{updatedAt}}}</td><td>{{{lastError}}}</td></tr>
        {{/pushes}}</table>
        <h2>Merchants</h2>
        <table id="merchants"><tr><th>Slug</th><th>Name</th><th>Status</th><th>Orders</th><th>Asset bytes</th><th>Limits</th></tr>
        {{#merchants}}<tr><td>{{{slug}}}</td><td>{{{name}}}</td><td class="{{status}}">{{{status}}}</td><td>{{{orders}}}</td><td>{{{assetBytes}}}</td><td>{{{limits}}}</td></tr>
        {{/merchants}}</table>
        <h2>Device logs</h2>
        <table id="logs"><tr><th>Received</th><th>Last seen</th><th>Times</th><th>From</th><th>Message</th></tr>
        {{#logs}}<tr><td>{{{receivedAt}}}</td><td>{{{lastSeenAt}}}</td><td>{{{count}}}</td><td>{{{remoteAddress}}}</td><td class="message">{{{message}}}</td></tr>
        {{/logs}}</table>
        </body>
        </html>

        """
}
