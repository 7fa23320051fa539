import Foundation
import Hummingbird
import WalletOrdersModel
import WalletOrdersPackage
import WalletOrdersService
import WalletOrdersStore

/// The order list with its search and filters, one order's page, its package, and the two actions.
extension AdminConsole {
    /// `GET /admin`: `q` (an order identifier, order number, tracking number, device identifier, push token start
    /// or merchant slug), `status`, `type`, `merchant` (a slug), `from` and `until` (creation days, `2026-11-26`,
    /// both included), `sort` (`newest` or `oldest`), `after` (the cursor of the page before), `limit`.
    @Sendable func orderList(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let search = query.get("q").flatMap { $0.isEmpty ? nil : $0 }
        if let search, search.utf8.count > 256 { throw APIError(.badRequest, "q must be at most 256 bytes") }
        var filter = OrderFilter()
        var problems: [OrderProblem] = []
        if let text = query.get("status"), !text.isEmpty {
            if let status = Order.Status(rawValue: text) {
                filter.status = status
            } else {
                problems.append(OrderProblem(path: "status", message: "must be open, completed or cancelled"))
            }
        }
        if let type = query.get("type"), !type.isEmpty { filter.type = type }
        var merchant: Merchant?
        if let slug = query.get("merchant"), !slug.isEmpty {
            if let found = try await service.merchants.merchant(slug: slug) {
                merchant = found
                filter.merchant = found.id
            } else {
                problems.append(OrderProblem(path: "merchant", message: "is no merchant's slug"))
            }
        }
        for (name, keyPath, days) in [("from", \OrderFilter.createdFrom, 0.0), ("until", \OrderFilter.createdBefore, 1)] {
            guard let text = query.get(name), !text.isEmpty else { continue }
            guard let start = RFC3339Day.start(of: text) else {
                problems.append(OrderProblem(path: name, message: "must be a day: 2026-11-26"))
                continue
            }
            filter[keyPath: keyPath] = start.addingTimeInterval(days * 86_400)
        }
        switch query.get("sort") ?? "newest" {
        case "newest", "": break
        case "oldest": filter.oldestFirst = true
        default: problems.append(OrderProblem(path: "sort", message: "must be newest or oldest"))
        }
        var limit = Self.pageSize
        if let text = query.get("limit") {
            if let value = Int(text), (1...Self.maxPageSize).contains(value) {
                limit = value
            } else {
                problems.append(OrderProblem(path: "limit", message: "must be a whole number from 1 to \(Self.maxPageSize)"))
            }
        }
        var cursor: Int64?
        if let text = query.get("after") {
            if let value = Int64(text) {
                cursor = value
            } else {
                problems.append(OrderProblem(path: "after", message: "must be the cursor of a page before"))
            }
        }
        guard problems.isEmpty else { throw APIError(.badRequest, "the search is not valid", problems: problems) }

        let (page, named) = try await service.consoleOrders(
            search: search,
            filter: filter,
            page: PageRequest(limit: limit, before: cursor)
        )
        let merchants = try await service.merchants.all()
        let slugs = Dictionary(merchants.map { ($0.id, $0.slug) }, uniquingKeysWith: { first, _ in first })
        let kept: [(String, String?)] = [
            ("q", search), ("status", filter.status?.rawValue), ("type", filter.type), ("merchant", merchant?.slug),
            ("from", query.get("from").flatMap { $0.isEmpty ? nil : $0 }),
            ("until", query.get("until").flatMap { $0.isEmpty ? nil : $0 }), ("sort", filter.oldestFirst ? "oldest" : nil),
            ("limit", limit == Self.pageSize ? nil : String(limit)),
        ]
        var context: [String: Any] = [
            "q": search ?? "",
            "statuses": [["value": "", "label": "any status", "selected": filter.status == nil] as [String: Any]]
                + Order.Status.allCases.map {
                    ["value": $0.rawValue, "label": $0.rawValue, "selected": filter.status == $0] as [String: Any]
                },
            "types": [["value": "", "label": "any type", "selected": filter.type == nil] as [String: Any]]
                + service.orderTypes.keys.sorted().map { ["value": $0, "label": $0, "selected": filter.type == $0] },
            "merchant": merchant?.slug ?? "",
            // Slugs to pick from while there are few; past that, the field takes a slug typed.
            "merchants": (2...Self.merchantChoices).contains(merchants.count)
                ? merchants.map { ["slug": $0.slug, "name": $0.displayName] } : [],
            "from": query.get("from") ?? "",
            "until": query.get("until") ?? "",
            "oldest": filter.oldestFirst,
            "orders": page.records.map { order -> [String: Any] in
                [
                    "href": Self.link("/admin/order", [("type", order.orderTypeIdentifier), ("id", order.orderIdentifier)]),
                    "merchant": slugs[order.merchantID] ?? "\(order.merchantID)",
                    "type": order.orderTypeIdentifier, "id": order.orderIdentifier, "number": order.orderNumber ?? "",
                    "status": order.status.rawValue, "version": "\(order.version)", "devices": "\(order.registrations)",
                    "created": Self.time(order.createdAt), "updated": Self.time(order.updatedAt),
                ]
            },
            "empty": page.records.isEmpty,
            "multipleMerchants": merchants.count > 1,
        ]
        // Sections show for any value, an empty string included: a link that is not there is left out.
        if cursor != nil { context["first"] = Self.link("/admin", kept) }
        if let next = page.next { context["next"] = Self.link("/admin", kept + [("after", String(next))]) }
        if let named {
            context["notice"] = "The orders of merchant \(named.slug) (\(named.displayName)), whose slug you searched for."
        }
        return try render("Orders", tab: "orders", template: "orders", context, request: request)
    }

    /// `GET /admin/order?type=…&id=…`: everything about one order, its newest versions first; `before` (a version
    /// number) shows the versions below it instead.
    @Sendable func orderPage(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (type, id) = try orderName(request)
        var before: Int64?
        if let text = request.uri.queryParameters.get("before") {
            guard let value = Int64(text), value > 0 else {
                throw APIError(
                    .badRequest,
                    "before must be a version number",
                    problems: [
                        OrderProblem(path: "before", message: "must be a whole number above 0")
                    ]
                )
            }
            before = value
        }
        guard let story = try await service.orderStory(type: type, id: id, versionsBefore: before) else {
            throw APIError(.notFound, "there is no order \(id) of type \(type)")
        }
        let order = story.order
        let acting = isOperator(request)
        let named: [(String, String?)] = [("type", type), ("id", id)]
        var document = order.document.json
        if case .object(var fields) = document {
            fields["authenticationToken"] = .string("(hidden)")  // a secret: never shown
            document = .object(fields)
        }
        func json(_ value: JSONValue?) -> String {
            value.map { String(decoding: $0.serialized(), as: UTF8.self) } ?? "(none)"
        }
        var context: [String: Any] = [
            "id": id,
            "fields": [
                ["name": "Order type", "value": type], ["name": "Order identifier", "value": id],
                ["name": "Order number", "value": order.document["orderNumber"]?.stringValue ?? ""],
                [
                    "name": "Merchant",
                    "value": story.merchant.map { "\($0.slug) (\($0.displayName))" } ?? "\(order.merchantID)",
                ],
                ["name": "Status", "value": order.status.rawValue], ["name": "Version", "value": "\(order.version)"],
                ["name": "Created", "value": Self.time(order.createdAt)], ["name": "Updated", "value": Self.time(order.updatedAt)],
                ["name": "Devices", "value": "\(story.registrations.count)"],
            ],
            "acting": acting,
            "resend": Self.link("/admin/order/resend", named),
            "packageHref": Self.link("/admin/order/package", named),
            "versions": story.versions.map { version -> [String: Any] in
                var row: [String: Any] = [
                    "version": "\(version.version)", "written": Self.time(version.updatedAt), "by": version.author ?? "",
                    "status": version.status.rawValue, "created": version.version == 1,
                    "unknown": version.version > 1 && version.changes == nil,
                    "changes": (version.changes ?? []).map {
                        ["path": $0.path, "before": json($0.before), "after": json($0.after)]
                    },
                ]
                if version.changesLeftOut > 0 { row["more"] = "and \(version.changesLeftOut) more, not kept" }
                return row
            },
            "versionRange": story.versions.last.map { "\($0.version) to \(story.versions[0].version) of \(order.version)" }
                ?? "none below \(before ?? 0)",
            "devices": story.registrations.map {
                [
                    "device": $0.deviceIdentifier, "token": $0.pushToken, "registered": Self.time($0.createdAt),
                    "updated": Self.time($0.updatedAt),
                ]
            },
            "pushes": story.pushes.map { push -> [String: Any] in
                [
                    "id": "\(push.id)", "device": push.deviceIdentifier, "status": push.status.rawValue,
                    "attempts": "\(push.attempts)", "queued": Self.time(push.createdAt), "updated": Self.time(push.updatedAt),
                    "latency": push.status == .delivered
                        ? String(format: "%.0f s", push.updatedAt.timeIntervalSince(push.createdAt)) : "",
                    "error": push.lastError ?? "",
                ]
            },
            "links": story.links.map { link -> [String: Any] in
                let now = service.now()
                let state =
                    link.revokedAt != nil
                    ? "revoked" : (link.expiresAt <= now ? "expired" : (!link.reusable && link.downloads > 0 ? "used" : "live"))
                var row: [String: Any] = [
                    "id": link.id, "kind": link.reusable ? "reusable" : "one download", "created": Self.time(link.createdAt),
                    "expires": Self.time(link.expiresAt), "firstUsed": Self.time(link.firstUsedAt),
                    "downloads": "\(link.downloads)", "state": state, "revokedAt": Self.time(link.revokedAt),
                ]
                if acting && state == "live" {
                    row["revoke"] = Self.link("/admin/order/revoke-link", named + [("link", link.id)])
                }
                return row
            },
            "deliveries": story.deliveries.map {
                [
                    "id": "\($0.id)", "event": $0.event.rawValue, "endpoint": $0.endpointID, "status": $0.status.rawValue,
                    "attempts": "\($0.attempts)", "code": $0.lastStatusCode.map(String.init) ?? "",
                    "updated": Self.time($0.updatedAt), "error": $0.lastError ?? "",
                ]
            },
            "logs": story.logs.map {
                [
                    "received": Self.time($0.receivedAt), "lastSeen": Self.time($0.lastSeenAt), "count": "\($0.count)",
                    "from": $0.remoteAddress ?? "", "message": $0.message,
                ]
            },
        ]
        if before != nil { context["newestVersions"] = Self.link("/admin/order", named) }
        if let older = story.olderVersions {
            context["olderVersions"] = Self.link("/admin/order", named + [("before", String(older))])
        }
        let whole = document.serialized(pretty: true)
        context["document"] = JSONChange.cut(String(decoding: whole, as: UTF8.self), maxBytes: Self.documentShown)
        if whole.count > Self.documentShown {
            context["documentCut"] =
                "The order is \(whole.count) bytes: its first \(Self.documentShown) are shown. "
                + "wallet-orders admin order \(type) \(id) --json prints it whole."
        }
        // What an action did, said by the console itself: a link cannot make the page say anything else.
        let query = request.uri.queryParameters
        switch query.get("done") {
        case "resent": context["notice"] = "Pushes queued again: \(Int(query.get("count") ?? "") ?? 0)."
        case "revoked": context["notice"] = "Link revoked."
        default: break
        }
        do {
            let (package, report) = try await service.verifiedPackage(type: type, id: id)
            context["package"] =
                [
                    "valid": report.isValid, "bytes": "\(package.count)", "files": "\(report.files.count)",
                    "signer": report.signer ?? "", "signed": Self.time(report.signingTime),
                    "problems": report.problems, "warnings": report.warnings,
                ] as [String: Any]
        } catch let error as OrderServiceError {
            context["packageMissing"] = "\(error)"
        }
        return try render("Order \(id)", tab: "orders", template: "order", context, request: request)
    }

    /// `GET /admin/order/package?type=…&id=…` (operator key): the package a device gets now. Its `order.json`
    /// holds the order's `authenticationToken`, which the order's page hides: the admin key, which only reads what
    /// the console shows, may not take it.
    @Sendable func package(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        guard isOperator(request) else {
            throw APIError(
                .forbidden,
                "downloading a package needs the operator key (WALLET_ORDERS_OPERATOR_KEY), not the admin key: "
                    + "the package holds the order's authenticationToken"
            )
        }
        let (type, id) = try orderName(request)
        let (package, _) = try await service.verifiedPackage(type: type, id: id)
        var headers = HTTPFields()
        headers[.contentType] = PackageBuilder.contentType
        headers[.contentDisposition] = "attachment; filename=\"\(PackageFileName.of(id)).order\""
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: package)))
    }

    /// `POST /admin/order/resend?type=…&id=…` (operator key): a push to each of the order's devices again.
    @Sendable func resend(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try requireAction(request)
        let (type, id) = try orderName(request)
        guard let queued = try await service.resendPushes(type: type, id: id) else {
            throw APIError(.notFound, "there is no order \(id) of type \(type)")
        }
        return backToOrder(type, id, done: [("done", "resent"), ("count", String(queued))])
    }

    /// `POST /admin/order/revoke-link?type=…&id=…&link=…` (operator key).
    @Sendable func revokeLink(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try requireAction(request)
        let (type, id) = try orderName(request)
        guard let link = request.uri.queryParameters.get("link"), !link.isEmpty else {
            throw APIError(.badRequest, "link must name one of the order's links")
        }
        guard try await links.revoke(link, type: type, id: id) else {
            throw APIError(.notFound, "the order has no live link \(link)")
        }
        return backToOrder(type, id, done: [("done", "revoked")])
    }

    /// The order `type` and `id` name in the query.
    func orderName(_ request: Request) throws -> (String, String) {
        let query = request.uri.queryParameters
        guard let type = query.get("type"), !type.isEmpty, let id = query.get("id"), !id.isEmpty,
            type.utf8.count <= 256, id.utf8.count <= 256
        else { throw APIError(.badRequest, "type and id must name an order (1 to 256 bytes each)") }
        return (type, id)
    }

    /// Refuses an action without the operator key, or that another site's page made the browser send: a browser
    /// says where a form comes from in `Sec-Fetch-Site` or `Origin`, and the console's own forms are same-origin.
    func requireAction(_ request: Request) throws {
        guard isOperator(request) else {
            throw APIError(.forbidden, "this action needs the operator key (WALLET_ORDERS_OPERATOR_KEY), not the admin key")
        }
        if let site = request.headers[.init("sec-fetch-site")!] {
            guard site == "same-origin" else { throw APIError(.forbidden, "the action was not sent from the console") }
            return
        }
        guard let origin = request.headers[.origin], let host = request.head.authority,
            let originHost = URLComponents(string: origin).map({ parts in
                parts.port.map { "\(parts.host ?? ""):\($0)" } ?? parts.host ?? ""
            }),
            originHost == host
        else { throw APIError(.forbidden, "the action was not sent from the console") }
    }

    /// The 303 that takes the browser back to the order's page, saying what was `done`.
    func backToOrder(_ type: String, _ id: String, done: [(String, String?)]) -> Response {
        var headers = HTTPFields()
        headers[.location] = Self.link("/admin/order", [("type", type), ("id", id)] + done)
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }
}
