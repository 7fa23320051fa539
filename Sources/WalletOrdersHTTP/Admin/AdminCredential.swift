import Foundation
import Hummingbird
import WalletOrdersModel
import WalletOrdersService

/// The admin key as people's browsers and tools send it: a Bearer token, or the password of HTTP Basic
/// authentication (any user name), so that a browser asks for it.
public enum AdminCredential {
    /// nil when `request` carries `adminKey` (as a Bearer token, or as the password of HTTP Basic authentication);
    /// otherwise the 401 that makes a browser ask for it.
    public static func refusal(_ request: Request, adminKey: String) -> Response? {
        let basicPassword = request.credential(scheme: "Basic")
            .flatMap { Data(base64Encoded: $0) }
            .flatMap { String(data: $0, encoding: .utf8) }
            .flatMap { $0.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).last.map(String.init) }
        if let key = request.credential(scheme: "Bearer") ?? basicPassword, ConstantTime.equals(key, adminKey) { return nil }
        var headers = HTTPFields()
        headers[.wwwAuthenticate] = #"Basic realm="wallet-orders admin", charset="UTF-8""#
        headers[.contentType] = "application/json"
        return Response(
            status: .unauthorized,
            headers: headers,
            body: ResponseBody(
                byteBuffer: ByteBuffer(
                    bytes: JSONValue.object(
                        ["error": .string("missing or wrong credentials")]).serialized()
                )
            )
        )
    }
}
