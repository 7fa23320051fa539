import Foundation
import Logging
import WalletOrdersStore

/// Sends what an outbox holds and records each outcome, for any `OutboxLane`. The outbox is the source of truth:
/// work survives restarts, and any number of instances can run a worker on one database.
///
/// A worker claims due jobs under a lease that it renews while it lives. When an instance dies, its claims run out
/// and any worker's heartbeat puts them back; a live instance's claims are never taken. Up to `roundsInFlight`
/// rounds are under way at once, so that while one round's jobs travel the next is claimed and the last recorded.
/// Outcomes are recorded in a task of their own, asked again while the store refuses the write: a worker stopped
/// mid-round still records what it sent. Workers wake when the store says work was queued (by this instance or,
/// with PostgreSQL, any other), when the next job falls due, and at least every `idleWait`.
public final class OutboxWorker<Lane: OutboxLane>: Sendable {
    /// Rounds under way at once.
    public static var roundsInFlight: Int { 4 }
    /// How often a worker renews its claims, takes back expired ones and looks at what to prune.
    public static var heartbeat: Duration { .seconds(10) }
    /// How often finished work past its retention is deleted.
    static var pruneInterval: TimeInterval { 3_600 }

    /// This worker's name in the claims it makes: unique per process.
    public let owner: String
    /// What the worker sends.
    public let lane: Lane
    private let events: any StoreLifecycle
    private let logger: Logger
    private let idleWait: Duration
    private let signal = WakeSignal()

    /// A worker for `lane`, woken by the events of `events` (the store), looking at least every `idleWait`; `role`
    /// names it in its claims' owner.
    public init(lane: Lane, events: any StoreLifecycle, logger: Logger, idleWait: Duration, role: String? = nil) {
        self.lane = lane
        self.events = events
        self.logger = logger
        self.idleWait = idleWait
        owner = OutboxClaim.newOwner(role: role)
    }

    /// Tells the worker that work may be waiting, so it need not wait for its next look.
    public func wake() {
        signal.wake()
    }

    /// Sends until the task is cancelled; then hands back the jobs it still holds.
    public func run() async {
        let stream = events.events()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.listen(to: stream) }
            group.addTask { await self.keepClaims() }
            await sendUntilCancelled()
            group.cancelAll()
        }
        // A round in progress has finished and recorded its outcomes; anything still held (a round whose outcomes
        // could not be recorded) goes back now rather than when its lease runs out. This task is cancelled by now
        // (that is how a worker is stopped), and the stores give up at once on a cancelled task (GRDB throws
        // CancellationError before it writes): the hand-back runs in a task of its own.
        let (lane, owner) = (lane, owner)
        do {
            let released = try await Task { try await lane.releaseClaims(owner: owner) }.value
            if released > 0 { logger.info("handed back \(lane.name) on stopping", metadata: ["count": "\(released)"]) }
        } catch {
            logger.error(
                "cannot hand back \(lane.name) on stopping; they return when their lease ends",
                metadata: ["error": "\(error)"]
            )
        }
    }

    /// Wakes the worker for each event of `stream` that says work may be waiting, until the stream ends.
    private func listen(to stream: AsyncStream<StoreEvent>) async {
        for await event in stream {
            if lane.wakes(on: event) { signal.wake() }
        }
    }

    /// Stops what the lane sends through, once the worker has stopped for good (by whoever made it).
    public func shutdown() async {
        await lane.shutdown()
    }

    /// Sends one round of due work and records the outcomes (asking again while the store refuses the write);
    /// returns how many jobs were sent.
    @discardableResult
    public func sendDue() async throws -> Int {
        let jobs = try await lane.claim(OutboxClaim(owner: owner, lease: lane.lease), limit: lane.batchSize)
        guard !jobs.isEmpty else { return 0 }
        try await deliver(jobs)
        return jobs.count
    }

    private func sendUntilCancelled() async {
        await withTaskGroup(of: Void.self) { rounds in
            var inFlight = 0
            var claims = RetryPause()
            while !Task.isCancelled {
                if inFlight == Self.roundsInFlight {
                    await rounds.next()
                    inFlight -= 1
                    continue
                }
                var jobs: [Lane.Job] = []
                var pause: Duration?
                do {
                    jobs = try await lane.claim(OutboxClaim(owner: owner, lease: lane.lease), limit: lane.batchSize)
                    claims.succeeded()
                } catch {
                    pause = claims.failed()
                    if !Task.isCancelled {
                        logger.error(
                            "cannot claim \(lane.name)",
                            metadata: ["error": "\(error)", "retry_in": "\(pause ?? .zero)"]
                        )
                    }
                }
                if !jobs.isEmpty {
                    inFlight += 1
                    rounds.addTask {
                        do {
                            try await self.deliver(jobs)
                        } catch {
                            // Stopped before the outcomes could be recorded: the claims are handed back on stopping.
                            self.logger.error("cannot record \(self.lane.name) outcomes", metadata: ["error": "\(error)"])
                        }
                    }
                    continue
                }
                // Nothing due now: let a round under way finish first, since a retry it records may be due at once.
                if inFlight > 0 {
                    await rounds.next()
                    inFlight -= 1
                    continue
                }
                var wait = idleWait
                if let pause {
                    // The store refuses writes (its disk full, its server restarting): due work must not make this
                    // ask again at once.
                    wait = min(wait, pause)
                } else if let due = try? await lane.nextDue() {
                    // At least a little: work due now that could not be claimed must not make this spin.
                    let seconds = min(max(due.timeIntervalSince(lane.clock.now()), 0.05), 3_600)
                    wait = min(wait, .milliseconds(Int64(seconds * 1_000)))
                }
                await signal.wait(timeout: wait)
            }
        }
    }

    /// Renews this worker's claims, takes back the claims of workers that stopped renewing theirs, and deletes
    /// finished work past its retention every hour.
    private func keepClaims() async {
        var lastPrune = ContinuousClock.now - .seconds(Self.pruneInterval)
        while !Task.isCancelled {
            do {
                _ = try await lane.renewClaims(owner: owner, lease: lane.lease)
                let reclaimed = try await lane.reclaimExpiredClaims()
                if reclaimed > 0 {
                    logger.notice(
                        "took back \(lane.name) whose worker stopped renewing its claim",
                        metadata: ["count": "\(reclaimed)"]
                    )
                    signal.wake()
                }
                if ContinuousClock.now - lastPrune >= .seconds(Self.pruneInterval) {
                    lastPrune = .now
                    let pruned = try await lane.prune(olderThan: lane.retention)
                    if pruned > 0 { logger.info("deleted old finished \(lane.name)", metadata: ["count": "\(pruned)"]) }
                }
            } catch {
                logger.error("cannot renew \(lane.name) claims", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: Self.heartbeat)
        }
    }

    /// Sends claimed jobs and records every outcome in one write.
    private func deliver(_ jobs: [Lane.Job]) async throws {
        let round = await lane.send(jobs)
        // Recorded in a task of its own: a worker stopped while the round was under way still records what it sent
        // (a store gives up at once on a cancelled task, and the work would go out again). A store that refuses the
        // write is asked again, with growing pauses, while the worker runs: the claims stay held and renewed
        // meanwhile, and left unrecorded they would stay held until the worker stops.
        let (lane, owner) = (lane, owner)
        var retries = RetryPause()
        while true {
            do {
                try await Task { try await lane.record(round, owner: owner) }.value
                break
            } catch {
                guard !Task.isCancelled else { throw error }
                let pause = retries.failed()
                logger.error(
                    "cannot record \(lane.name) outcomes",
                    metadata: ["error": "\(error)", "retry_in": "\(pause)"]
                )
                try? await Task.sleep(for: pause)
            }
        }
        lane.recorded(round)
    }
}
