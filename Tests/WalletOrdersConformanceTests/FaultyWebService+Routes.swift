import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdTesting
import WalletOrdersAPNSServer
import WalletOrdersConformance
import WalletOrdersDevice
import WalletOrdersTesting

/// The faulty service behind a real HTTP server (https unless its fault is plain http) on a free port, with the two
/// merchant endpoints the kit's `--update` and `--unchanged-update` commands call with curl.
extension FaultyWebService {
    /// The HTTP application serving the service.
    nonisolated func application() throws -> some ApplicationProtocol {
        let router = Router()
        router.get("/v1/orders/:type/:id") { request, context in
            try await Self.response(
                self.fetch(
                    type: try context.parameters.require("type"),
                    id: try context.parameters.require("id"),
                    authorization: request.headers[.authorization],
                    ifModifiedSince: request.headers[.ifModifiedSince],
                    head: false
                )
            )
        }
        router.head("/v1/orders/:type/:id") { request, context in
            try await Self.response(
                self.fetch(
                    type: try context.parameters.require("type"),
                    id: try context.parameters.require("id"),
                    authorization: request.headers[.authorization],
                    ifModifiedSince: request.headers[.ifModifiedSince],
                    head: true
                )
            )
        }
        router.post("/v1/devices/:device/registrations/:type/:id") { request, context in
            let body = try await request.body.collect(upTo: 1 << 16)
            return await Self.response(
                self.register(
                    device: try context.parameters.require("device"),
                    type: try context.parameters.require("type"),
                    id: try context.parameters.require("id"),
                    authorization: request.headers[.authorization],
                    body: Data(buffer: body)
                )
            )
        }
        router.delete("/v1/devices/:device/registrations/:type/:id") { request, context in
            await Self.response(
                self.unregister(
                    device: try context.parameters.require("device"),
                    type: try context.parameters.require("type"),
                    id: try context.parameters.require("id"),
                    authorization: request.headers[.authorization]
                )
            )
        }
        router.get("/v1/devices/:device/registrations/:type") { request, context in
            await Self.response(
                self.listing(
                    device: try context.parameters.require("device"),
                    type: try context.parameters.require("type"),
                    since: request.uri.queryParameters["ordersModifiedSince"].map(String.init),
                    authorization: request.headers[.authorization]
                )
            )
        }
        router.post("/v1/log") { request, _ in
            let body = try await request.body.collect(upTo: 1 << 16)
            return await Self.response(self.log(Data(buffer: body)))
        }
        router.post("/control/update") { _, _ in await Self.response(self.update()) }
        router.post("/control/unchanged") { _, _ in await Self.response(self.unchangedUpdate()) }
        let server: HTTPServerBuilder =
            usesTLS ? try .tls(.http1(), tlsConfiguration: TestChain.shared.tls.serverConfiguration()) : .http1()
        return Application(router: router, server: server, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    private static func response(_ reply: Reply) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = reply.contentType
        headers[.lastModified] = reply.lastModified
        return Response(
            status: .init(code: reply.status),
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(data: reply.body))
        )
    }

    /// Runs the kit against a faulty service with `fault` (none: a service that does everything right), its pushes
    /// going to the kit's local APNs with `credential`; answers the kit's report.
    static func conformanceReport(
        fault: Fault?,
        credential: PushCredential = .token
    ) async throws -> ConformanceReport {
        let service = try FaultyWebService(fault: fault, credential: credential)
        let chain = TestChain.shared
        let folder = try TemporaryDirectory("faulty-service")
        let apnsIdentity = try LocalAPNS.TLSIdentity()
        let apnsCA = try folder.write("local-apns-ca.pem", Data(apnsIdentity.certificateAuthority.pem.utf8))
        let apnsPort = try freePort()
        return try await service.application().test(.live) { client in
            guard let port = client.port else { throw TestFailure("the faulty service has no port") }
            let base = "\(service.usesTLS ? "https" : "http")://127.0.0.1:\(port)"
            await service.start(base: base, pushTarget: .init(port: apnsPort, caFile: apnsCA))
            let control = "curl -sf --max-time 30 --cacert \(chain.httpsCAPath) -X POST \(base)/control"
            let configuration = ConformanceConfiguration(
                orderDetails: try OrderDetails(json: await service.orderDetailsJSON),
                trustedRoots: [chain.root],
                httpsRoots: [chain.tls.certificateAuthority],
                update: "\(control)/update",
                unchangedUpdate: "\(control)/unchanged",
                apns: .init(
                    host: "127.0.0.1",
                    port: apnsPort,
                    identity: apnsIdentity,
                    publicKey: try chain.apnsPublicKey(),
                    keyID: TestChain.apnsKeyID,
                    teamID: TestChain.teamID
                ),
                pushDeadline: .seconds(20),
                quietPeriod: .seconds(1)
            )
            return try await ConformanceKit.run(configuration)
        }
    }
}
