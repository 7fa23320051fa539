import COpenSSL
import Foundation

/// HMAC-SHA256, as webhook signatures use it.
public enum HMACSHA256 {
    /// The authentication code of `message` under `key`: 32 bytes.
    public static func code(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length = 0
        let made = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBufferPointer { messageBytes in
                EVP_Q_mac(
                    nil,
                    "HMAC",
                    nil,
                    "SHA256",
                    nil,
                    keyBytes.baseAddress,
                    keyBytes.count,
                    messageBytes.baseAddress,
                    messageBytes.count,
                    &output,
                    output.count,
                    &length
                )
            }
        }
        // EVP_Q_mac fails only without HMAC or SHA-256, which every OpenSSL build has: a broken OpenSSL.
        precondition(made != nil && length == 32, "OpenSSL could not compute HMAC-SHA256")
        return output
    }
}
