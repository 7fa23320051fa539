import Foundation
import NIOCore
import PostgresNIO
import WalletOrdersModel
import WalletOrdersStore

/// The parcels orders follow, and the tracking events kept for idempotency and for orders that do not hold their
/// tracking number yet.
extension PostgresStore {
    /// Replaces the parcels an order follows with those `order` names, when it names them, in the write's
    /// transaction. A parcel keeps the time of the last event applied to it while its tracking number stays the
    /// same, unless the write brings a time of its own. It is heard of now, and a stall found before ends, when it is
    /// new or the write is news of it (`TrackedParcel.isNews`: the service decides).
    func replaceTracking(_ connection: PostgresConnection, _ order: OrderWrite) async throws {
        guard let parcels = order.tracking else { return }
        let now = clock.now()
        let type = order.orderTypeIdentifier
        let id = order.orderIdentifier
        let fulfillments = parcels.map(\.fulfillmentIdentifier)
        try await connection.query(
            """
            DELETE FROM order_tracking
            WHERE order_type_identifier = \(type) AND order_identifier = \(id)
              AND NOT (fulfillment_identifier = ANY(\(fulfillments)::text[]))
            """,
            logger: logger
        )
        // One statement a parcel (an order has one or two): whether the write is news of it is bound per parcel.
        for parcel in parcels {
            try await connection.query(
                """
                INSERT INTO order_tracking AS t (order_type_identifier, order_identifier, fulfillment_identifier, merchant_id,
                                                 tracking_number, carrier, last_event_at, in_transit, heard_at)
                VALUES (\(type), \(id), \(parcel.fulfillmentIdentifier), \(order.merchantID), \(parcel.trackingNumber),
                        \(parcel.carrier), \(parcel.lastEventAt?.unixSeconds), \(parcel.inTransit ?? false), \(now.unixSeconds))
                ON CONFLICT (order_type_identifier, order_identifier, fulfillment_identifier) DO UPDATE SET
                    carrier = excluded.carrier,
                    last_event_at = CASE WHEN excluded.tracking_number = t.tracking_number
                                         THEN COALESCE(excluded.last_event_at, t.last_event_at)
                                         ELSE excluded.last_event_at END,
                    heard_at = CASE WHEN \(parcel.isNews) THEN excluded.heard_at ELSE t.heard_at END,
                    stalled_at = CASE WHEN \(parcel.isNews) THEN NULL ELSE t.stalled_at END,
                    in_transit = excluded.in_transit,
                    tracking_number = excluded.tracking_number
                """,
                logger: logger
            )
        }
    }

    /// The columns `parcel(_:)` and `fulfillment(_:)` read.
    static let parcelColumns = """
        order_type_identifier, order_identifier, fulfillment_identifier, merchant_id, tracking_number, carrier,
        last_event_at, in_transit, heard_at, stalled_at
        """

    public func trackedFulfillments(trackingNumbers: [String], merchantIDs: [Int64]) async throws -> [TrackedFulfillment] {
        guard !trackingNumbers.isEmpty, !merchantIDs.isEmpty else { return [] }
        return try await client.query(
            """
            SELECT \(unescaped: Self.parcelColumns) FROM order_tracking
            WHERE tracking_number = ANY(\(trackingNumbers)::text[]) AND merchant_id = ANY(\(merchantIDs)::bigint[])
            """,
            logger: logger
        ).map { try Self.fulfillment(Columns($0)) }
    }

    public func trackedParcels(type: String, id: String) async throws -> [TrackedParcel] {
        try await client.query(
            """
            SELECT \(unescaped: Self.parcelColumns) FROM order_tracking
            WHERE order_type_identifier = \(type) AND order_identifier = \(id) ORDER BY fulfillment_identifier
            """,
            logger: logger
        ).map { try Self.parcel(Columns($0)) }
    }

    /// The query `quietParcels` runs: its conditions are those of `order_tracking_quiet`, which holds only parcels
    /// that may stall, so that a pass reads those alone, however many delivered ones the merchant keeps.
    static func quietParcelsQuery(merchantID: Int64, heardBefore: Date, limit: Int) -> PostgresQuery {
        """
        SELECT \(unescaped: parcelColumns) FROM order_tracking
        WHERE merchant_id = \(merchantID) AND stalled_at IS NULL AND in_transit IS NOT FALSE
          AND heard_at < \(heardBefore.unixSeconds)
        ORDER BY heard_at LIMIT \(limit)
        """
    }

    public func quietParcels(merchantID: Int64, heardBefore: Date, limit: Int) async throws -> [TrackedFulfillment] {
        try await client.query(
            Self.quietParcelsQuery(merchantID: merchantID, heardBefore: heardBefore, limit: limit),
            logger: logger
        ).map { try Self.fulfillment(Columns($0)) }
    }

    public func markStalled(_ parcel: TrackedFulfillment, heardBefore: Date) async throws {
        try await client.query(
            """
            UPDATE order_tracking SET stalled_at = \(clock.now().unixSeconds)
            WHERE order_type_identifier = \(parcel.orderTypeIdentifier) AND order_identifier = \(parcel.orderIdentifier)
              AND fulfillment_identifier = \(parcel.parcel.fulfillmentIdentifier)
              AND tracking_number = \(parcel.parcel.trackingNumber) AND heard_at < \(heardBefore.unixSeconds)
              AND stalled_at IS NULL
            """,
            logger: logger
        )
    }

    public func receiveTrackingEvents(_ events: [TrackingEventRecord]) async throws -> [TrackingEventState?] {
        let now = clock.now()
        guard !events.isEmpty else { return [] }
        // One statement: the events that were new come back; the states of the others are read in the same snapshot.
        // The first of two alike in `events` is found by a window, not a scan of the batch per event (quadratic:
        // a second for 4,000 events).
        let rows = try await client.query(
            """
            WITH sent AS (
                SELECT * FROM unnest(\(events.map(\.source))::text[], \(events.map(\.id))::text[],
                                     \(events.map(\.trackingNumber))::text[], \(events.map { String(decoding: $0.body, as: UTF8.self) })::text[])
                    WITH ORDINALITY AS e(source, event_id, tracking_number, body, n)
            ), inserted AS (
                INSERT INTO tracking_events (source, event_id, tracking_number, body, state, received_at)
                SELECT DISTINCT ON (source, event_id) source, event_id, tracking_number, body, 'received', \(now.unixSeconds)
                FROM sent ORDER BY source, event_id, n
                ON CONFLICT (source, event_id) DO NOTHING
                RETURNING source, event_id
            )
            SELECT s.n, (i.event_id IS NOT NULL AND s.first) AS new, k.state
            FROM (SELECT *, row_number() OVER (PARTITION BY source, event_id ORDER BY n) = 1 AS first FROM sent) s
            LEFT JOIN inserted i ON i.source = s.source AND i.event_id = s.event_id
            LEFT JOIN tracking_events k ON k.source = s.source AND k.event_id = s.event_id
            ORDER BY s.n
            """,
            logger: logger
        )
        return try rows.map { row -> TrackingEventState? in
            let columns = Columns(row)
            if try columns["new"] as Bool { return nil }
            // An event new in this statement is not visible to its own snapshot: the second of two alike in `events`.
            let state: String? = try columns["state"]
            return state.flatMap(TrackingEventState.init(rawValue:)) ?? .received
        }
    }

    public func settleTrackingEvents(_ settled: [(source: String, id: String, state: TrackingEventState)]) async throws {
        guard !settled.isEmpty else { return }
        try await client.query(
            """
            UPDATE tracking_events e SET state = s.state
            FROM unnest(\(settled.map(\.source))::text[], \(settled.map(\.id))::text[],
                        \(settled.map(\.state.rawValue))::text[]) AS s(source, event_id, state)
            WHERE e.source = s.source AND e.event_id = s.event_id
            """,
            logger: logger
        )
    }

    public func forgetTrackingEvents(_ events: [(source: String, id: String)]) async throws {
        guard !events.isEmpty else { return }
        try await client.query(
            """
            DELETE FROM tracking_events e
            USING unnest(\(events.map(\.source))::text[], \(events.map(\.id))::text[]) AS f(source, event_id)
            WHERE e.source = f.source AND e.event_id = f.event_id AND e.state = 'received'
            """,
            logger: logger
        )
    }

    /// The query `waitingTrackingEvents` runs: found by `tracking_events_waiting`, on the tracking number and the
    /// sender.
    static func waitingTrackingEventsQuery(trackingNumbers: [String], sources: [String]) -> PostgresQuery {
        """
        SELECT source, event_id, tracking_number, body FROM tracking_events
        WHERE tracking_number = ANY(\(trackingNumbers)::text[]) AND state IN ('received', 'pending')
          AND source = ANY(\(sources)::text[])
        ORDER BY received_at, event_id
        """
    }

    public func waitingTrackingEvents(trackingNumbers: [String], sources: [String]) async throws -> [TrackingEventRecord] {
        guard !trackingNumbers.isEmpty, !sources.isEmpty else { return [] }
        return try await client.query(
            Self.waitingTrackingEventsQuery(trackingNumbers: trackingNumbers, sources: sources),
            logger: logger
        ).map { row in
            let columns = Columns(row)
            let body: String = try columns["body"]
            return TrackingEventRecord(
                source: try columns["source"],
                id: try columns["event_id"],
                trackingNumber: try columns["tracking_number"],
                body: Data(body.utf8)
            )
        }
    }

    /// How PostgreSQL plans `waitingTrackingEvents` for these arguments: the lines of `EXPLAIN`. For tests that
    /// hold the plan.
    package func waitingTrackingEventsPlan(trackingNumbers: [String], sources: [String]) async throws -> [String] {
        let query = Self.waitingTrackingEventsQuery(trackingNumbers: trackingNumbers, sources: sources)
        return try await client.query(PostgresQuery(unsafeSQL: "EXPLAIN " + query.sql, binds: query.binds), logger: logger)
            .map { try $0.decode(String.self) }
    }

    public func waitingTrackingEventCount(source: String) async throws -> Int {
        try await count("SELECT count(*) FROM tracking_events WHERE source = \(source) AND state IN ('received', 'pending')")
    }

    public func pruneTrackingEvents(olderThan age: TimeInterval) async throws -> Int {
        let date = clock.now().addingTimeInterval(-age)
        return try await count(
            "WITH gone AS (DELETE FROM tracking_events WHERE received_at < \(date.unixSeconds) RETURNING 1) SELECT count(*) FROM gone"
        )
    }

    private static func parcel(_ columns: Columns) throws -> TrackedParcel {
        TrackedParcel(
            fulfillmentIdentifier: try columns["fulfillment_identifier"],
            trackingNumber: try columns["tracking_number"],
            carrier: try columns["carrier"],
            lastEventAt: (try columns["last_event_at"] as Int64?).map(Date.init(unixSeconds:)),
            inTransit: try columns["in_transit"],
            heardAt: Date(unixSeconds: try columns["heard_at"]),
            stalledAt: (try columns["stalled_at"] as Int64?).map(Date.init(unixSeconds:))
        )
    }

    private static func fulfillment(_ columns: Columns) throws -> TrackedFulfillment {
        TrackedFulfillment(
            orderTypeIdentifier: try columns["order_type_identifier"],
            orderIdentifier: try columns["order_identifier"],
            merchantID: try columns["merchant_id"],
            parcel: try parcel(columns)
        )
    }
}
