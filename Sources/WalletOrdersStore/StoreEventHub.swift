import Foundation
import Synchronization

/// Hands each store event to every current subscriber, in process. Subscribers that fall behind lose the
/// oldest events first: an event only says "look again", so the newest ones are what matters.
public final class StoreEventHub: Sendable {
    private let state = Mutex(State())

    private struct State {
        var subscribers: [UUID: AsyncStream<StoreEvent>.Continuation] = [:]
        var closed = false
    }

    public init() {}

    /// A new subscription, ended by `close()`.
    public func subscribe() -> AsyncStream<StoreEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: StoreEvent.self, bufferingPolicy: .bufferingNewest(1_024))
        let id = UUID()
        let accepted = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.subscribers[id] = continuation
            return true
        }
        guard accepted else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Tells every subscriber.
    public func publish(_ event: StoreEvent) {
        for continuation in state.withLock({ Array($0.subscribers.values) }) {
            continuation.yield(event)
        }
    }

    /// Ends every subscription, now and later.
    public func close() {
        let continuations = state.withLock { state -> [AsyncStream<StoreEvent>.Continuation] in
            state.closed = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
