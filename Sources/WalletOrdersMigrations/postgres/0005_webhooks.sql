-- Webhooks (issue 32): a merchant's endpoints, and the outbox of deliveries to them. A delivery row is written in
-- the transaction of the change it tells about, one per endpoint that listens for the event, and sent by a worker
-- of any instance (claims skip rows another instance has locked).
CREATE TABLE webhook_endpoints (
    id                    text    PRIMARY KEY,
    merchant_id           bigint  NOT NULL REFERENCES merchants (id),
    url                   text    NOT NULL,
    events                bigint  NOT NULL,   -- a bit per event (WebhookEvent.bit)
    secret                text    NOT NULL,   -- whsec_…: signing needs the secret itself
    previous_secret       text,               -- the secret before a rotation, signing beside the new one for a while
    previous_secret_until bigint,
    created_at            bigint  NOT NULL,
    updated_at            bigint  NOT NULL,
    disabled_at           bigint,
    disabled_reason       text
);
CREATE INDEX webhook_endpoints_by_merchant ON webhook_endpoints (merchant_id);

CREATE TABLE webhook_deliveries (
    id                    bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id            text    NOT NULL,   -- the webhook-id header, the same on every attempt
    endpoint_id           text    NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event                 text    NOT NULL,
    order_type_identifier text    NOT NULL,
    order_identifier      text    NOT NULL,
    detail                text    NOT NULL,   -- a JSON object: what the event says beyond the order
    occurred_at           bigint  NOT NULL,
    status                text    NOT NULL CHECK (status IN ('pending', 'sending', 'delivered', 'failed')),
    attempts              integer NOT NULL DEFAULT 0,
    next_attempt_at       bigint  NOT NULL,
    claimed_by            text,
    lease_until           bigint,
    last_status_code      integer,
    last_error            text,
    updated_at            bigint  NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_claims ON webhook_deliveries (lease_until) WHERE status = 'sending';
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, id);
CREATE INDEX webhook_deliveries_by_updated ON webhook_deliveries (updated_at);
