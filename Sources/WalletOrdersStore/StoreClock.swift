import Foundation
import Synchronization

/// The time the service writes and compares: the store's clock (the database server's, with PostgreSQL), read
/// from time to time and carried forward in between by this process's monotonic clock.
///
/// Instances sharing a database compare the times each other wrote: an order's `updatedAt` and `Last-Modified`,
/// when a push falls due, until when a claim holds, when a link expires, when a provider token was issued. Each
/// read from its own wall clock, an instance an hour behind would take another's live claims for expired ones and
/// push twice, leave a dead instance's claims for an hour more, send a `Last-Modified` an hour older than the other
/// instance sent for the same version, and sign provider tokens APNs calls expired. Read from one clock, they agree;
/// and a step of this host's wall clock moves nothing here, since time between readings is measured by the
/// monotonic clock.
///
/// Each store owns one (`StoreLifecycle.clock`) and reads every time it writes or compares from it; the service
/// reads the same one, and the application keeps it synchronized with the store while it runs.
public final class StoreClock: Sendable {
    /// How often the store's clock is read again (it keeps time better than this process's monotonic clock, which
    /// drifts a little and stops while the machine sleeps).
    public static let interval: Duration = .seconds(60)

    private struct State {
        var reading: (time: Date, at: ContinuousClock.Instant)?
        var latest = Date.distantPast
        var pinned: Date?
    }

    private let wall: @Sendable () -> Date
    private let state = Mutex(State())

    /// A clock that answers `wall` until the store's clock has been read.
    public init(wall: @escaping @Sendable () -> Date = Date.init) {
        self.wall = wall
    }

    /// The current time by the store's clock, or by the wall clock while the store's has never been read.
    public func now() -> Date {
        state.withLock { state in
            if let pinned = state.pinned { return pinned }
            guard let reading = state.reading else { return wall() }
            let elapsed = (ContinuousClock.now - reading.at).components
            let time = reading.time.addingTimeInterval(Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
            // A new reading a little below the last answer (the round trip's middle is a guess) must not make time
            // go back; a store whose own clock stepped back is followed, as every instance follows it.
            if time < state.latest, state.latest.timeIntervalSince(time) < 1 { return state.latest }
            state.latest = time
            return time
        }
    }

    /// Stops the clock at `time`, whatever the store's clock says, until pinned elsewhere: for tests that say when
    /// each call happens (the `at(_:)` of WalletOrdersTesting).
    public func pin(at time: Date) {
        state.withLock { $0.pinned = time }
    }

    /// Reads the store's clock.
    public func synchronize(with store: any StoreLifecycle) async throws {
        // The store read its clock somewhere within the round trip: its middle is the best guess, off by half the
        // round trip at most. A busy process or database stretches some trips to seconds, so of three readings the
        // one with the shortest trip is kept (as NTP does): two instances then agree within milliseconds.
        var best: (time: Date, at: ContinuousClock.Instant, trip: Duration)?
        for _ in 0..<3 {
            let before = ContinuousClock.now
            let time = try await store.time()
            let after = ContinuousClock.now
            let trip = after - before
            if best.map({ trip < $0.trip }) ?? true { best = (time, before + trip / 2, trip) }
        }
        if let best { state.withLock { $0.reading = (best.time, best.at) } }
    }

    /// Reads the store's clock every `interval` until the task is cancelled; a failed reading leaves the last one
    /// in use.
    public func keepSynchronized(with store: any StoreLifecycle) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.interval)
            if Task.isCancelled { break }
            try? await synchronize(with: store)
        }
    }
}
