import Foundation
import Hummingbird
import WalletOrdersCrypto
import WalletOrdersModel
import WalletOrdersService

/// The admin key as people's browsers and tools send it: a Bearer token, or the password of HTTP Basic
/// authentication (any user name), so that a browser asks for it.
enum AdminCredential {
    /// The key `request` carries: its Bearer token, or the password of its Basic credentials. Basic credentials are
    /// `user:password`; without the colon there is no password, and so no key.
    static func key(in request: Request) -> String? {
        if let bearer = request.credential(scheme: "Bearer") { return bearer }
        guard let encoded = request.credential(scheme: "Basic"), let data = Data(base64Encoded: encoded),
            let pair = String(data: data, encoding: .utf8), let colon = pair.firstIndex(of: ":")
        else { return nil }
        return String(pair[pair.index(after: colon)...])
    }

    /// The 401 that makes a browser ask for the key.
    static func challenge() -> Response {
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = #"Basic realm="wallet-orders admin", charset="UTF-8""#
        headers[.contentType] = "application/json"
        return Response(
            status: .unauthorized,
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: JSONValue.object(["error": .string("missing or wrong credentials")]).serialized()))
        )
    }
}

/// Lets a request through only with the admin key or the operator key (see `AdminCredential`), compared in constant
/// time: the operator may look wherever the admin may. Failures count against the client's authentication failures,
/// as merchant keys' do: past the limit, 429. Guards `/admin`, `/metrics` and, in production, `/playground`.
public struct AdminKeyMiddleware: RouterMiddleware {
    public typealias Context = ServiceRequestContext
    let adminKey: String
    let operatorKey: String?
    let guards: ClientGuards

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let key = AdminCredential.key(in: request)
        do {
            _ = try await guards.authenticatingKey(client: context.clientAddress, key: key) { () -> Bool? in
                guard let key else { return nil }
                // Both compared, whichever matches, so the time taken says nothing of which key was sent.
                let isAdmin = ConstantTime.equals(key, adminKey)
                let isOperator = operatorKey.map { ConstantTime.equals(key, $0) } ?? false
                return isAdmin || isOperator ? true : nil
            }
        } catch let error as APIError where error.status == .unauthorized {
            return AdminCredential.challenge()
        }
        return try await next(request, context)
    }
}
