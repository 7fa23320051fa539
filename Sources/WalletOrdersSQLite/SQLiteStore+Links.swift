import Foundation
import GRDB
import WalletOrdersStore

/// Download links of orders: made by merchants, used by whoever holds their URL.
extension SQLiteStore {
    public func addOrderLink(_ link: OrderLink, maxLive: Int) async throws {
        try await write { db in
            let live =
                try Int.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT COUNT(*) FROM order_links
                            WHERE order_type_identifier = ? AND order_identifier = ? AND expires_at > ? AND revoked_at IS NULL
                            """
                    ),
                    arguments: [link.orderTypeIdentifier, link.orderIdentifier, link.createdAt.unixSeconds]
                ) ?? 0
            guard live < maxLive else { throw StoreError.tooManyLinks }
            try db.cachedStatement(
                sql: """
                    INSERT INTO order_links (id, hash, merchant_id, order_type_identifier, order_identifier, reusable,
                                             created_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                link.id, link.hash, link.merchantID, link.orderTypeIdentifier, link.orderIdentifier, link.reusable,
                link.createdAt.unixSeconds, link.expiresAt.unixSeconds,
            ])
        }
    }

    public func useOrderLink(
        hash: Data,
        client: String,
        grace: TimeInterval,
        downloaded: @escaping @Sendable (OrderLinkUse) -> WebhookNotice?
    ) async throws -> OrderLinkUse? {
        let now = clock.now()
        let arguments: StatementArguments = ["hash": hash, "client": client, "now": now.unixSeconds, "grace": Int64(grace)]
        // A link that cannot serve is answered from a read, whatever the reason: a refusal costs what a missing
        // link costs, and takes no turn of the one writer. A live one is used in a write, checked again there.
        let live = try await pool.read { db in
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM order_links WHERE \(Self.liveLink))"),
                arguments: arguments
            ) ?? false
        }
        guard live else { return nil }
        let used = try await write { db -> (OrderLinkUse, Int)? in
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        UPDATE order_links
                        SET first_used_at = COALESCE(first_used_at, :now), first_user = COALESCE(first_user, :client),
                            downloads = downloads + 1
                        WHERE \(Self.liveLink)
                        RETURNING id, merchant_id, order_type_identifier, order_identifier, downloads
                        """
                ),
                arguments: arguments
            )
            guard let row else { return nil }
            let use = OrderLinkUse(
                linkID: row["id"],
                merchantID: row["merchant_id"],
                orderTypeIdentifier: row["order_type_identifier"],
                orderIdentifier: row["order_identifier"],
                downloads: row["downloads"]
            )
            let webhooks = try Self.queueWebhooks(
                db,
                downloaded(use).map { [$0] } ?? [],
                type: use.orderTypeIdentifier,
                id: use.orderIdentifier,
                merchant: use.merchantID,
                now: now
            )
            return (use, webhooks)
        }
        if let used, used.1 > 0 { hub.publish(.webhooksQueued) }
        return used?.0
    }

    public func peekOrderLink(hash: Data, client: String, grace: TimeInterval) async throws -> OrderLinkUse? {
        let arguments: StatementArguments = [
            "hash": hash, "client": client, "now": clock.now().unixSeconds, "grace": Int64(grace),
        ]
        return try await pool.read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT id, merchant_id, order_type_identifier, order_identifier, downloads FROM order_links
                        WHERE \(Self.liveLink)
                        """
                ),
                arguments: arguments
            ).map {
                OrderLinkUse(
                    linkID: $0["id"],
                    merchantID: $0["merchant_id"],
                    orderTypeIdentifier: $0["order_type_identifier"],
                    orderIdentifier: $0["order_identifier"],
                    downloads: $0["downloads"]
                )
            }
        }
    }

    /// The link of `:hash` that may serve `:client` at `:now`: unrevoked, unexpired, and reusable, unused, or used
    /// first by `:client` less than `:grace` seconds ago.
    private static let liveLink = """
        hash = :hash AND revoked_at IS NULL AND expires_at > :now
        AND (reusable OR first_used_at IS NULL OR (first_user = :client AND first_used_at >= :now - :grace))
        """

    public func revokeOrderLink(id: String, merchantID: Int64, type: String, orderID: String) async throws -> Bool {
        let now = clock.now()
        return try await write { db in
            try db.execute(
                sql: """
                    UPDATE order_links SET revoked_at = ?
                    WHERE id = ? AND merchant_id = ? AND order_type_identifier = ? AND order_identifier = ? AND revoked_at IS NULL
                    """,
                arguments: [now.unixSeconds, id, merchantID, type, orderID]
            )
            return db.changesCount == 1
        }
    }

    public func pruneOrderLinks(expiredMoreThan age: TimeInterval) async throws -> Int {
        let date = clock.now().addingTimeInterval(-age)
        return try await write { db in
            try db.execute(sql: "DELETE FROM order_links WHERE expires_at < ?", arguments: [date.unixSeconds])
            return db.changesCount
        }
    }
}
