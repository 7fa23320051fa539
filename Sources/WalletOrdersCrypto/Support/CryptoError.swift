import COpenSSL

/// A failure inside OpenSSL, with what was being done and what OpenSSL said about it.
public struct CryptoError: Error, CustomStringConvertible, Sendable {
    /// What was being attempted, in words a user can act on.
    public let operation: String
    /// OpenSSL's own reasons, oldest first; empty when OpenSSL gave none.
    public let reasons: [String]

    /// Captures and clears OpenSSL's error queue for this thread.
    init(_ operation: String) {
        self.operation = operation
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.reasons = reasons
    }

    /// An APNs key that is not an elliptic-curve P-256 key.
    public static var notP256: CryptoError { CryptoError("the APNs key is not an ES256 (P-256) key") }

    public var description: String {
        guard let last = reasons.last else { return operation }
        return "\(operation) (\(last))"
    }
}

/// Clears errors left on OpenSSL's per-thread queue by calls that were allowed to fail.
func clearOpenSSLErrors() {
    ERR_clear_error()
}
