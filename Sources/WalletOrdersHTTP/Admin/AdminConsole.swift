import Foundation
import Hummingbird
import Mustache
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersService
import WalletOrdersStore

/// `/admin`: the operator's console, pages rendered on the server from Mustache templates, with no script and nothing
/// fetched from elsewhere than its own stylesheet (`/admin/console.css`).
/// `/admin` finds orders (one search box, filters, pages), `/admin/order` tells one order's whole story, and
/// `/admin/activity` draws what happened day by day.
///
/// Behind the admin key, sent as a Bearer token or as the password of HTTP Basic authentication (so a browser asks
/// for it); off without an admin key. The operator key is accepted too, and only with it do the pages offer, and the
/// server take, the two actions: sending an order's pushes again and revoking one of its links. An action is a form
/// posted from the console itself: a request another site's page makes the browser send is refused.
struct AdminConsole: Sendable {
    let service: OrderService
    var links: LinkService { LinkService(orders: service) }
    /// The admin key's guard; nil without an admin key, and then the console is off.
    let gate: AdminKeyMiddleware?
    let operatorKey: String?
    let charts = ActivityCache()

    /// Rows on a page of the order list unless `limit` says otherwise, and the most it may say.
    static let pageSize = 50
    static let maxPageSize = 500
    /// The most merchants the merchant filter offers to pick from.
    static let merchantChoices = 100
    /// The most bytes of an order's document its page shows (an order may be up to 5 MB).
    static let documentShown = 256 * 1_024

    func add(to router: Router<ServiceRequestContext>) {
        guard let gate else {
            let off: @Sendable (Request, ServiceRequestContext) async throws -> Response = { _, _ in
                throw APIError(.notFound, "the admin console is off: set adminKey (WALLET_ORDERS_ADMIN_KEY)")
            }
            for path in ["admin", "admin/order", "admin/order/package", "admin/activity", "admin/console.css"] {
                router.get(RouterPath(path), use: off)
            }
            for path in ["admin/order/resend", "admin/order/revoke-link"] { router.post(RouterPath(path), use: off) }
            return
        }
        // The templates and the stylesheet are read now, at start, rather than at the first page.
        _ = ConsoleResources.loaded
        let console = router.group("admin").add(middleware: gate)
        console.get(use: orderList)
        console.get("order", use: orderPage)
        console.get("order/package", use: package)
        console.post("order/resend", use: resend)
        console.post("order/revoke-link", use: revokeLink)
        console.get("activity", use: activityPage)
        console.get("console.css") { request, _ in try ConsoleResources.loaded.get().stylesheet.response(to: request) }
    }

    /// Whether `request` carries the operator key: it may act, not only look.
    func isOperator(_ request: Request) -> Bool {
        guard let operatorKey, let key = AdminCredential.key(in: request) else { return false }
        return ConstantTime.equals(key, operatorKey)
    }

    /// A page: the template named `template` rendered with `context` (every string in it shown as `VisibleText`,
    /// `RawHTML` as it is) inside the console's layout.
    func render(_ title: String, tab: String, template: String, _ context: [String: Any], request: Request) throws -> Response {
        let resources = try ConsoleResources.loaded.get()
        let body = try resources.template(template).render(Self.visible(context))
        let layout: [String: Any] = [
            "title": VisibleText(text: title),
            "stylesheet": VisibleText(text: resources.stylesheet.href),
            "body": RawHTML(html: body),
            "ordersTab": tab == "orders",
            "activityTab": tab == "activity",
            "generatedAt": VisibleText(text: RFC3339.format(service.now())),
            "role": VisibleText(text: isOperator(request) ? "operator key: actions on" : "admin key: read-only"),
        ]
        let page = try resources.template("layout").render(layout)
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        // The stylesheet is the console's own file: no style in the page, and no script at all.
        headers[.contentSecurityPolicy] =
            "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        headers[.init("x-content-type-options")!] = "nosniff"
        headers[.init("referrer-policy")!] = "same-origin"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    /// `value` with every string in it made `VisibleText`, which the templates put in as HTML.
    static func visible(_ value: Any) -> Any {
        switch value {
        case let text as String: VisibleText(text: text)
        case let members as [String: Any]: members.mapValues(visible)
        case let elements as [Any]: elements.map(visible)
        default: value
        }
    }

    /// `path` with `items` as its query, each value percent-encoded; items without a value are left out.
    static func link(_ path: String, _ items: [(String, String?)]) -> String {
        var components = URLComponents()
        components.path = path
        let present = items.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        if !present.isEmpty { components.queryItems = present }
        // `+` is a space in a form's query: encode it, as URLComponents does not.
        return (components.string ?? path).replacingOccurrences(of: "+", with: "%2B")
    }

    /// A date as the console shows it, or an empty string.
    static func time(_ date: Date?) -> String {
        date.map(RFC3339.format) ?? ""
    }
}

/// HTML the console made itself (a chart, a page inside the layout): put in as it is.
struct RawHTML: MustacheCustomRenderable {
    let html: String
    var renderText: String { html }
    var isNull: Bool { false }
}
