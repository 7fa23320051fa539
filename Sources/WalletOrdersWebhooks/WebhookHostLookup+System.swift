import Foundation
import WalletOrdersWebhookModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension WebhookHostLookup {
    /// The system's resolver (`getaddrinfo`), off the caller's thread: resolving a name blocks. An address literal
    /// is its own address.
    public static let system = WebhookHostLookup { host throws(AddressError) in
        let resolved = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(AddressError) in try resolve(host) })
            }
        }
        return try resolved.get()
    }

    /// Every address `host` resolves to; throws when it resolves to none.
    private static func resolve(_ host: String) throws(AddressError) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let list else { throw AddressError.unresolved(host) }
        defer { freeaddrinfo(list) }
        var addresses: [[UInt8]] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            if let address = current.pointee.ai_addr, let bytes = bytes(of: address), !addresses.contains(bytes) {
                addresses.append(bytes)
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw AddressError.unresolved(host) }
        return addresses
    }

    /// The bytes of the address a socket address holds: 4 for IPv4, 16 for IPv6, nil for anything else.
    private static func bytes(of address: UnsafePointer<sockaddr>) -> [UInt8]? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                withUnsafeBytes(of: inet.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet in
                withUnsafeBytes(of: inet.pointee.sin6_addr) { Array($0) }
            }
        default:
            nil
        }
    }
}
