import Foundation
import GRDB
import WalletOrdersModel
import WalletOrdersStore

/// Devices registered for orders' updates: registering, unregistering, the changed-orders listing, resends.
extension SQLiteStore {
    public func register(
        device: String,
        type: String,
        id: String,
        pushToken: String,
        maxDevices: Int?,
        firstDevice: WebhookNotice?
    )
        async throws -> RegistrationOutcome
    {
        let now = clock.now()
        let (outcome, webhooks) = try await write { db -> (RegistrationOutcome, Int) in
            let existing = try String.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT push_token FROM registrations
                        WHERE device_identifier = ? AND order_type_identifier = ? AND order_identifier = ?
                        """
                ),
                arguments: [device, type, id]
            )
            if let existing {
                if existing != pushToken {
                    try db.execute(
                        sql: """
                            UPDATE registrations SET push_token = ?, updated_at = ?
                            WHERE device_identifier = ? AND order_type_identifier = ? AND order_identifier = ?
                            """,
                        arguments: [pushToken, now.unixSeconds, device, type, id]
                    )
                }
                return (.existing, 0)
            }
            if let maxDevices {
                let registered =
                    try Int.fetchOne(
                        db.cachedStatement(
                            sql: "SELECT COUNT(*) FROM registrations WHERE order_type_identifier = ? AND order_identifier = ?"
                        ),
                        arguments: [type, id]
                    ) ?? 0
                guard registered < maxDevices else { throw StoreError.tooManyDevices }
            }
            try db.cachedStatement(
                sql: """
                    INSERT INTO registrations (device_identifier, order_type_identifier, order_identifier, push_token,
                                               created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [device, type, id, pushToken, now.unixSeconds, now.unixSeconds])
            try db.cachedStatement(
                sql: """
                    UPDATE orders SET first_registered_at = ?
                    WHERE order_type_identifier = ? AND order_identifier = ? AND first_registered_at IS NULL
                    """
            ).execute(arguments: [now.unixSeconds, type, id])
            let webhooks = try Self.queueWebhooks(
                db,
                firstDevice.map { [$0] } ?? [],
                type: type,
                id: id,
                merchant: nil,
                soleDevice: device,
                now: now
            )
            return (.created, webhooks)
        }
        if webhooks > 0 { hub.publish(.webhooksQueued) }
        return outcome
    }

    public func unregister(device: String, type: String, id: String, lastDevice: WebhookNotice?) async throws {
        let now = clock.now()
        let webhooks = try await write { db -> Int in
            try db.execute(
                sql: """
                    DELETE FROM registrations
                    WHERE device_identifier = ? AND order_type_identifier = ? AND order_identifier = ?
                    """,
                arguments: [device, type, id]
            )
            guard db.changesCount == 1 else { return 0 }
            return try Self.queueWebhooks(
                db,
                lastDevice.map { [$0] } ?? [],
                type: type,
                id: id,
                merchant: nil,
                soleDevice: device,
                now: now
            )
        }
        if webhooks > 0 { hub.publish(.webhooksQueued) }
    }

    /// The listing's statement: a device's orders of a type with their change tags. CROSS JOIN fixes the join order in
    /// SQLite: the device's registrations by their key, then each order by its key. Nothing then depends on the
    /// planner's statistics; a plan that walked the order type instead answered in seconds at a million orders
    /// (`ListingPlanTests` holds the plan).
    static let changedOrdersSQL = """
        SELECT o.order_identifier, o.change_tag
        FROM registrations r
        CROSS JOIN orders o ON o.order_type_identifier = r.order_type_identifier
                           AND o.order_identifier = r.order_identifier
        WHERE r.device_identifier = ? AND r.order_type_identifier = ?
        """

    public func changedOrders(device: String, type: String, since tag: Int64?) async throws -> ChangedOrders? {
        try await pool.read { db in
            let statement = try db.cachedStatement(sql: Self.changedOrdersSQL)
            let rows = try Row.fetchAll(statement, arguments: [device, type])
            guard !rows.isEmpty else { return nil }
            let tagged: [(id: String, tag: Int64)] = rows.map { ($0["order_identifier"], $0["change_tag"]) }
            // One writer: a tag is visible once taken, so the newest tag is safe to hand out.
            let newest = tagged.map(\.tag).max() ?? 0
            let changed = tagged.filter { tag == nil || $0.tag > tag! }.sorted { $0.tag < $1.tag }.map(\.id)
            return ChangedOrders(orderIdentifiers: changed, lastModified: newest)
        }
    }

    public func registrations(_ filter: RegistrationFilter, limit: Int) async throws -> [Registration] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT device_identifier, order_type_identifier, order_identifier, push_token, created_at, updated_at
                    FROM registrations
                    WHERE (?1 IS NULL OR device_identifier = ?1) AND (?2 IS NULL OR order_type_identifier = ?2)
                      AND (?3 IS NULL OR order_identifier = ?3)
                    ORDER BY updated_at DESC, device_identifier LIMIT ?4
                    """,
                arguments: [filter.device, filter.type, filter.id, max(1, limit)]
            ).map(Self.registration)
        }
    }

    public func registrationCount(type: String, id: String) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM registrations WHERE order_type_identifier = ? AND order_identifier = ?
                    """,
                arguments: [type, id]
            ) ?? 0
        }
    }

    public func resendPushes(type: String, id: String) async throws -> Int? {
        let now = clock.now()
        let queued = try await write { db -> Int? in
            guard let order = try Self.fetchOrderRow(db, type: type, id: id) else { return nil }
            return try Self.queuePushes(db, type: type, id: id, merchant: order.merchantID, now: now)
        }
        if let queued, queued > 0 { hub.publish(.pushesQueued) }
        return queued
    }

    public func pruneFailedRegistrations() async throws -> Int {
        try await write { db in
            try db.execute(
                sql: """
                    DELETE FROM registrations AS r
                    WHERE EXISTS (
                        SELECT 1 FROM push_outbox AS f
                        WHERE f.status = 'failed' AND f.order_type_identifier = r.order_type_identifier
                          AND f.order_identifier = r.order_identifier AND f.push_token = r.push_token
                          AND NOT EXISTS (
                              SELECT 1 FROM push_outbox AS d
                              WHERE d.status IN ('delivered', 'pending', 'sending') AND d.id > f.id
                                AND d.order_type_identifier = f.order_type_identifier
                                AND d.order_identifier = f.order_identifier AND d.push_token = f.push_token))
                    """
            )
            return db.changesCount
        }
    }
}
