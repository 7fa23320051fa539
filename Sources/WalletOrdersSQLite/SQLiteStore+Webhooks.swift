import Foundation
import GRDB
import WalletOrdersModel
import WalletOrdersStore

/// Webhook endpoints and the outbox of deliveries to them. Deliveries are queued inside the write that caused
/// them (`queueWebhooks`), so an event is stored exactly when its change is.
extension SQLiteStore {
    public func addWebhookEndpoint(_ endpoint: WebhookEndpoint, maxPerMerchant: Int) async throws {
        try await write { db in
            let count =
                try Int.fetchOne(
                    db,
                    sql: "SELECT COUNT(*) FROM webhook_endpoints WHERE merchant_id = ?",
                    arguments: [endpoint.merchantID]
                ) ?? 0
            guard count < maxPerMerchant else { throw StoreError.tooManyWebhooks }
            try db.execute(
                sql: """
                    INSERT INTO webhook_endpoints (id, merchant_id, url, events, secret, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    endpoint.id, endpoint.merchantID, endpoint.url, WebhookEvent.mask(endpoint.events), endpoint.secret,
                    endpoint.createdAt.unixSeconds, endpoint.updatedAt.unixSeconds,
                ]
            )
        }
    }

    public func webhookEndpoints(merchantID: Int64?) async throws -> [WebhookEndpoint] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM webhook_endpoints WHERE ?1 IS NULL OR merchant_id = ?1 ORDER BY created_at, id",
                arguments: [merchantID]
            ).map(Self.endpoint)
        }
    }

    public func changeWebhookEndpoint(
        id: String,
        merchantID: Int64,
        _ change: WebhookEndpointChange
    )
        async throws -> WebhookEndpoint?
    {
        let now = clock.now()
        let requeued = try await write { db -> (WebhookEndpoint?, Int) in
            guard
                let current = try Row.fetchOne(
                    db,
                    sql: "SELECT * FROM webhook_endpoints WHERE id = ? AND merchant_id = ?",
                    arguments: [id, merchantID]
                ).map(Self.endpoint)
            else { return (nil, 0) }
            let (endpoint, transition) = current.changed(by: change, now: now)
            var requeued = 0
            switch transition {
            case .enabled:
                try db.execute(
                    sql: """
                        UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?1, updated_at = ?1
                        WHERE endpoint_id = ?2 AND status = 'failed'
                        """,
                    arguments: [now.unixSeconds, id]
                )
                requeued = db.changesCount
            case .disabled:
                try Self.failPending(db, endpoint: id, reason: "the endpoint was disabled", now: now)
            case nil: break
            }
            try db.execute(
                sql: """
                    UPDATE webhook_endpoints SET url = ?, events = ?, secret = ?, previous_secret = ?,
                                                 previous_secret_until = ?, updated_at = ?, disabled_at = ?,
                                                 disabled_reason = ?
                    WHERE id = ?
                    """,
                arguments: [
                    endpoint.url, WebhookEvent.mask(endpoint.events), endpoint.secret, endpoint.previousSecret,
                    endpoint.previousSecretUntil?.unixSeconds, now.unixSeconds, endpoint.disabledAt?.unixSeconds,
                    endpoint.disabledReason, id,
                ]
            )
            return (endpoint, requeued)
        }
        if requeued.1 > 0 { hub.publish(.webhooksQueued) }
        return requeued.0
    }

    public func deleteWebhookEndpoint(id: String, merchantID: Int64) async throws -> Bool {
        try await write { db in
            // Only the merchant's own endpoint's deliveries: the id alone names no one's.
            try db.execute(
                sql: """
                    DELETE FROM webhook_deliveries
                    WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE id = ? AND merchant_id = ?)
                    """,
                arguments: [id, merchantID]
            )
            try db.execute(
                sql: "DELETE FROM webhook_endpoints WHERE id = ? AND merchant_id = ?",
                arguments: [id, merchantID]
            )
            return db.changesCount == 1
        }
    }

    /// Fails the pending deliveries of an endpoint that was disabled: enabling it again queues them again.
    static func failPending(_ db: Database, endpoint: String, reason: String, now: Date) throws {
        try db.execute(
            sql: """
                UPDATE webhook_deliveries SET status = 'failed', last_error = ?, updated_at = ?
                WHERE endpoint_id = ? AND status = 'pending'
                """,
            arguments: [reason, now.unixSeconds, endpoint]
        )
    }

    public func webhookDeliveries(
        endpointID: String,
        merchantID: Int64,
        page: PageRequest
    ) async throws
        -> Page<WebhookDelivery>?
    {
        try await pool.read { db in
            let owned =
                try Bool.fetchOne(
                    db,
                    sql: "SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ? AND merchant_id = ?)",
                    arguments: [endpointID, merchantID]
                ) ?? false
            guard owned else { return nil }
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM webhook_deliveries WHERE endpoint_id = ?1 AND (?2 IS NULL OR id < ?2)
                    ORDER BY id DESC LIMIT ?3
                    """,
                arguments: [endpointID, page.before, page.limit + 1]
            )
            return Page(rows: try rows.map { row in (row["id"], try Self.delivery(row)) }, limit: page.limit)
        }
    }

    public func redeliver(
        deliveryID: Int64,
        endpointID: String,
        merchantID: Int64
    ) async throws
        -> WebhookDelivery?
    {
        let now = clock.now()
        let delivery = try await write { db -> WebhookDelivery? in
            try Row.fetchOne(
                db,
                sql: """
                    UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?1, updated_at = ?1,
                                                  claimed_by = NULL, lease_until = NULL
                    WHERE id = ?2 AND endpoint_id = ?3 AND status <> 'sending'
                      AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE merchant_id = ?4 AND disabled_at IS NULL)
                    RETURNING *
                    """,
                arguments: [now.unixSeconds, deliveryID, endpointID, merchantID]
            ).map(Self.delivery)
        }
        if delivery != nil { hub.publish(.webhooksQueued) }
        return delivery
    }

    /// Queues `notices` about an order for every enabled endpoint of the order's merchant that listens for each;
    /// answers how many deliveries were queued. The one place this engine stores webhook events. `merchant` nil reads
    /// the order's merchant. With `soleDevice`, only when no other device is registered for the order (its first
    /// device came, or its last one left); that is read only when the merchant has an endpoint to tell, so
    /// registrations of merchants without one pay nothing for it.
    static func queueWebhooks(
        _ db: Database,
        _ notices: [WebhookNotice],
        type: String,
        id: String,
        merchant: Int64?,
        soleDevice: String? = nil,
        now: Date
    ) throws -> Int {
        var queued = 0
        for notice in notices {
            try db.cachedStatement(
                sql: """
                    INSERT INTO webhook_deliveries (message_id, endpoint_id, event, order_type_identifier, order_identifier,
                                                    detail, occurred_at, status, next_attempt_at, updated_at)
                    SELECT 'msg_' || lower(hex(randomblob(16))), id, :event, :type, :id, :detail, :now, 'pending', :now, :now
                    FROM webhook_endpoints
                    WHERE merchant_id = COALESCE(:merchant, (SELECT merchant_id FROM orders
                                                             WHERE order_type_identifier = :type AND order_identifier = :id))
                      AND disabled_at IS NULL AND (events & :bit) <> 0
                      AND (:device IS NULL OR NOT EXISTS (SELECT 1 FROM registrations
                                                          WHERE order_type_identifier = :type AND order_identifier = :id
                                                            AND device_identifier <> :device))
                    """
            ).execute(arguments: [
                "event": notice.event.rawValue, "type": type, "id": id, "detail": notice.detail, "now": now.unixSeconds,
                "merchant": merchant, "bit": notice.event.bit, "device": soleDevice,
            ])
            queued += db.changesCount
        }
        return queued
    }

    static func endpoint(_ row: Row) -> WebhookEndpoint {
        WebhookEndpoint(
            id: row["id"],
            merchantID: row["merchant_id"],
            url: row["url"],
            events: WebhookEvent.events(in: row["events"]),
            secret: row["secret"],
            previousSecret: row["previous_secret"],
            previousSecretUntil: (row["previous_secret_until"] as Int64?).map(Date.init(unixSeconds:)),
            createdAt: Date(unixSeconds: row["created_at"]),
            updatedAt: Date(unixSeconds: row["updated_at"]),
            disabledAt: (row["disabled_at"] as Int64?).map(Date.init(unixSeconds:)),
            disabledReason: row["disabled_reason"]
        )
    }

    static func delivery(_ row: Row) throws -> WebhookDelivery {
        guard let event = WebhookEvent(rawValue: row["event"]),
            let status = WebhookDeliveryStatus(rawValue: row["status"])
        else { throw StoreError.unexpected("a webhook delivery of an unknown event or status") }
        return WebhookDelivery(
            id: row["id"],
            messageID: row["message_id"],
            endpointID: row["endpoint_id"],
            event: event,
            orderTypeIdentifier: row["order_type_identifier"],
            orderIdentifier: row["order_identifier"],
            detail: row["detail"],
            occurredAt: Date(unixSeconds: row["occurred_at"]),
            status: status,
            attempts: row["attempts"],
            nextAttemptAt: Date(unixSeconds: row["next_attempt_at"]),
            lastStatusCode: row["last_status_code"],
            lastError: row["last_error"],
            updatedAt: Date(unixSeconds: row["updated_at"])
        )
    }
}
