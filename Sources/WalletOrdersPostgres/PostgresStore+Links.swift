import Foundation
import NIOCore
import PostgresNIO
import WalletOrdersStore

/// Download links of orders: made by merchants, used by whoever holds their URL.
extension PostgresStore {
    public func addOrderLink(_ link: OrderLink, maxLive: Int) async throws {
        // The count and the insert are one statement: nothing is inserted past the cap (links made at the same
        // moment for the last place may pass it by a few).
        let rows = try await client.query(
            """
            INSERT INTO order_links (id, hash, merchant_id, order_type_identifier, order_identifier, reusable, created_at,
                                     expires_at)
            SELECT \(link.id), \(ByteBuffer(bytes: link.hash)), \(link.merchantID), \(link.orderTypeIdentifier),
                   \(link.orderIdentifier), \(link.reusable), \(link.createdAt.unixSeconds), \(link.expiresAt.unixSeconds)
            WHERE (SELECT count(*) FROM order_links
                   WHERE order_type_identifier = \(link.orderTypeIdentifier) AND order_identifier = \(link.orderIdentifier)
                     AND expires_at > \(link.createdAt.unixSeconds) AND revoked_at IS NULL) < \(Int64(maxLive))
            RETURNING id
            """,
            logger: logger
        )
        guard !rows.isEmpty else { throw StoreError.tooManyLinks }
    }

    public func useOrderLink(
        hash: Data,
        client address: String,
        grace: TimeInterval,
        downloaded: @escaping @Sendable (OrderLinkUse) -> WebhookNotice?
    ) async throws -> OrderLinkUse? {
        let now = clock.now()
        let seconds = now.unixSeconds
        // One statement for every link, live or not: a refused one costs what a missing one does. A download served
        // queues what `downloaded` makes of it in the same transaction.
        let used = try await transaction { connection -> (OrderLinkUse, Int)? in
            let rows = try await connection.query(
                """
                UPDATE order_links
                SET first_used_at = COALESCE(first_used_at, \(seconds)), first_user = COALESCE(first_user, \(address)),
                    downloads = downloads + 1
                WHERE hash = \(ByteBuffer(bytes: hash)) AND revoked_at IS NULL AND expires_at > \(seconds)
                  AND (reusable OR first_used_at IS NULL
                       OR (first_user = \(address) AND first_used_at >= \(seconds - Int64(grace))))
                RETURNING id, merchant_id, order_type_identifier, order_identifier, downloads
                """,
                logger: self.logger
            ).collect()
            guard let row = rows.first else { return nil }
            let columns = Columns(row)
            let use = OrderLinkUse(
                linkID: try columns["id"],
                merchantID: try columns["merchant_id"],
                orderTypeIdentifier: try columns["order_type_identifier"],
                orderIdentifier: try columns["order_identifier"],
                downloads: Int(try columns["downloads"] as Int64)
            )
            let webhooks = try await self.queueWebhooks(
                connection,
                downloaded(use).map { [$0] } ?? [],
                merchant: use.merchantID,
                type: use.orderTypeIdentifier,
                id: use.orderIdentifier,
                now: now
            )
            if webhooks > 0 { try await self.notify(connection, .webhooksQueued) }
            return (use, webhooks)
        }
        if let used, used.1 > 0 { hub.publish(.webhooksQueued) }
        return used?.0
    }

    public func peekOrderLink(hash: Data, client address: String, grace: TimeInterval) async throws -> OrderLinkUse? {
        let now = clock.now()
        let rows = try await client.query(
            """
            SELECT id, merchant_id, order_type_identifier, order_identifier, downloads FROM order_links
            WHERE hash = \(ByteBuffer(bytes: hash)) AND revoked_at IS NULL AND expires_at > \(now.unixSeconds)
              AND (reusable OR first_used_at IS NULL
                   OR (first_user = \(address) AND first_used_at >= \(now.unixSeconds - Int64(grace))))
            """,
            logger: logger
        )
        guard let row = rows.first else { return nil }
        let columns = Columns(row)
        return OrderLinkUse(
            linkID: try columns["id"],
            merchantID: try columns["merchant_id"],
            orderTypeIdentifier: try columns["order_type_identifier"],
            orderIdentifier: try columns["order_identifier"],
            downloads: Int(try columns["downloads"] as Int64)
        )
    }

    public func revokeOrderLink(id: String, merchantID: Int64, type: String, orderID: String) async throws -> Bool {
        let now = clock.now()
        let rows = try await client.query(
            """
            UPDATE order_links SET revoked_at = \(now.unixSeconds)
            WHERE id = \(id) AND merchant_id = \(merchantID) AND order_type_identifier = \(type)
              AND order_identifier = \(orderID) AND revoked_at IS NULL
            RETURNING id
            """,
            logger: logger
        )
        return !rows.isEmpty
    }

    public func pruneOrderLinks(expiredMoreThan age: TimeInterval) async throws -> Int {
        let date = clock.now().addingTimeInterval(-age)
        let rows = try await client.query(
            "DELETE FROM order_links WHERE expires_at < \(date.unixSeconds) RETURNING id",
            logger: logger
        )
        return rows.count
    }
}
