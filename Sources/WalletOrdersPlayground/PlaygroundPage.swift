import Foundation
import Hummingbird
import WalletOrdersDevice
import WalletOrdersHTTP
import WalletOrdersModel
import WalletOrdersService

/// `GET /playground`: edit an order (validated as you type), pay, watch a simulated device register, update, and
/// follow the push, the listing and the conditional fetch in a transcript, with a preview of the order the device
/// holds and the checkout's code for it. One page (a Mustache template), its stylesheet and its scripts, files of
/// this module (`PlaygroundAssets`) served from here: no build step, nothing fetched from elsewhere.
///
/// The page is open in development; with an order type configured it is off unless `playground` is true, and then
/// behind the admin key. Its script calls the merchant API and the routes below with the playground's own key
/// (`Playground.key`), written into the page: never a merchant key, and in production one that speaks only for
/// merchant `playground`.
public struct PlaygroundPage: Sendable {
    let playground: Playground?
    let webServiceURL: String

    static let bodyLimit = 64 * 1_024

    /// The page for `playground` (nil: the routes answer that the playground is off) of the service at
    /// `webServiceURL`.
    public init(playground: Playground?, webServiceURL: String) {
        self.playground = playground
        self.webServiceURL = webServiceURL
    }

    /// Adds `/playground` and its routes to `router`, the page behind `adminGate` unless the playground is open.
    public func add(to router: Router<ServiceRequestContext>, adminGate: AdminKeyMiddleware?) {
        let pageGroup = router.group("playground")
        if case .adminKey? = playground?.access {
            // No admin key to check, no page: the playground never opens by mistake.
            guard let adminGate else {
                pageGroup.get { _, _ -> Response in throw Self.off }
                return
            }
            pageGroup.add(middleware: adminGate)
        }
        pageGroup.get { _, _ in try page() }
        // Read now, at start, rather than at the first page.
        _ = PlaygroundAssets.loaded
        let assets: [(String, @Sendable (PlaygroundAssets) -> StaticAsset)] = [
            ("playground/playground.css", { $0.stylesheet }), ("playground/playground.js", { $0.script }),
            ("playground/source.js", { $0.sourceScript }),
        ]
        for (path, asset) in assets {
            router.get(RouterPath(path)) { request, _ in asset(try PlaygroundAssets.loaded.get()).response(to: request) }
        }
        let api = router.group("playground/devices")
        if let playground { api.add(middleware: BearerKeyMiddleware(keys: [playground.key])) }
        api.post { request, _ in try await addDevice(request) }
        api.get(":device") { _, context in try await device(context) }
        api.get(":device/preview") { request, context in try await preview(request, context) }
    }

    private static let off = APIError(
        .notFound,
        "the playground is off: it is on in development; with an order type configured it is on only "
            + "with WALLET_ORDERS_PLAYGROUND=true, behind the admin key (WALLET_ORDERS_ADMIN_KEY)"
    )

    private func enabled() throws -> Playground {
        guard let playground else { throw Self.off }
        return playground
    }

    func page() throws -> Response {
        let playground = try enabled()
        let notes: String
        if !playground.hasDevices {
            notes =
                "No simulated device here: this service pushes through Apple's APNs, which cannot reach one. "
                + "Pay and Update still create and change real orders."
        } else if !playground.pushesReachDevices {
            notes = "Pushes go to the APNs the configuration names, not to the playground's devices."
        } else {
            notes = "Development: pushes go to the embedded local APNs, which hands them to the playground's devices."
        }
        let assets = try PlaygroundAssets.loaded.get()
        // Every value escaped by the template ({{…}}); the script reads the key and the URL from meta elements.
        let html = assets.page.render([
            "key": playground.key,
            "devices": playground.hasDevices ? "on" : "off",
            "notes": notes,
            "publicURL": webServiceURL,
            "sample": assets.sampleOrder,
            "stylesheet": assets.stylesheet.href,
            "script": assets.script.href,
            "sourceScript": assets.sourceScript.href,
        ])
        var response = Self.text(html, type: "text/html; charset=utf-8")
        // Scripts and the stylesheet are files of this server: nothing inline is allowed.
        response.headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'self'; connect-src 'self'; "
            + "style-src 'self'; img-src data:; frame-ancestors 'none'; form-action 'none'; base-uri 'none'"
        response.headers[.init("referrer-policy")!] = "no-referrer"
        return response
    }

    func addDevice(_ request: Request) async throws -> Response {
        let playground = try enabled()
        guard playground.hasDevices else {
            throw APIError(.conflict, "the playground has no simulated devices here: this service pushes through Apple's APNs")
        }
        let data = Data(buffer: try await request.body.collect(upTo: Self.bodyLimit))
        let details: OrderDetails
        do {
            details = try OrderDetails(json: data)
        } catch {
            throw APIError(.badRequest, "the body must be orderDetails JSON: \(error)")
        }
        // The device reaches the service it lives in, and nothing else.
        guard details.webServiceURL == webServiceURL else {
            throw APIError(
                .badRequest,
                "orderDetails.webServiceURL must be this service's, \(webServiceURL)",
                problems: [OrderProblem(path: "webServiceURL", message: "is not \(webServiceURL)")]
            )
        }
        let identifier = try await playground.addDevice(for: details)
        guard let device = playground.device(identifier) else { throw APIError(.notFound, "no such device") }
        return JSONResponse.make(.created, await state(of: device, in: playground))
    }

    func device(_ context: ServiceRequestContext) async throws -> Response {
        let playground = try enabled()
        let device = try found(context, in: playground)
        return JSONResponse.make(.ok, await state(of: device, in: playground))
    }

    func preview(_ request: Request, _ context: ServiceRequestContext) async throws -> Response {
        let playground = try enabled()
        let device = try found(context, in: playground)
        guard let held = await device.device.order(device.details.orderTypeIdentifier, device.details.orderIdentifier) else {
            throw APIError(.notFound, "the device holds no version of the order")
        }
        let preview: OrderPreview
        do {
            preview = try OrderPreview(package: held.package)
        } catch {
            throw APIError(.unprocessableContent, "the package the device holds cannot be read: \(error)")
        }
        let html = try preview.html(localization: request.uri.queryParameters.get("localization"), version: held.versions)
        return Self.text(html, type: "text/html; charset=utf-8")
    }

    private func found(_ context: ServiceRequestContext, in playground: Playground) throws -> Playground.Device {
        let identifier = try context.parameters.identifier("device")
        guard let device = playground.device(identifier) else { throw APIError(.notFound, "no such device") }
        return device
    }

    private func state(of device: Playground.Device, in playground: Playground) async -> JSONValue {
        let held = await device.device.order(device.details.orderTypeIdentifier, device.details.orderIdentifier)
        var members: [String: JSONValue] = [
            "device": .string(device.device.identifier),
            "pushToken": .string(device.device.pushToken),
            "holdsOrder": .bool(held != nil),
            "registered": .bool(held?.isRegistered ?? false),
            "versions": .int(held?.versions ?? 0),
            "entries": .array(playground.transcript(of: device).map(\.json)),
        ]
        if let held, let preview = try? OrderPreview(package: held.package) {
            members["localizations"] = .array(preview.localizations.map(JSONValue.string))
            members["status"] = held.order["status"] ?? .null
        }
        return .object(members)
    }

    private static func text(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-store"
        headers[.init("x-content-type-options")!] = "nosniff"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
