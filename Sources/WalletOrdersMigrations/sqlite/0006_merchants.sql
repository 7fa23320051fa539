-- Merchants (issue 27): the shops one service serves. Every order, push and attributed device log entry belongs to
-- one; the default merchant (id 1) is the shop of a single-shop deployment and owns everything written before.
CREATE TABLE merchants (
    id                  INTEGER PRIMARY KEY,
    slug                TEXT NOT NULL UNIQUE,
    display_name        TEXT NOT NULL,
    status              TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
    order_types         TEXT NOT NULL DEFAULT '[]',   -- a JSON array; empty: every order type the service signs
    requests_per_second INTEGER,
    max_orders          INTEGER,
    max_asset_bytes     INTEGER,
    orders_stored       INTEGER NOT NULL DEFAULT 0,   -- kept by the order writes, as the limits count
    asset_bytes         INTEGER NOT NULL DEFAULT 0,
    template            BLOB,                         -- the merchant's template, as the service encodes it
    template_version    INTEGER NOT NULL DEFAULT 0,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL
) STRICT;
INSERT INTO merchants (id, slug, display_name, orders_stored, asset_bytes, created_at, updated_at)
SELECT 1, 'default', 'Default', (SELECT COUNT(*) FROM orders),
       (SELECT COALESCE(SUM(length(data)), 0) FROM order_assets), CAST(strftime('%s', 'now') AS INTEGER),
       CAST(strftime('%s', 'now') AS INTEGER);

-- A merchant's API keys: never the key, only its SHA-256, found by the key's public id.
CREATE TABLE merchant_keys (
    id           TEXT PRIMARY KEY,
    merchant_id  INTEGER NOT NULL REFERENCES merchants (id),
    hash         BLOB NOT NULL,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
) STRICT;
CREATE INDEX merchant_keys_by_merchant ON merchant_keys (merchant_id);

-- Moves on with every change to merchants and their keys: a process that does not share this one's events (the
-- command line writing while serve runs) is noticed by the version.
INSERT INTO counters (name, value) VALUES ('merchants', 0);

ALTER TABLE orders ADD COLUMN merchant_id INTEGER NOT NULL DEFAULT 1 REFERENCES merchants (id);
ALTER TABLE orders ADD COLUMN order_number TEXT;
UPDATE orders SET order_number = CAST(json_extract(document, '$.orderNumber') AS TEXT)
WHERE json_type(document, '$.orderNumber') = 'text';
-- A merchant's listing walks its orders newest first (by rowid, which the index holds); the Apple Pay hand-off finds
-- an order by the merchant's own number.
CREATE INDEX orders_by_merchant ON orders (merchant_id);
CREATE INDEX orders_by_number ON orders (merchant_id, order_number) WHERE order_number IS NOT NULL;

ALTER TABLE push_outbox ADD COLUMN merchant_id INTEGER NOT NULL DEFAULT 1;
CREATE INDEX push_outbox_by_merchant ON push_outbox (merchant_id, id);

-- The merchant a device log entry names one of the orders of; null for entries that name none of a platform
-- merchant's orders (the default merchant reads those).
ALTER TABLE device_logs ADD COLUMN merchant_id INTEGER;
CREATE INDEX device_logs_by_merchant ON device_logs (merchant_id, id);
