import Foundation
import PostgresNIO
import WalletOrdersStore

/// The two fan-outs of a change, each written once: the pushes an order's registered devices are owed, and the webhook
/// deliveries a notice makes for the endpoints of the order's merchant that listen for it. What a change causes, and
/// what each notice holds, the service decided (`WriteEffects`, `WebhookNotice`); these only store it. Every write
/// that causes either puts the statement below inside its own, as a data-modifying `WITH` clause, so that what it
/// causes is stored exactly when the change is, in the same round trip.
extension PostgresStore {
    /// `INSERT … RETURNING 1` queuing a delivery of each notice of `source` for every enabled endpoint of the notice's
    /// merchant that listens for its event, due at `now`. `source` is a query whose rows have the columns
    /// `merchant_id`, `order_type_identifier`, `order_identifier`, `event`, `bit` and `detail` (`noticeRows`
    /// makes one); `now` is an SQL expression of the store's time in Unix seconds.
    static func webhookFanOut(from source: String, now: String) -> String {
        """
        INSERT INTO webhook_deliveries (message_id, endpoint_id, event, order_type_identifier, order_identifier,
                                        detail, occurred_at, status, next_attempt_at, updated_at)
        SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), e.id, n.event, n.order_type_identifier,
               n.order_identifier, n.detail, \(now), 'pending', \(now), \(now)
        FROM (\(source)) n JOIN webhook_endpoints e ON e.merchant_id = n.merchant_id
        WHERE e.disabled_at IS NULL AND (e.events & n.bit) <> 0
        RETURNING 1
        """
    }

    /// The rows `webhookFanOut` reads for notices about one order: `merchant`, `type` and `id` are SQL expressions,
    /// the notices the three array parameters `arrays` binds (`bindNotices`), from the relations `tables` when
    /// `condition` holds.
    static func noticeRows(
        merchant: String,
        type: String,
        id: String,
        arrays: (events: String, bits: String, details: String),
        tables: [String] = [],
        condition: String = "TRUE"
    ) -> String {
        let notices = "unnest(\(arrays.events)::text[], \(arrays.bits)::bigint[], \(arrays.details)::text[]) AS n(event, bit, detail)"
        return """
            SELECT \(merchant) AS merchant_id, \(type) AS order_type_identifier, \(id) AS order_identifier,
                   n.event, n.bit, n.detail
            FROM \((tables + [notices]).joined(separator: ", "))
            WHERE \(condition)
            """
    }

    /// Binds `notices` as the three arrays `noticeRows` reads: events, their bits, their details.
    static func bindNotices(_ notices: [WebhookNotice], to bindings: inout PostgresBindings) {
        bindings.append(notices.map(\.event.rawValue))
        bindings.append(notices.map(\.event.bit))
        bindings.append(notices.map(\.detail))
    }

    /// `INSERT` owing one pending push, due at `now`, to every device registered for the order `type`/`id` of
    /// `merchant` (SQL expressions), with the relations `tables` joined in, when `condition` holds. A pending push for
    /// the same order and token already covers the change: Wallet fetches the newest version.
    static func pushFanOut(
        type: String,
        id: String,
        merchant: String,
        now: String,
        tables: [String] = [],
        condition: String = "TRUE"
    ) -> String {
        """
        INSERT INTO push_outbox (order_type_identifier, order_identifier, device_identifier, push_token, status,
                                 attempts, next_attempt_at, created_at, updated_at, merchant_id)
        SELECT r.order_type_identifier, r.order_identifier, r.device_identifier, r.push_token, 'pending', 0,
               \(now), \(now), \(now), \(merchant)
        FROM \((["registrations r"] + tables).joined(separator: ", "))
        WHERE r.order_type_identifier = \(type) AND r.order_identifier = \(id) AND \(condition)
        ON CONFLICT (order_type_identifier, order_identifier, push_token) WHERE status = 'pending' DO NOTHING
        """
    }

    /// Queues `notices` about the order `type`/`id` of `merchant` on `connection`, inside a transaction of the
    /// caller's; answers how many deliveries that made.
    func queueWebhooks(
        _ connection: PostgresConnection,
        _ notices: [WebhookNotice],
        merchant: Int64,
        type: String,
        id: String,
        now: Date
    ) async throws -> Int {
        guard !notices.isEmpty else { return 0 }
        let rows = Self.noticeRows(merchant: "$1::bigint", type: "$2::text", id: "$3::text", arrays: ("$5", "$6", "$7"))
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(merchant)
        bindings.append(type)
        bindings.append(id)
        bindings.append(now.unixSeconds)
        Self.bindNotices(notices, to: &bindings)
        let sql = "WITH hooked AS (\(Self.webhookFanOut(from: rows, now: "$4::bigint"))) SELECT count(*) FROM hooked"
        return try await count(connection, PostgresQuery(unsafeSQL: sql, binds: bindings))
    }
}
