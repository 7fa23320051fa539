/// Where this process's last claim left off in the outbox's order of due pushes, `(next_attempt_at, id)`.
///
/// A transaction held open anywhere in the cluster keeps every row version younger than it from vacuum: each push
/// claimed leaves an entry for its pending version in the index of pending pushes, and a claim that scans that index
/// from its start visits every one of them again (the outbox fell from 1,400 to 150 pushes a second ten minutes into
/// such a transaction). A claim starts after the last push claimed instead; pushes are queued after it (a push's due
/// time is the store's clock at queueing, or later for a retry), so it misses nothing, save two kinds: a push whose
/// transaction committed after a claim had passed its place (it starts `margin` seconds of due times back, so only a
/// commit slower than that), and a push handed back by a stopped worker, which keeps its old due time. For those,
/// every `fullScanInterval` a claim starts from the beginning.
struct OutboxCursor: Sendable {
    /// How often a claim looks from the beginning.
    static let fullScanInterval: Duration = .seconds(5)
    /// How many seconds of due times before the last push claimed a claim looks again.
    static let margin: Int64 = 2

    private var position: (at: Int64, id: Int64)?
    private var lastFullScan: ContinuousClock.Instant?

    /// Where a claim starts: after the cursor, or from the beginning (nil) once `fullScanInterval` has passed.
    mutating func start() -> (at: Int64, id: Int64)? {
        let now = ContinuousClock.now
        if let last = lastFullScan, now - last < Self.fullScanInterval { return position.map(Self.backed) }
        lastFullScan = now
        return nil
    }

    private static func backed(_ position: (at: Int64, id: Int64)) -> (at: Int64, id: Int64) {
        (position.at - margin, Int64.min)
    }

    /// Where a look for the next due push starts: as a claim would, without counting as a look from the beginning.
    func peek() -> (at: Int64, id: Int64)? {
        guard let last = lastFullScan, ContinuousClock.now - last < Self.fullScanInterval else { return nil }
        return position.map(Self.backed)
    }

    /// A claim that started from the beginning (`fromStart`) or from the cursor took pushes up to `last`, the
    /// greatest it took (nil: none): the next one starts after it, or after a claim under way beside it that went
    /// further.
    mutating func claimed(upTo last: (at: Int64, id: Int64)?, fromStart: Bool) {
        guard let last else { return }
        if fromStart { position = last } else if let current = position, current > last {} else { position = last }
    }
}
