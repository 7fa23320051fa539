-- Version history counted in a merchant's storage (issue 39, L1): the bytes of its orders' change records, which its
-- maxAssetBytes counts beside its files. Records written before were not bounded; they count as large as they are.
ALTER TABLE merchants ADD COLUMN history_bytes bigint NOT NULL DEFAULT 0;
UPDATE merchants m SET history_bytes = h.bytes
FROM (
    SELECT o.merchant_id, SUM(octet_length(v.changes))::bigint AS bytes
    FROM orders o
    JOIN order_versions v ON v.order_type_identifier = o.order_type_identifier AND v.order_identifier = o.order_identifier
    WHERE v.changes IS NOT NULL
    GROUP BY o.merchant_id
) h
WHERE m.id = h.merchant_id;
