import CCurl

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The C functions libcurl calls back, each with its handle's `CurlEasy` as data.
extension CurlEasy {
    /// Hands the answer's body to the handle it is for.
    static let write: wo_curl_write_callback = { data, size, count, user in
        guard let user else { return 0 }
        return Unmanaged<CurlEasy>.fromOpaque(user).takeUnretainedValue().take(data, count: size * count)
    }

    /// Opens a socket for a connection libcurl is about to make, unless the handle's check refuses its address.
    static let openSocket: wo_curl_opensocket_callback = { user, _, address in
        guard let user, let address else { return CURL_SOCKET_BAD }
        let easy = Unmanaged<CurlEasy>.fromOpaque(user).takeUnretainedValue()
        let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr) ?? 16
        let socketAddress = UnsafeRawPointer(address).advanced(by: offset).assumingMemoryBound(to: sockaddr.self)
        if let refusal = easy.reasonToRefuse(CurlEasy.bytes(of: socketAddress)) {
            easy.refusal = refusal
            return CURL_SOCKET_BAD
        }
        return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
    }

    /// The bytes of the address a socket address holds: 4 for IPv4, 16 for IPv6, nil for anything else.
    static func bytes(of address: UnsafePointer<sockaddr>) -> [UInt8]? {
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
