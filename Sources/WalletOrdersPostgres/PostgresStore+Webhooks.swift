import Foundation
import PostgresNIO
import WalletOrdersStore

/// Webhook endpoints and the outbox of deliveries to them, shared by every instance: claims skip rows another
/// instance has locked, as the push outbox's do. Deliveries are queued inside the statements of the changes they
/// tell about (registrations, unregistrations, versions, failed pushes, link downloads).
extension PostgresStore {
    public func addWebhookEndpoint(_ endpoint: WebhookEndpoint, maxPerMerchant: Int) async throws {
        // The count and the insert are one statement (endpoints made at the same moment may pass the cap by a few).
        let rows = try await client.query(
            """
            INSERT INTO webhook_endpoints (id, merchant_id, url, events, secret, created_at, updated_at)
            SELECT \(endpoint.id), \(endpoint.merchantID), \(endpoint.url), \(WebhookEvent.mask(endpoint.events)),
                   \(endpoint.secret), \(endpoint.createdAt.unixSeconds), \(endpoint.updatedAt.unixSeconds)
            WHERE (SELECT count(*) FROM webhook_endpoints WHERE merchant_id = \(endpoint.merchantID)) < \(Int64(maxPerMerchant))
            RETURNING id
            """,
            logger: logger
        )
        guard !rows.isEmpty else { throw StoreError.tooManyWebhooks }
    }

    public func webhookEndpoints(merchantID: Int64?) async throws -> [WebhookEndpoint] {
        try await client.query(
            """
            SELECT * FROM webhook_endpoints WHERE \(merchantID)::bigint IS NULL OR merchant_id = \(merchantID)
            ORDER BY created_at, id
            """,
            logger: logger
        ).map(Self.endpoint)
    }

    public func changeWebhookEndpoint(
        id: String,
        merchantID: Int64,
        _ change: WebhookEndpointChange
    )
        async throws -> WebhookEndpoint?
    {
        let now = clock.now()
        let seconds = now.unixSeconds
        let changed = try await transaction { connection -> (WebhookEndpoint, Int)? in
            let rows = try await connection.query(
                """
                SELECT * FROM webhook_endpoints WHERE id = \(id) AND merchant_id = \(merchantID) FOR UPDATE
                """,
                logger: self.logger
            ).collect()
            guard let current = try rows.first.map(Self.endpoint) else { return nil }
            let (endpoint, transition) = current.changed(by: change, now: now)
            var requeued = 0
            switch transition {
            case .enabled:
                requeued = try await self.count(
                    connection,
                    """
                    WITH requeued AS (
                        UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = \(seconds),
                                                      updated_at = \(seconds)
                        WHERE endpoint_id = \(id) AND status = 'failed' RETURNING 1)
                    SELECT count(*) FROM requeued
                    """
                )
            case .disabled:
                try await self.failPending(connection, endpoint: id, now: now)
            case nil: break
            }
            try await connection.query(
                """
                UPDATE webhook_endpoints
                SET url = \(endpoint.url), events = \(WebhookEvent.mask(endpoint.events)), secret = \(endpoint.secret),
                    previous_secret = \(endpoint.previousSecret),
                    previous_secret_until = \(endpoint.previousSecretUntil?.unixSeconds), updated_at = \(seconds),
                    disabled_at = \(endpoint.disabledAt?.unixSeconds), disabled_reason = \(endpoint.disabledReason)
                WHERE id = \(id)
                """,
                logger: self.logger
            )
            if requeued > 0 { try await self.notify(connection, .webhooksQueued) }
            return (endpoint, requeued)
        }
        if let changed, changed.1 > 0 { hub.publish(.webhooksQueued) }
        return changed?.0
    }

    public func deleteWebhookEndpoint(id: String, merchantID: Int64) async throws -> Bool {
        // Its deliveries go with it (ON DELETE CASCADE).
        try await count(
            """
            WITH gone AS (DELETE FROM webhook_endpoints WHERE id = \(id) AND merchant_id = \(merchantID) RETURNING 1)
            SELECT count(*) FROM gone
            """
        ) == 1
    }

    public func claimDueDeliveries(limit: Int, claim: OutboxClaim) async throws -> [WebhookJob] {
        guard limit > 0 else { return [] }
        let now = clock.now()
        let seconds = now.unixSeconds
        let leaseUntil = now.addingTimeInterval(claim.lease).unixSeconds
        return try await client.query(
            """
            WITH claimed AS (
                UPDATE webhook_deliveries SET status = 'sending', attempts = attempts + 1, claimed_by = \(claim.owner),
                                              lease_until = \(leaseUntil), updated_at = \(seconds)
                WHERE id IN (SELECT id FROM webhook_deliveries
                             WHERE status = 'pending' AND next_attempt_at <= \(seconds)
                               AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE disabled_at IS NULL)
                             ORDER BY next_attempt_at, id LIMIT \(Int64(limit))
                             FOR UPDATE SKIP LOCKED)
                RETURNING *
            )
            SELECT c.*, e.url, e.secret,
                   CASE WHEN e.previous_secret_until > \(seconds) THEN e.previous_secret END AS live_previous_secret,
                   m.id AS merchant, m.slug
            FROM claimed c
            JOIN webhook_endpoints e ON e.id = c.endpoint_id
            JOIN merchants m ON m.id = e.merchant_id
            ORDER BY c.id
            """,
            logger: logger
        ).map { row in
            let columns = Columns(row)
            return WebhookJob(
                delivery: try Self.delivery(row),
                merchantID: try columns["merchant"],
                merchantSlug: try columns["slug"],
                url: try columns["url"],
                secret: try columns["secret"],
                previousSecret: try columns["live_previous_secret"]
            )
        }
    }

    public func finishDeliveries(_ outcomes: [(WebhookJob, WebhookOutcome)], owner: String) async throws {
        guard !outcomes.isEmpty else { return }
        let now = clock.now()
        let seconds = now.unixSeconds
        try await transaction { connection in
            let held = "status = 'sending' AND claimed_by = "
            for (job, outcome) in outcomes {
                let id = job.delivery.id
                switch outcome {
                case .delivered(let code):
                    try await connection.query(
                        """
                        UPDATE webhook_deliveries SET status = 'delivered', last_status_code = \(code), last_error = NULL,
                                                      updated_at = \(seconds), claimed_by = NULL, lease_until = NULL
                        WHERE id = \(id) AND \(unescaped: held)\(owner)
                        """,
                        logger: self.logger
                    )
                case .retry(let delay, let code, let error):
                    let at = now.addingTimeInterval(delay).unixSeconds
                    try await connection.query(
                        """
                        UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = \(at),
                                                      last_status_code = \(code), last_error = \(error),
                                                      updated_at = \(seconds), claimed_by = NULL, lease_until = NULL
                        WHERE id = \(id) AND \(unescaped: held)\(owner)
                        """,
                        logger: self.logger
                    )
                case .failed(let code, let error, let reason):
                    let failed = try await self.count(
                        connection,
                        """
                        WITH failed AS (
                            UPDATE webhook_deliveries SET status = 'failed', last_status_code = \(code),
                                                          last_error = \(error), updated_at = \(seconds),
                                                          claimed_by = NULL, lease_until = NULL
                            WHERE id = \(id) AND \(unescaped: held)\(owner) RETURNING 1)
                        SELECT count(*) FROM failed
                        """
                    )
                    guard failed == 1 else { continue }
                    try await connection.query(
                        """
                        UPDATE webhook_endpoints SET disabled_at = \(seconds), disabled_reason = \(reason),
                                                     updated_at = \(seconds)
                        WHERE id = \(job.delivery.endpointID) AND disabled_at IS NULL
                        """,
                        logger: self.logger
                    )
                    try await self.failPending(connection, endpoint: job.delivery.endpointID, now: now)
                }
            }
        }
    }

    /// Fails the pending deliveries of an endpoint that was disabled: enabling it again queues them again.
    private func failPending(_ connection: PostgresConnection, endpoint: String, now: Date) async throws {
        try await connection.query(
            """
            UPDATE webhook_deliveries SET status = 'failed', last_error = 'the endpoint was disabled',
                                          updated_at = \(now.unixSeconds)
            WHERE endpoint_id = \(endpoint) AND status = 'pending'
            """,
            logger: logger
        )
    }

    public func renewDeliveryClaims(owner: String, lease: TimeInterval) async throws -> Int {
        let until = clock.now().addingTimeInterval(lease)
        return try await count(
            """
            WITH renewed AS (
                UPDATE webhook_deliveries SET lease_until = \(until.unixSeconds)
                WHERE status = 'sending' AND claimed_by = \(owner) RETURNING 1)
            SELECT count(*) FROM renewed
            """
        )
    }

    public func releaseDeliveryClaims(owner: String) async throws -> Int {
        let released = try await count(
            """
            WITH released AS (
                UPDATE webhook_deliveries SET status = 'pending', claimed_by = NULL, lease_until = NULL,
                                              attempts = greatest(attempts - 1, 0)
                WHERE status = 'sending' AND claimed_by = \(owner) RETURNING 1)
            SELECT count(*) FROM released
            """
        )
        try await announceWebhooks(released)
        return released
    }

    public func reclaimExpiredDeliveryClaims() async throws -> Int {
        let reclaimed = try await count(
            """
            WITH reclaimed AS (
                UPDATE webhook_deliveries SET status = 'pending', claimed_by = NULL, lease_until = NULL
                WHERE status = 'sending' AND lease_until < \(clock.now().unixSeconds) RETURNING 1)
            SELECT count(*) FROM reclaimed
            """
        )
        try await announceWebhooks(reclaimed)
        return reclaimed
    }

    public func nextDeliveryDue() async throws -> Date? {
        try await first(
            Int64?.self,
            """
            SELECT min(next_attempt_at) FROM webhook_deliveries
            WHERE status = 'pending' AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE disabled_at IS NULL)
            """
        )?.map(Date.init(unixSeconds:))
    }

    public func webhookDeliveries(
        endpointID: String,
        merchantID: Int64,
        page: PageRequest
    ) async throws
        -> Page<WebhookDelivery>?
    {
        let owned = try await count(
            "SELECT count(*) FROM webhook_endpoints WHERE id = \(endpointID) AND merchant_id = \(merchantID)"
        )
        guard owned == 1 else { return nil }
        let rows = try await client.query(
            """
            SELECT * FROM webhook_deliveries
            WHERE endpoint_id = \(endpointID) AND (\(page.before)::bigint IS NULL OR id < \(page.before))
            ORDER BY id DESC LIMIT \(page.limit + 1)
            """,
            logger: logger
        )
        return Page(
            rows: try rows.map { row in
                let delivery = try Self.delivery(row)
                return (delivery.id, delivery)
            },
            limit: page.limit
        )
    }

    public func redeliver(
        deliveryID: Int64,
        endpointID: String,
        merchantID: Int64
    ) async throws
        -> WebhookDelivery?
    {
        let seconds = clock.now().unixSeconds
        let rows = try await client.query(
            """
            UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = \(seconds),
                                          updated_at = \(seconds), claimed_by = NULL, lease_until = NULL
            WHERE id = \(deliveryID) AND endpoint_id = \(endpointID) AND status <> 'sending'
              AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE merchant_id = \(merchantID) AND disabled_at IS NULL)
            RETURNING *
            """,
            logger: logger
        )
        guard let row = rows.first else { return nil }
        try await announceWebhooks(1)
        return try Self.delivery(row)
    }

    public func pruneDeliveries(olderThan age: TimeInterval) async throws -> Int {
        let date = clock.now().addingTimeInterval(-age)
        return try await count(
            """
            WITH gone AS (
                DELETE FROM webhook_deliveries
                WHERE status IN ('delivered', 'failed') AND updated_at < \(date.unixSeconds) RETURNING 1)
            SELECT count(*) FROM gone
            """
        )
    }

    static func endpoint(_ row: PostgresRow) throws -> WebhookEndpoint {
        let columns = Columns(row)
        return WebhookEndpoint(
            id: try columns["id"],
            merchantID: try columns["merchant_id"],
            url: try columns["url"],
            events: WebhookEvent.events(in: try columns["events"]),
            secret: try columns["secret"],
            previousSecret: try columns["previous_secret"],
            previousSecretUntil: (try columns["previous_secret_until"] as Int64?).map(Date.init(unixSeconds:)),
            createdAt: Date(unixSeconds: try columns["created_at"]),
            updatedAt: Date(unixSeconds: try columns["updated_at"]),
            disabledAt: (try columns["disabled_at"] as Int64?).map(Date.init(unixSeconds:)),
            disabledReason: try columns["disabled_reason"]
        )
    }

    static func delivery(_ row: PostgresRow) throws -> WebhookDelivery {
        let columns = Columns(row)
        let eventName: String = try columns["event"]
        let statusName: String = try columns["status"]
        guard let event = WebhookEvent(rawValue: eventName), let status = WebhookDeliveryStatus(rawValue: statusName) else {
            throw StoreError.unexpected("a webhook delivery of an unknown event or status")
        }
        return WebhookDelivery(
            id: try columns["id"],
            messageID: try columns["message_id"],
            endpointID: try columns["endpoint_id"],
            event: event,
            orderTypeIdentifier: try columns["order_type_identifier"],
            orderIdentifier: try columns["order_identifier"],
            detail: try columns["detail"],
            occurredAt: Date(unixSeconds: try columns["occurred_at"]),
            status: status,
            attempts: try columns["attempts"],
            nextAttemptAt: Date(unixSeconds: try columns["next_attempt_at"]),
            lastStatusCode: try columns["last_status_code"],
            lastError: try columns["last_error"],
            updatedAt: Date(unixSeconds: try columns["updated_at"])
        )
    }
}
