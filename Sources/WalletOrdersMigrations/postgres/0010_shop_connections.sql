-- Shops connected to merchants (issue 42): each platform's webhooks, checked with the connection's secret or key,
-- create and update the merchant's orders. A webhook's id is kept for a while so that one sent again is taken once.
CREATE TABLE shop_connections (
    id TEXT PRIMARY KEY,
    merchant_id BIGINT NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    shop TEXT NOT NULL,
    secret TEXT NOT NULL,
    order_management_url TEXT,
    skip_apple_pay BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX shop_connections_by_merchant ON shop_connections (merchant_id, created_at);

CREATE TABLE shop_webhooks (
    connection_id TEXT NOT NULL REFERENCES shop_connections (id) ON DELETE CASCADE,
    webhook_id TEXT NOT NULL,
    received_at BIGINT NOT NULL,
    PRIMARY KEY (connection_id, webhook_id)
);
CREATE INDEX shop_webhooks_by_time ON shop_webhooks (received_at);
