import COpenSSL
import Foundation

/// Scoped OpenSSL memory BIOs, so no BIO outlives the call that needs it.
enum MemoryBIO {
    /// Runs `body` with a read-only BIO over `data`; the BIO never outlives the call.
    static func reading<T>(_ data: Data, _ body: (OpaquePointer) throws -> T) throws -> T {
        try data.withUnsafeBytes { raw -> T in
            // An empty buffer still needs a valid pointer for BIO_new_mem_buf.
            let base = raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
            guard let bio = BIO_new_mem_buf(base, Int32(raw.count)) else {
                throw CryptoError("allocating a memory buffer")
            }
            defer { BIO_free(bio) }
            return try body(bio)
        }
    }

    /// Runs `write` against an empty BIO and returns everything written to it.
    static func writing(_ operation: String, _ write: (OpaquePointer) -> Int32) throws -> Data {
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError("allocating a memory buffer") }
        defer { BIO_free(bio) }
        guard write(bio) > 0 else { throw CryptoError(operation) }
        var pointer: UnsafeMutablePointer<CChar>?
        let length = wo_BIO_get_mem_data(bio, &pointer)
        guard let pointer, length > 0 else { return Data() }
        return Data(bytes: pointer, count: length)
    }
}
