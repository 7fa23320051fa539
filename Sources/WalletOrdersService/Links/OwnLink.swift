import Foundation
import WalletOrdersCrypto
import WalletOrdersStore

/// An order's own download link, for the shop's emails and pages: reusable until it expires, given in every webhook
/// about the order and with the lookup by order number, and kept nowhere. Its reference names the order and when the
/// link expires, and carries the HMAC-SHA256 of both under the order's authentication token, which only the service
/// and the order's holders know (and which already lets them fetch it): no one can make one for another order, or
/// make one live longer. A new one is made each time one is given out, `OrderLinks.maxLifetime` long.
///
/// `o1.{type}.{id}.{expires}.{mac}`, the type, identifier and code in base64url, the expiry in Unix seconds.
enum OwnLink {
    static let version = "o1"
    /// The longest reference read: a type and an identifier of 255 bytes each, with room to spare.
    static let maxReferenceLength = 1_024

    /// The reference of `type`/`id`'s own link, expiring at `expiresAt`.
    static func reference(type: String, id: String, token: String, expiresAt: Date) -> String {
        let expires = expiresAt.unixSeconds
        let mac = code(type: type, id: id, expires: expires, token: token)
        return [version, Base64URL.encode(Data(type.utf8)), Base64URL.encode(Data(id.utf8)), String(expires), Base64URL.encode(Data(mac))]
            .joined(separator: ".")
    }

    /// What an own link's `reference` claims: the order and when the link expires, and the code to check with the
    /// order's token; nil for anything that is not an own link's reference.
    static func claim(_ reference: String) -> (type: String, id: String, expiresAt: Date, code: Data)? {
        guard reference.utf8.count <= maxReferenceLength, reference.hasPrefix(version + ".") else { return nil }
        let parts = reference.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5, let type = Base64URL.decode(parts[1]), let id = Base64URL.decode(parts[2]),
            let expires = Int64(parts[3]), let code = Base64URL.decode(parts[4]), code.count == 32,
            let typeText = String(data: type, encoding: .utf8), let idText = String(data: id, encoding: .utf8)
        else { return nil }
        return (typeText, idText, Date(unixSeconds: expires), code)
    }

    /// Whether `claimed` is the code of the claim under `token`, compared in constant time.
    static func isValid(_ claimed: Data, type: String, id: String, expiresAt: Date, token: String) -> Bool {
        let expected = code(type: type, id: id, expires: expiresAt.unixSeconds, token: token)
        return ConstantTime.equals(Base64URL.encode(claimed), Base64URL.encode(Data(expected)))
    }

    private static func code(type: String, id: String, expires: Int64, token: String) -> [UInt8] {
        HMACSHA256.code(key: Array(token.utf8), message: Array("\(version)\n\(type)\n\(id)\n\(expires)".utf8))
    }
}

extension OrderService {
    /// A new own link of the order `type`/`id` whose authentication token is `token`, for a month from now: the URL
    /// a shop's email or page puts behind Apple's "Add to Apple Wallet" button.
    public func ownLinkURL(type: String, id: String, token: String) -> String {
        let expiresAt = Date(unixSeconds: now().unixSeconds + Int64(OrderLinks.maxLifetime))
        return "\(webServiceURL)/\(OrderLinks.path)/\(OwnLink.reference(type: type, id: id, token: token, expiresAt: expiresAt))"
    }
}

extension LinkService {
    /// The current package of the order an own link names, when the link is valid and has not expired; every
    /// other answer is `linkNotFound`, as for any link that does not serve.
    func download(own claim: (type: String, id: String, expiresAt: Date, code: Data)) async throws -> LinkDownload {
        let now = orders.now()
        guard claim.expiresAt > now, claim.expiresAt.timeIntervalSince(now) <= TimeInterval(OrderLinks.maxLifetime + 60),
            orders.orderTypes[claim.type] != nil
        else { throw OrderServiceError.linkNotFound }
        // The code is checked against the order's head before any package work, so that a made-up link costs one
        // read and never an assembly or a signature.
        let head = try await orders.priority.device { try await orders.store.orders.orderHead(type: claim.type, id: claim.id) }
        guard let head,
            OwnLink.isValid(claim.code, type: claim.type, id: claim.id, expiresAt: claim.expiresAt, token: head.authenticationToken)
        else { throw OrderServiceError.linkNotFound }
        let package: FetchedPackage
        do {
            package = try await orders.priority.device { try await orders.currentPackage(type: claim.type, id: claim.id) }
        } catch OrderServiceError.orderNotFound {
            throw OrderServiceError.linkNotFound
        }
        var own = claim.id
        if let colon = own.firstIndex(of: ":"), let merchant = try await orders.merchants.merchant(slug: String(own[..<colon])) {
            own = merchant.ownIdentifier(claim.id)
        }
        return LinkDownload(package: package, ownIdentifier: own, use: nil)
    }
}
