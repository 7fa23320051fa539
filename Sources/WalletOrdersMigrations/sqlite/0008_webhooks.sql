-- Webhooks (issue 32): a merchant's endpoints, and the outbox of deliveries to them. A delivery row is written in
-- the transaction of the change it tells about, one per endpoint that listens for the event, and sent by a worker.
CREATE TABLE webhook_endpoints (
    id                    TEXT PRIMARY KEY,
    merchant_id           INTEGER NOT NULL REFERENCES merchants (id),
    url                   TEXT NOT NULL,
    events                INTEGER NOT NULL,   -- a bit per event (WebhookEvent.bit)
    secret                TEXT NOT NULL,      -- whsec_…: signing needs the secret itself
    previous_secret       TEXT,               -- the secret before a rotation, signing beside the new one for a while
    previous_secret_until INTEGER,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL,
    disabled_at           INTEGER,
    disabled_reason       TEXT
) STRICT;
CREATE INDEX webhook_endpoints_by_merchant ON webhook_endpoints (merchant_id);

CREATE TABLE webhook_deliveries (
    id                    INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id            TEXT NOT NULL,      -- the webhook-id header, the same on every attempt
    endpoint_id           TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event                 TEXT NOT NULL,
    order_type_identifier TEXT NOT NULL,
    order_identifier      TEXT NOT NULL,
    detail                TEXT NOT NULL,      -- a JSON object: what the event says beyond the order
    occurred_at           INTEGER NOT NULL,
    status                TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'delivered', 'failed')),
    attempts              INTEGER NOT NULL DEFAULT 0,
    next_attempt_at       INTEGER NOT NULL,
    claimed_by            TEXT,
    lease_until           INTEGER,
    last_status_code      INTEGER,
    last_error            TEXT,
    updated_at            INTEGER NOT NULL
) STRICT;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_claims ON webhook_deliveries (lease_until) WHERE status = 'sending';
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, id);
CREATE INDEX webhook_deliveries_by_updated ON webhook_deliveries (updated_at);
