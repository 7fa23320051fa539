import Foundation
import Hummingbird
import HummingbirdTLS
import WalletOrdersDevice

/// TLS in front of a plain-http server, as a deployment puts a proxy before `serve`: every request of the device API
/// passed on, the answer's status, body and caching headers passed back.
struct TLSFront {
    let upstream: String

    func application() throws -> some ApplicationProtocol {
        let client = try DeviceHTTPClient(timeout: .seconds(30))
        let upstream = upstream
        let forward: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let body = try await request.body.collect(upTo: 1 << 20)
            let passed = ["authorization", "content-type", "if-modified-since", "if-none-match"]
            let headers = request.headers.filter { passed.contains($0.name.canonicalName) }.map {
                DeviceHTTPClient.HeaderField($0.name.rawName, $0.value)
            }
            let answer = try await client.send(
                request.method.rawValue,
                upstream + request.uri.description,
                headers: headers,
                body: body.readableBytes > 0 ? Data(buffer: body) : nil
            )
            var fields = HTTPFields()
            fields[.contentType] = answer.header("Content-Type")
            fields[.lastModified] = answer.header("Last-Modified")
            fields[.eTag] = answer.header("ETag")
            fields[.cacheControl] = answer.header("Cache-Control")
            fields[.retryAfter] = answer.header("Retry-After")
            return Response(
                status: .init(code: answer.status),
                headers: fields,
                body: ResponseBody(byteBuffer: ByteBuffer(data: answer.body))
            )
        }
        let router = Router()
        router.get("**", use: forward)
        router.head("**", use: forward)
        router.post("**", use: forward)
        router.delete("**", use: forward)
        router.patch("**", use: forward)
        return Application(
            router: router,
            server: try .tls(.http1(), tlsConfiguration: TestChain.shared.tls.serverConfiguration()),
            configuration: .init(address: .hostname("127.0.0.1", port: 0))
        )
    }
}
