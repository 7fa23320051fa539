import COpenSSL

/// What kind of key an `EVP_PKEY` holds, for public and private keys alike.
enum EVPKey {
    /// Whether `key` is an elliptic-curve key on P-256.
    static func isP256(_ key: OpaquePointer) -> Bool {
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else { return false }
        var name = [CChar](repeating: 0, count: 64)
        guard EVP_PKEY_get_group_name(key, &name, name.count, nil) == 1 else { return false }
        let group = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return group == "prime256v1" || group == "P-256"
    }
}
