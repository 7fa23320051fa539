import Foundation
import Hummingbird
import WalletOrdersPackage
import WalletOrdersService

/// `GET /links/{reference}`: the order's current package, for whoever holds a live link (see `OrderLinks`).
/// Unknown, expired, revoked and used-up links answer the same 404 after the same work; downloads, found or not,
/// are limited per client address (`linkLimit`). `HEAD` answers as `GET` would, without the body and without
/// taking a download: mail scanners and link previews send one before a customer ever presses the link.
struct LinkDownloadRoute: Sendable {
    let service: OrderService
    var links: LinkService { LinkService(orders: service) }
    let guards: ClientGuards

    func add(to router: Router<ServiceRequestContext>) {
        router.get("\(OrderLinks.path)/:reference") { request, context in try await download(request, context, taking: true) }
        // A HEAD of its own: the one the router would otherwise make from the GET would use the link up.
        router.head("\(OrderLinks.path)/:reference") { request, context in
            try await download(request, context, taking: false).createHeadResponse()
        }
    }

    func download(_ request: Request, _ context: ServiceRequestContext, taking: Bool) async throws -> Response {
        try guards.take(guards.links, "links", client: context.clientAddress)
        let reference = context.parameters.get("reference") ?? ""
        let downloaded = try await links.download(reference: reference, client: context.clientAddress, taking: taking)
        var headers = HTTPFields()
        headers[.contentType] = PackageBuilder.contentType
        headers[.contentDisposition] = "attachment; filename=\"\(PackageFileName.of(downloaded.ownIdentifier)).order\""
        // The package is this customer's: no shared cache keeps it, and no page it came from is told where it went.
        headers[.cacheControl] = "private, no-store"
        headers[.init("referrer-policy")!] = "no-referrer"
        headers[.init("x-content-type-options")!] = "nosniff"
        headers[.lastModified] = HTTPDate.lastModified(downloaded.package.head.updatedAt, serviceNow: service.now())
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: downloaded.package.package))
    }
}
