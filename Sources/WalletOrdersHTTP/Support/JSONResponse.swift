import Foundation
import Hummingbird
import WalletOrdersModel

/// JSON responses with sorted keys and the right content type.
public enum JSONResponse {
    /// A response of `status` with `body` as JSON (`Content-Type: application/json`).
    public static func make(_ status: HTTPResponse.Status = .ok, _ body: JSONValue, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: body.serialized())))
    }
}
