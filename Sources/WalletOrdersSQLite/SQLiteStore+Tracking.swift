import Foundation
import GRDB
import WalletOrdersModel
import WalletOrdersStore

/// The parcels orders follow, and the tracking events kept for idempotency and for orders that do not hold their
/// tracking number yet.
extension SQLiteStore {
    /// Replaces the parcels an order follows with those `order` names, when it names them (inside its write). A
    /// parcel keeps the time of the last event applied to it while its tracking number stays the same, unless the
    /// write brings a time of its own. It is heard of `now`, and a stall found before ends, when it is new or the
    /// write is news of it (`TrackedParcel.isNews`: the service decides).
    static func replaceTracking(_ db: Database, _ order: OrderWrite, now: Date) throws {
        guard let parcels = order.tracking else { return }
        let type = order.orderTypeIdentifier
        let id = order.orderIdentifier
        let kept = Set(parcels.map(\.fulfillmentIdentifier))
        for row in try Row.fetchAll(
            db,
            sql: "SELECT fulfillment_identifier FROM order_tracking WHERE order_type_identifier = ? AND order_identifier = ?",
            arguments: [type, id]
        ) where !kept.contains(row["fulfillment_identifier"]) {
            try db.execute(
                sql: """
                    DELETE FROM order_tracking
                    WHERE order_type_identifier = ? AND order_identifier = ? AND fulfillment_identifier = ?
                    """,
                arguments: [type, id, row["fulfillment_identifier"] as String]
            )
        }
        let upsert = try db.cachedStatement(
            sql: """
                INSERT INTO order_tracking (order_type_identifier, order_identifier, fulfillment_identifier, merchant_id,
                                            tracking_number, carrier, last_event_at, in_transit, heard_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (order_type_identifier, order_identifier, fulfillment_identifier) DO UPDATE SET
                    carrier = excluded.carrier,
                    last_event_at = CASE WHEN excluded.tracking_number = tracking_number
                                         THEN COALESCE(excluded.last_event_at, last_event_at)
                                         ELSE excluded.last_event_at END,
                    heard_at = CASE WHEN ? THEN excluded.heard_at ELSE heard_at END,
                    stalled_at = CASE WHEN ? THEN NULL ELSE stalled_at END,
                    in_transit = excluded.in_transit,
                    tracking_number = excluded.tracking_number
                """
        )
        for parcel in parcels {
            try upsert.execute(arguments: [
                type, id, parcel.fulfillmentIdentifier, order.merchantID, parcel.trackingNumber, parcel.carrier,
                parcel.lastEventAt?.unixSeconds, parcel.inTransit ?? false, now.unixSeconds, parcel.isNews, parcel.isNews,
            ])
        }
    }

    /// The columns `parcel(_:)` and `fulfillment(_:)` read.
    static let parcelColumns = """
        order_type_identifier, order_identifier, fulfillment_identifier, merchant_id, tracking_number, carrier,
        last_event_at, in_transit, heard_at, stalled_at
        """

    public func trackedFulfillments(trackingNumbers: [String], merchantIDs: [Int64]) async throws -> [TrackedFulfillment] {
        guard !trackingNumbers.isEmpty, !merchantIDs.isEmpty else { return [] }
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.parcelColumns) FROM order_tracking
                    WHERE tracking_number IN (SELECT value FROM json_each(?))
                      AND merchant_id IN (SELECT value FROM json_each(?))
                    """,
                arguments: [Self.jsonArray(trackingNumbers.map(JSONValue.string)), Self.jsonArray(merchantIDs.map { .int(Int($0)) })]
            ).map(Self.fulfillment)
        }
    }

    public func trackedParcels(type: String, id: String) async throws -> [TrackedParcel] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.parcelColumns) FROM order_tracking
                    WHERE order_type_identifier = ? AND order_identifier = ? ORDER BY fulfillment_identifier
                    """,
                arguments: [type, id]
            ).map(Self.parcel)
        }
    }

    /// The query `quietParcels` runs. The index is named: it holds only parcels that may stall, so that a pass over a
    /// merchant's parcels reads those alone, however many delivered ones the merchant keeps.
    static let quietParcelsSQL = """
        SELECT \(parcelColumns) FROM order_tracking INDEXED BY order_tracking_quiet
        WHERE merchant_id = ? AND stalled_at IS NULL AND in_transit IS NOT 0 AND heard_at < ?
        ORDER BY heard_at LIMIT ?
        """

    public func quietParcels(merchantID: Int64, heardBefore: Date, limit: Int) async throws -> [TrackedFulfillment] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: Self.quietParcelsSQL, arguments: [merchantID, heardBefore.unixSeconds, limit])
                .map(Self.fulfillment)
        }
    }

    public func markStalled(_ parcel: TrackedFulfillment, heardBefore: Date) async throws {
        let now = clock.now()
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE order_tracking SET stalled_at = ?
                    WHERE order_type_identifier = ? AND order_identifier = ? AND fulfillment_identifier = ?
                      AND tracking_number = ? AND heard_at < ? AND stalled_at IS NULL
                    """,
                arguments: [
                    now.unixSeconds, parcel.orderTypeIdentifier, parcel.orderIdentifier,
                    parcel.parcel.fulfillmentIdentifier, parcel.parcel.trackingNumber, heardBefore.unixSeconds,
                ]
            )
        }
    }

    public func receiveTrackingEvents(_ events: [TrackingEventRecord]) async throws -> [TrackingEventState?] {
        let now = clock.now()
        guard !events.isEmpty else { return [] }
        return try await write { db in
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO tracking_events (source, event_id, tracking_number, body, state, received_at)
                    VALUES (?, ?, ?, ?, 'received', ?)
                    ON CONFLICT (source, event_id) DO NOTHING
                    """
            )
            let existing = try db.cachedStatement(sql: "SELECT state FROM tracking_events WHERE source = ? AND event_id = ?")
            return try events.map { event -> TrackingEventState? in
                try insert.execute(arguments: [event.source, event.id, event.trackingNumber, event.body, now.unixSeconds])
                if db.changesCount == 1 { return nil }
                let state = try String.fetchOne(existing, arguments: [event.source, event.id])
                return state.flatMap(TrackingEventState.init(rawValue:)) ?? .received
            }
        }
    }

    public func settleTrackingEvents(_ settled: [(source: String, id: String, state: TrackingEventState)]) async throws {
        guard !settled.isEmpty else { return }
        try await write { db in
            let statement = try db.cachedStatement(sql: "UPDATE tracking_events SET state = ? WHERE source = ? AND event_id = ?")
            for event in settled { try statement.execute(arguments: [event.state.rawValue, event.source, event.id]) }
        }
    }

    public func forgetTrackingEvents(_ events: [(source: String, id: String)]) async throws {
        guard !events.isEmpty else { return }
        try await write { db in
            let statement = try db.cachedStatement(
                sql: "DELETE FROM tracking_events WHERE source = ? AND event_id = ? AND state = 'received'"
            )
            for event in events { try statement.execute(arguments: [event.source, event.id]) }
        }
    }

    /// The query `waitingTrackingEvents` runs. The index is named: without statistics (a database analysed while the
    /// table was small) the planner walked the senders' primary key instead, every event of theirs, for each write
    /// that adds a tracking number. `INDEXED BY` makes a schema that loses the index an error, not a slow plan.
    static let waitingTrackingEventsSQL = """
        SELECT source, event_id, tracking_number, body FROM tracking_events INDEXED BY tracking_events_waiting
        WHERE tracking_number IN (SELECT value FROM json_each(?)) AND state IN ('received', 'pending')
          AND source IN (SELECT value FROM json_each(?))
        ORDER BY received_at, event_id
        """

    public func waitingTrackingEvents(trackingNumbers: [String], sources: [String]) async throws -> [TrackingEventRecord] {
        guard !trackingNumbers.isEmpty, !sources.isEmpty else { return [] }
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: Self.waitingTrackingEventsSQL,
                arguments: Self.waitingArguments(trackingNumbers, sources)
            ).map { row in
                TrackingEventRecord(source: row["source"], id: row["event_id"], trackingNumber: row["tracking_number"], body: row["body"])
            }
        }
    }

    /// How SQLite plans `waitingTrackingEvents` for these arguments: the detail of each step of `EXPLAIN QUERY PLAN`.
    /// For tests that hold the plan.
    package func waitingTrackingEventsPlan(trackingNumbers: [String], sources: [String]) async throws -> [String] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: "EXPLAIN QUERY PLAN " + Self.waitingTrackingEventsSQL,
                arguments: Self.waitingArguments(trackingNumbers, sources)
            ).map { $0["detail"] as String }
        }
    }

    private static func waitingArguments(_ trackingNumbers: [String], _ sources: [String]) -> StatementArguments {
        [jsonArray(trackingNumbers.map(JSONValue.string)), jsonArray(sources.map(JSONValue.string))]
    }

    public func waitingTrackingEventCount(source: String) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(
                db,
                // Named as above: the primary key would count every event the sender keeps, applied ones too.
                sql: """
                    SELECT COUNT(*) FROM tracking_events INDEXED BY tracking_events_waiting_by_source
                    WHERE source = ? AND state IN ('received', 'pending')
                    """,
                arguments: [source]
            ) ?? 0
        }
    }

    public func pruneTrackingEvents(olderThan age: TimeInterval) async throws -> Int {
        let date = clock.now().addingTimeInterval(-age)
        return try await write { db in
            try db.execute(sql: "DELETE FROM tracking_events WHERE received_at < ?", arguments: [date.unixSeconds])
            return db.changesCount
        }
    }

    private static func parcel(_ row: Row) -> TrackedParcel {
        TrackedParcel(
            fulfillmentIdentifier: row["fulfillment_identifier"],
            trackingNumber: row["tracking_number"],
            carrier: row["carrier"],
            lastEventAt: (row["last_event_at"] as Int64?).map(Date.init(unixSeconds:)),
            inTransit: row["in_transit"],
            heardAt: Date(unixSeconds: row["heard_at"]),
            stalledAt: (row["stalled_at"] as Int64?).map(Date.init(unixSeconds:))
        )
    }

    private static func fulfillment(_ row: Row) -> TrackedFulfillment {
        TrackedFulfillment(
            orderTypeIdentifier: row["order_type_identifier"],
            orderIdentifier: row["order_identifier"],
            merchantID: row["merchant_id"],
            parcel: parcel(row)
        )
    }

    private static func jsonArray(_ values: [JSONValue]) -> String {
        String(decoding: JSONValue.array(values).serialized(), as: UTF8.self)
    }
}
