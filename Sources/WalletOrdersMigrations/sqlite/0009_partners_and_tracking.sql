-- Logistics partners and tracking events (issue 28). A partner publishes the shipping updates of some merchants'
-- orders: its keys may change their fulfillments and post tracking events, nothing else.
CREATE TABLE partners (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    provider        TEXT,      -- 'aftership' | 'easypost': the carrier aggregator whose webhook brings its events
    provider_secret TEXT,      -- what that aggregator signs with: checking a signature needs the secret itself
    created_at      INTEGER NOT NULL
) STRICT;

CREATE TABLE partner_merchants (
    partner_id  INTEGER NOT NULL REFERENCES partners (id),
    merchant_id INTEGER NOT NULL REFERENCES merchants (id),
    PRIMARY KEY (partner_id, merchant_id)
) STRICT, WITHOUT ROWID;

-- A partner's API keys: never the key, only its SHA-256, found by the key's public id.
CREATE TABLE partner_keys (
    id           TEXT PRIMARY KEY,
    partner_id   INTEGER NOT NULL REFERENCES partners (id),
    hash         BLOB NOT NULL,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
) STRICT;
CREATE INDEX partner_keys_by_partner ON partner_keys (partner_id);

-- Who made each version: merchant:<slug>, partner:<name>, operator; null before this migration.
ALTER TABLE order_versions ADD COLUMN made_by TEXT;

-- The parcels orders' fulfillments follow, kept by every write that changes them: tracking events find their
-- orders here. last_event_at is when the last event applied to the fulfillment happened; an older one is stale.
CREATE TABLE order_tracking (
    order_type_identifier  TEXT NOT NULL,
    order_identifier       TEXT NOT NULL,
    fulfillment_identifier TEXT NOT NULL,
    merchant_id            INTEGER NOT NULL,
    tracking_number        TEXT NOT NULL,
    carrier                TEXT,
    last_event_at          INTEGER,
    PRIMARY KEY (order_type_identifier, order_identifier, fulfillment_identifier)
) STRICT, WITHOUT ROWID;
CREATE INDEX order_tracking_by_number ON order_tracking (tracking_number, merchant_id);
INSERT INTO order_tracking (order_type_identifier, order_identifier, fulfillment_identifier, merchant_id,
                            tracking_number, carrier)
SELECT o.order_type_identifier, o.order_identifier, json_extract(f.value, '$.fulfillmentIdentifier'), o.merchant_id,
       json_extract(f.value, '$.trackingNumber'), json_extract(f.value, '$.carrier')
FROM orders o, json_each(o.document, '$.fulfillments') f
WHERE json_type(f.value, '$.trackingNumber') = 'text' AND json_type(f.value, '$.fulfillmentIdentifier') = 'text'
ON CONFLICT DO NOTHING;

-- Tracking events, kept for idempotency (by sender and id) and, when no order holds their tracking number yet,
-- until one does. The event itself is the service's JSON.
CREATE TABLE tracking_events (
    source          TEXT NOT NULL,     -- merchant:<id> or partner:<id>
    event_id        TEXT NOT NULL,
    tracking_number TEXT NOT NULL,
    body            BLOB NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('received', 'applied', 'stale', 'pending')),
    received_at     INTEGER NOT NULL,
    PRIMARY KEY (source, event_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX tracking_events_waiting ON tracking_events (tracking_number) WHERE state IN ('received', 'pending');
CREATE INDEX tracking_events_pending_by_source ON tracking_events (source) WHERE state = 'pending';
CREATE INDEX tracking_events_by_time ON tracking_events (received_at);
