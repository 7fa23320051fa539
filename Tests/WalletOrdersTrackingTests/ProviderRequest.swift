import Foundation
import Testing
import WalletOrdersModel
import WalletOrdersTesting

/// A webhook request as a provider sends it: the body's bytes and its headers, lowercased, signed by the `openssl`
/// command as the provider's documentation says it signs, never by the code under test.
struct ProviderRequest {
    var body: [UInt8]
    var headers: [String: String]

    /// AfterShip's: `aftership-hmac-sha256`, the base64 of the body's HMAC-SHA256 under the secret's UTF-8 bytes.
    static func afterShip(_ body: [UInt8], secret: String) async throws -> ProviderRequest {
        let hex = hexKey(Array(secret.utf8))
        let signed = try await Command.run(
            "/bin/sh",
            ["-c", "openssl dgst -sha256 -mac HMAC -macopt hexkey:\(hex) -binary | openssl base64 -A"],
            input: Data(body)
        )
        try #require(signed.status == 0, "\(signed.error)")
        return ProviderRequest(body: body, headers: ["aftership-hmac-sha256": signed.output, "content-type": "application/json"])
    }

    /// EasyPost's: `x-hmac-signature`, `hmac-sha256-hex=` and the hex of the body's HMAC-SHA256 under `key`, the bytes
    /// EasyPost keys it with (the secret's NFKD form, in UTF-8).
    static func easyPost(_ body: [UInt8], key: [UInt8]) async throws -> ProviderRequest {
        let signed = try await Command.run(
            "openssl",
            ["dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:\(hexKey(key))", "-r"],
            input: Data(body)
        )
        try #require(signed.status == 0, "\(signed.error)")
        // `-r` prints `<hex> *stdin`.
        let hex = try #require(signed.output.split(separator: " ").first)
        return ProviderRequest(body: body, headers: ["x-hmac-signature": "hmac-sha256-hex=\(hex)", "content-type": "application/json"])
    }

    /// The bytes of Tests/Fixtures/tracking/`name`.
    static func fixture(_ name: String) throws -> [UInt8] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return Array(try Data(contentsOf: folder.appendingPathComponent("Fixtures/tracking/\(name)")))
    }

    private static func hexKey(_ key: [UInt8]) -> String {
        key.map { String(format: "%02x", $0) }.joined()
    }
}

/// `body`, a JSON object, with `change` made to its members: compact JSON, keys sorted.
func edited(_ body: [UInt8], _ change: (inout [String: JSONValue]) -> Void) throws -> [UInt8] {
    Array(edited(try JSONValue.parse(Data(body)), change).serialized())
}

/// `value`, a JSON object, with `change` made to its members.
func edited(_ value: JSONValue?, _ change: (inout [String: JSONValue]) -> Void) -> JSONValue {
    var members = value?.objectValue ?? [:]
    change(&members)
    return .object(members)
}

/// The instant of an RFC 3339 date-time written in a test.
func instant(_ text: String) throws -> Date {
    try #require(RFC3339.parseDateTime(text))
}
