-- Orders, their cached packages and per-order files; device registrations; device logs; the push outbox.

-- A global change counter: every order write takes the next value, so "changed since" never misses an update,
-- whatever the clock does.
CREATE TABLE counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) STRICT;
INSERT INTO counters (name, value) VALUES ('order_change', 0);

CREATE TABLE orders (
    order_type_identifier TEXT NOT NULL,
    order_identifier      TEXT NOT NULL,
    authentication_token  TEXT NOT NULL,
    -- order.json as stored (sorted keys), server-filled fields included.
    document              TEXT NOT NULL,
    status                TEXT NOT NULL,
    created_at            INTEGER NOT NULL,  -- unix seconds
    updated_at            INTEGER NOT NULL,  -- unix seconds; moves forward at least one second per update
    change_tag            INTEGER NOT NULL,  -- counters.order_change when last written
    version               INTEGER NOT NULL,  -- 1 on create, +1 per update
    PRIMARY KEY (order_type_identifier, order_identifier)
) STRICT;
CREATE INDEX orders_by_change ON orders (order_type_identifier, change_tag);
CREATE INDEX orders_by_updated ON orders (updated_at);

-- Per-order files (images, return labels) sent by the merchant, kept to rebuild the package.
CREATE TABLE order_assets (
    order_type_identifier TEXT NOT NULL,
    order_identifier      TEXT NOT NULL,
    path                  TEXT NOT NULL,
    data                  BLOB NOT NULL,
    PRIMARY KEY (order_type_identifier, order_identifier, path),
    FOREIGN KEY (order_type_identifier, order_identifier)
        REFERENCES orders (order_type_identifier, order_identifier) ON DELETE CASCADE
) STRICT;

-- The signed package of each order's current version, built once when the version is written.
CREATE TABLE order_packages (
    order_type_identifier TEXT NOT NULL,
    order_identifier      TEXT NOT NULL,
    version               INTEGER NOT NULL,
    data                  BLOB NOT NULL,
    PRIMARY KEY (order_type_identifier, order_identifier),
    FOREIGN KEY (order_type_identifier, order_identifier)
        REFERENCES orders (order_type_identifier, order_identifier) ON DELETE CASCADE
) STRICT;

CREATE TABLE registrations (
    device_identifier     TEXT NOT NULL,
    order_type_identifier TEXT NOT NULL,
    order_identifier      TEXT NOT NULL,
    push_token            TEXT NOT NULL,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL,
    PRIMARY KEY (device_identifier, order_type_identifier, order_identifier),
    FOREIGN KEY (order_type_identifier, order_identifier)
        REFERENCES orders (order_type_identifier, order_identifier) ON DELETE CASCADE
) STRICT;
CREATE INDEX registrations_by_order ON registrations (order_type_identifier, order_identifier);
CREATE INDEX registrations_by_push_token ON registrations (push_token);

CREATE TABLE device_logs (
    id             INTEGER PRIMARY KEY,
    received_at    INTEGER NOT NULL,
    remote_address TEXT,
    message        TEXT NOT NULL
) STRICT;
CREATE INDEX device_logs_by_time ON device_logs (received_at);

-- One row per push to send. Pending rows for the same order and push token collapse into one.
CREATE TABLE push_outbox (
    id                    INTEGER PRIMARY KEY,
    order_type_identifier TEXT NOT NULL,
    order_identifier      TEXT NOT NULL,
    device_identifier     TEXT NOT NULL,
    push_token            TEXT NOT NULL,
    status                TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'delivered', 'failed')),
    attempts              INTEGER NOT NULL DEFAULT 0,
    next_attempt_at       INTEGER NOT NULL,
    last_error            TEXT,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX push_outbox_one_pending
    ON push_outbox (order_type_identifier, order_identifier, push_token) WHERE status = 'pending';
CREATE INDEX push_outbox_due ON push_outbox (status, next_attempt_at);
