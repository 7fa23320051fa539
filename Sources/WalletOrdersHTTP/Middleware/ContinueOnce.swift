import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes
import Synchronization

extension ServiceRequestContext {
    /// Sends `100 Continue` now if the client waits for it and has not had it: for a handler that answers before it
    /// reads the body (a streamed answer), since an interim answer cannot follow the final one's head.
    func continueBeforeAnswering() async {
        await continueInterim?.sendIfFirst()
    }
}

/// `Expect: 100-continue` (RFC 9110, section 10.1.1) answered with `100 Continue` when the handler first reads the
/// request's body, once, however many times the body is read. A client that sends it waits for that answer before
/// its body (curl does, for large bodies), so a request refused before its body is read (a wrong key; a body whose
/// `Content-Length` is over the limit) gets its final answer at once and never sends the body, and any other gets its
/// body asked for.
final class ContinueOnce: Sendable {
    private let sent = Mutex(false)
    private let send: @Sendable () async -> Void

    init(_ send: @escaping @Sendable () async -> Void) {
        self.send = send
    }

    /// Whether `headers` hold the `100-continue` expectation (the field's value is case-insensitive).
    static func isExpected(_ headers: HTTPFields) -> Bool {
        headers[values: .expect].contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "100-continue" }
        }
    }

    /// Makes reading `request`'s body send `100 Continue` first, and tells `context` how to send it sooner.
    static func answer(_ request: inout Request, _ context: inout ServiceRequestContext) {
        let channel = context.channel
        let interim = ContinueOnce {
            // A connection gone by now fails the body's read that follows, which says so better than this write.
            try? await channel.writeAndFlush(HTTPResponsePart.head(HTTPResponse(status: .continue))).get()
        }
        request.body = RequestBody(asyncSequence: ContinuedBody(base: request.body, interim: interim))
        context.continueInterim = interim
    }

    func sendIfFirst() async {
        let first = sent.withLock { sent in
            defer { sent = true }
            return !sent
        }
        if first { await send() }
    }
}

/// A request's body that asks the client for it (`100 Continue`) when it is first read.
private struct ContinuedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let interim: ContinueOnce

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let interim: ContinueOnce

        mutating func next() async throws -> ByteBuffer? {
            await interim.sendIfFirst()
            return try await base.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), interim: interim)
    }
}
