-- Version history counted in a merchant's storage (issue 39, L1): the bytes of its orders' change records, which its
-- maxAssetBytes counts beside its files. Records written before were not bounded; they count as large as they are.
ALTER TABLE merchants ADD COLUMN history_bytes INTEGER NOT NULL DEFAULT 0;
UPDATE merchants SET history_bytes = (
    SELECT COALESCE(SUM(length(CAST(v.changes AS BLOB))), 0)
    FROM orders o
    JOIN order_versions v ON v.order_type_identifier = o.order_type_identifier AND v.order_identifier = o.order_identifier
    WHERE o.merchant_id = merchants.id AND v.changes IS NOT NULL
);
