import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP connection to the server under test, for clients no HTTP library would play: one that trickles
/// a request a byte at a time, or sends nothing at all. Non-blocking after connecting, so waiting never holds a
/// thread.
final class RawConnection {
    private let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw HarnessError("connect() failed: errno \(errno)")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(descriptor) }

    /// Sends `text`; false when the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { sendAll(descriptor, $0) } == bytes.count
    }

    /// Sends each of `texts` `interval` after the one before, from a thread of its own: a busy test process, whose
    /// tasks may wait seconds for a thread, cannot stretch the gaps. Answers whether every one was sent whole.
    func send(_ texts: [String], every interval: Duration) async -> Bool {
        let descriptor = descriptor
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) * 1e-18
        return await withCheckedContinuation { continuation in
            Thread {
                var all = true
                for text in texts {
                    Thread.sleep(forTimeInterval: seconds)
                    let bytes = Array(text.utf8)
                    if bytes.withUnsafeBytes({ sendAll(descriptor, $0) }) != bytes.count { all = false }
                }
                continuation.resume(returning: all)
            }.start()
        }
    }

    /// Whether the server has closed the connection (reading past whatever it sent).
    var isClosed: Bool {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { continue }
            if count == 0 { return true }
            return !(errno == EAGAIN || errno == EWOULDBLOCK)
        }
    }

    /// Waits up to `limit` for the server to close the connection; answers whether it did.
    func closes(within limit: Duration) async throws -> Bool {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            if isClosed { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return isClosed
    }

    /// What the server sends within `limit`, read until `complete` holds for it (or the server closes, or the
    /// time is up).
    func receive(within limit: Duration, until complete: (String) -> Bool = { _ in false }) async throws -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                received += buffer[0..<count]
                if complete(String(decoding: received, as: UTF8.self)) { break }
                continue
            }
            if count == 0 || !(errno == EAGAIN || errno == EWOULDBLOCK) { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Sends `request` and answers what the server sends back, read until a whole final response is in (see
    /// `holdsResponse`) or `limit` passes (generous: a loaded machine answers late, and a whole answer ends the wait).
    func exchange(_ request: String, within limit: Duration = .seconds(60)) async throws -> String {
        guard send(request) else { return "" }
        return try await receive(within: limit, until: Self.holdsResponse)
    }

    /// Whether `text` holds a whole final response: after any interim (1xx) ones, a head and as many bytes after
    /// it as its Content-Length says.
    static func holdsResponse(_ text: String) -> Bool {
        var rest = Substring(text)
        while let end = rest.range(of: "\r\n\r\n") {
            let head = rest[..<end.lowerBound]
            let after = rest[end.upperBound...]
            if head.hasPrefix("HTTP/1.1 1") {
                rest = after
                continue
            }
            let length =
                head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            return after.utf8.count >= length
        }
        return false
    }

    /// Sends `text` a byte at a time, `interval` apart, until the server closes the connection or `limit` passes;
    /// answers whether it was closed.
    func trickle(_ text: String, every interval: Duration, giveUpAfter limit: Duration) async throws -> Bool {
        let clock = ContinuousClock()
        let end = clock.now + limit
        var remaining = Substring(text)
        while clock.now < end {
            if isClosed { return true }
            if let byte = remaining.first {
                remaining = remaining.dropFirst()
                if !send(String(byte)) { return true }
            }
            try await Task.sleep(for: interval)
        }
        return isClosed
    }
}

/// `send(2)` without SIGPIPE, outside the class whose `send` would shadow it.
private func sendAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
}
