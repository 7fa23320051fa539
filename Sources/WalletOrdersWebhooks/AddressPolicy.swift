#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which addresses a webhook may be delivered to. A merchant names the URL, so a delivery is a request this server
/// makes on someone else's say: without this check a merchant could reach the server's own loopback services, the
/// private network behind it, or a cloud metadata service. Every address is checked after the name is resolved and
/// again on every connection (a name may resolve differently the second time).
public enum AddressPolicy {
    /// Whether a delivery may connect to `address` (4 or 16 bytes): a public unicast address.
    public static func isPublic(_ address: [UInt8]) -> Bool {
        switch address.count {
        case 4: isPublicIPv4(address)
        case 16: isPublicIPv6(address)
        default: false
        }
    }

    private static func isPublicIPv4(_ a: [UInt8]) -> Bool {
        switch (a[0], a[1]) {
        case (0, _), (10, _), (127, _): false  // "this network", private, loopback
        case (100, 64...127): false  // carrier-grade NAT
        case (169, 254): false  // link-local, where cloud metadata services answer
        case (172, 16...31), (192, 168): false  // private
        case (192, 0) where a[2] == 0: false  // IETF protocol assignments
        case (198, 18...19): false  // benchmarking
        case (224...255, _): false  // multicast, reserved, broadcast
        default: true
        }
    }

    private static func isPublicIPv6(_ a: [UInt8]) -> Bool {
        let zeros = a.prefix(10).allSatisfy { $0 == 0 }
        // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, which covers :: and ::1): the IPv4 address decides,
        // and `::`/`::1` are neither public.
        if zeros, a[10] == 0xff, a[11] == 0xff { return isPublicIPv4(Array(a.suffix(4))) }
        if zeros, a[10] == 0, a[11] == 0 {
            return a[12] == 0 && a[13] == 0 && a[14] == 0 && a[15] <= 1 ? false : isPublicIPv4(Array(a.suffix(4)))
        }
        // 64:ff9b::/96, NAT64: the IPv4 address behind it decides.
        if a.prefix(12) == [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] { return isPublicIPv4(Array(a.suffix(4))) }
        switch a[0] {
        case 0xfc, 0xfd: return false  // unique local (fd00:ec2::254 is a metadata service)
        case 0xff: return false  // multicast
        case 0xfe where a[1] & 0xc0 == 0x80: return false  // link-local fe80::/10
        case 0xfe where a[1] & 0xc0 == 0xc0: return false  // site-local fec0::/10, deprecated
        default: break
        }
        // 2001:db8::/32, documentation; 2002::/16 (6to4) carries an IPv4 address that decides.
        if a[0] == 0x20, a[1] == 0x01, a[2] == 0x0d, a[3] == 0xb8 { return false }
        if a[0] == 0x20, a[1] == 0x02 { return isPublicIPv4(Array(a[2..<6])) }
        return true
    }

    /// The bytes of the address a socket address holds: 4 for IPv4, 16 for IPv6, nil for anything else.
    public static func bytes(of address: UnsafePointer<sockaddr>) -> [UInt8]? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                withUnsafeBytes(of: inet.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet in
                withUnsafeBytes(of: inet.pointee.sin6_addr) { Array($0) }
            }
        default:
            return nil
        }
    }

    /// Every address `host` resolves to (an address literal is its own); throws when it resolves to none.
    public static func resolve(_ host: String) throws(AddressError) -> [[UInt8]] {
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

    /// An address as people write it.
    public static func text(_ address: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = address.count == 4 ? AF_INET : AF_INET6
        guard inet_ntop(family, address, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Why a webhook URL's host cannot be used.
public enum AddressError: Error, Equatable, CustomStringConvertible {
    case unresolved(String)
    case notPublic(host: String, address: String)

    public var description: String {
        switch self {
        case .unresolved(let host): "\(host) does not resolve to an address"
        case .notPublic(let host, let address):
            "\(host) resolves to \(address), which is not a public address (loopback, private, link-local and metadata addresses are refused)"
        }
    }
}
