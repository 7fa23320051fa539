import Foundation
import Logging
import PostgresNIO
import WalletOrdersModel
import WalletOrdersStore

/// Devices registered for orders' updates: registering, unregistering, the changed-orders listing, resends.
extension PostgresStore {
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
        // xmax is 0 on a row this statement inserted, and the updating transaction's id on one it updated. A new
        // device past the cap selects no row to insert, so nothing comes back. The order's first device queues
        // `firstDevice` in the same statement; the WITH clauses see the registrations as they were before it, so "no
        // other device" is read as it should be.
        let notices = Self.noticeRows(
            merchant: "o.merchant_id",
            type: "$2",
            id: "$3",
            arrays: ("$7", "$8", "$9"),
            tables: ["orders o"],
            condition: """
                o.order_type_identifier = $2 AND o.order_identifier = $3 AND EXISTS (SELECT 1 FROM registered WHERE inserted)
                  AND NOT EXISTS (SELECT 1 FROM registrations WHERE order_type_identifier = $2 AND order_identifier = $3
                                  AND device_identifier <> $1)
                """
        )
        let sql = """
            WITH registered AS (
                INSERT INTO registrations AS r (device_identifier, order_type_identifier, order_identifier, push_token,
                                                created_at, updated_at)
                SELECT $1, $2, $3, $4, $5, $5
                WHERE $6::bigint IS NULL
                   OR EXISTS (SELECT 1 FROM registrations WHERE device_identifier = $1
                              AND order_type_identifier = $2 AND order_identifier = $3)
                   OR (SELECT count(*) FROM registrations WHERE order_type_identifier = $2 AND order_identifier = $3)
                      < $6::bigint
                ON CONFLICT (device_identifier, order_type_identifier, order_identifier) DO UPDATE
                    SET push_token = excluded.push_token,
                        updated_at = CASE WHEN r.push_token = excluded.push_token THEN r.updated_at ELSE excluded.updated_at END
                RETURNING (xmax = 0) AS inserted
            ), added AS (
                UPDATE orders SET first_registered_at = $5
                WHERE order_type_identifier = $2 AND order_identifier = $3 AND first_registered_at IS NULL
                  AND EXISTS (SELECT 1 FROM registered WHERE inserted)
            ), hooked AS (
                \(Self.webhookFanOut(from: notices, now: "$5"))
            )
            SELECT inserted, (SELECT count(*) FROM hooked) AS webhooks FROM registered
            """
        var bindings = PostgresBindings(capacity: 9)
        bindings.append(device)
        bindings.append(type)
        bindings.append(id)
        bindings.append(pushToken)
        bindings.append(clock.now().unixSeconds)
        bindings.append(maxDevices.map(Int64.init))
        Self.bindNotices(firstDevice.map { [$0] } ?? [], to: &bindings)
        let rows = try await client.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
        guard let row = rows.first else { throw StoreError.tooManyDevices }
        let columns = Columns(row)
        try await announceWebhooks(Int(try columns["webhooks"] as Int64))
        return try columns["inserted"] as Bool ? .created : .existing
    }

    public func unregister(device: String, type: String, id: String, lastDevice: WebhookNotice?) async throws {
        // The order's last device queues `lastDevice` in the same statement.
        let notices = Self.noticeRows(
            merchant: "o.merchant_id",
            type: "$2",
            id: "$3",
            arrays: ("$5", "$6", "$7"),
            tables: ["orders o"],
            condition: """
                o.order_type_identifier = $2 AND o.order_identifier = $3 AND EXISTS (SELECT 1 FROM gone)
                  AND NOT EXISTS (SELECT 1 FROM registrations WHERE order_type_identifier = $2 AND order_identifier = $3
                                  AND device_identifier <> $1)
                """
        )
        let sql = """
            WITH gone AS (
                DELETE FROM registrations
                WHERE device_identifier = $1 AND order_type_identifier = $2 AND order_identifier = $3
                RETURNING 1
            ), hooked AS (
                \(Self.webhookFanOut(from: notices, now: "$4"))
            )
            SELECT count(*) FROM hooked
            """
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(device)
        bindings.append(type)
        bindings.append(id)
        bindings.append(clock.now().unixSeconds)
        Self.bindNotices(lastDevice.map { [$0] } ?? [], to: &bindings)
        try await announceWebhooks(try await count(PostgresQuery(unsafeSQL: sql, binds: bindings)))
    }

    public func changedOrders(device: String, type: String, since tag: Int64?) async throws -> ChangedOrders? {
        // The snapshot's xmin is the oldest transaction still running when this statement started: every write
        // by an older transaction is visible now, so a tag below it skips nothing that commits later.
        let tagged = try await rows(ChangedOrdersStatement(device: device, type: type))
        guard let horizon = tagged.first?.horizon else { return nil }
        let newest = tagged.map(\.tag).max() ?? 0
        let changed = tagged.filter { tag == nil || $0.tag > tag! }.sorted { $0.tag < $1.tag }.map(\.id)
        return ChangedOrders(orderIdentifiers: changed, lastModified: max(tag ?? 0, min(newest, horizon - 1)))
    }

    public func registrations(_ filter: RegistrationFilter, limit: Int) async throws -> [Registration] {
        try await client.query(
            """
            SELECT device_identifier, order_type_identifier, order_identifier, push_token, created_at, updated_at
            FROM registrations
            WHERE (\(filter.device)::text IS NULL OR device_identifier = \(filter.device))
              AND (\(filter.type)::text IS NULL OR order_type_identifier = \(filter.type))
              AND (\(filter.id)::text IS NULL OR order_identifier = \(filter.id))
            ORDER BY updated_at DESC, device_identifier LIMIT \(max(1, limit))
            """,
            logger: logger
        ).map(Self.registration)
    }

    public func registrationCount(type: String, id: String) async throws -> Int {
        Int(
            try await first(
                Int64.self,
                """
                SELECT count(*) FROM registrations WHERE order_type_identifier = \(type) AND order_identifier = \(id)
                """
            ) ?? 0
        )
    }

    public func resendPushes(type: String, id: String) async throws -> Int? {
        let now = clock.now()
        let queued = try await transaction { connection -> Int? in
            let exists = try await connection.query(
                """
                SELECT 1 FROM orders WHERE order_type_identifier = \(type) AND order_identifier = \(id)
                """,
                logger: self.logger
            ).collect()
            guard !exists.isEmpty else { return nil }
            let queued = try await self.queuePushes(connection, type: type, id: id, now: now)
            if queued > 0 { try await self.notify(connection, .pushesQueued) }
            return queued
        }
        if let queued, queued > 0 { hub.publish(.pushesQueued) }
        return queued
    }

    public func pruneFailedRegistrations() async throws -> Int {
        try await count(
            """
            WITH gone AS (
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
                RETURNING 1)
            SELECT count(*) FROM gone
            """
        )
    }
}
