import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersShops
import WalletOrdersTesting

/// A UCP order webhook as a business sends it: `Content-Digest` made by `openssl dgst`, the RFC 9421 signature base
/// written out here line by line from RFC 9421 section 2.5, and the signature made by `openssl` with the business's key.
struct UCPRequest {
    static let components = [
        "@method", "@authority", "@path", "content-digest", "content-type", "webhook-id", "webhook-timestamp", "ucp-agent",
    ]

    var method = "POST"
    var authority = "orders.example.com"
    var path = "/hooks/ucp/conn_1"
    var body: [UInt8]
    var headers: [(name: String, value: String)]

    /// The fixture order, signed by `signer` over `components` with `parameters` after the covered list.
    static func signed(
        by signer: UCPSigner,
        body: [UInt8]? = nil,
        components: [String] = components,
        created: Int? = Int(ShopFixture.now.timeIntervalSince1970),
        extraParameters: String = "",
        label: String = "sig1"
    ) async throws -> UCPRequest {
        let body = try body ?? ShopFixture.bytes("ucp/order.json")
        let digest = try await Command.run("/bin/sh", ["-c", "openssl dgst -sha256 -binary | openssl base64 -A"], input: Data(body))
        try #require(digest.status == 0, "\(digest.error)")
        var request = UCPRequest(
            body: body,
            headers: [
                ("Content-Type", "application/json"),
                ("Content-Digest", "sha-256=:\(digest.output.trimmingCharacters(in: .whitespacesAndNewlines)):"),
                ("Webhook-Id", "evt_01HZX3K9"),
                ("Webhook-Timestamp", String(Int(ShopFixture.now.timeIntervalSince1970) - 5)),
                ("UCP-Agent", "profile=\"https://business.example.com/.well-known/ucp\""),
            ]
        )
        var parameters = created.map { ";created=\($0)" } ?? ""
        parameters += ";keyid=\"\(signer.kid)\"" + extraParameters
        let list = "(" + components.map { "\"\($0)\"" }.joined(separator: " ") + ")" + parameters
        let lines = components.map { "\"\($0)\": \(request.value(of: $0))" } + ["\"@signature-params\": \(list)"]
        let signature = try await signer.sign(lines.joined(separator: "\n"))
        request.headers.append(("Signature-Input", "\(label)=\(list)"))
        request.headers.append(("Signature", "\(label)=:\(signature.base64EncodedString()):"))
        return request
    }

    /// The request as the service hands it to the code under test.
    var request: UCPWebhook.Request {
        UCPWebhook.Request(method: method, authority: authority, path: path, headers: headers, body: body)
    }

    /// A component's value, written out as RFC 9421 section 2 says for each.
    func value(of component: String) -> String {
        switch component {
        case "@method": return method
        case "@authority": return authority
        case "@path": return path
        case "@target-uri": return "https://\(authority)\(path)"
        default: return headers.first { $0.name.lowercased() == component }?.value ?? ""
        }
    }

    /// The value of header `name`, and this request with it replaced.
    func header(_ name: String) -> String { headers.first { $0.name.lowercased() == name }?.value ?? "" }

    func replacing(_ name: String, with value: String?) -> UCPRequest {
        var copy = self
        copy.headers.removeAll { $0.name.lowercased() == name }
        if let value { copy.headers.append((name, value)) }
        return copy
    }
}
