-- Orders, their packages, per-order files and history; device registrations; device logs; the push outbox.
-- Times are unix seconds (bigint), as in the SQLite store, so both engines answer alike.

CREATE TABLE orders (
    order_type_identifier text    NOT NULL,
    order_identifier      text    NOT NULL,
    -- Newest-first listings page by it.
    seq                   bigint  GENERATED ALWAYS AS IDENTITY,
    authentication_token  text    NOT NULL,
    -- order.json as stored (sorted keys), server-filled fields included; text keeps the bytes that were signed.
    document              text    NOT NULL,
    status                text    NOT NULL,
    created_at            bigint  NOT NULL,
    updated_at            bigint  NOT NULL,  -- moves forward at least one second per update
    -- The id of the transaction that wrote this version (pg_current_xact_id()). "Which orders changed since"
    -- compares it with the device's tag, and hands out tags no later than the oldest transaction still running,
    -- so a write that commits late is never skipped.
    change_tag            bigint  NOT NULL,
    version               integer NOT NULL,
    PRIMARY KEY (order_type_identifier, order_identifier)
);
CREATE UNIQUE INDEX orders_by_seq ON orders (seq);
CREATE INDEX orders_by_updated ON orders (updated_at);

CREATE TABLE order_assets (
    order_type_identifier text  NOT NULL,
    order_identifier      text  NOT NULL,
    path                  text  NOT NULL,
    data                  bytea NOT NULL,
    PRIMARY KEY (order_type_identifier, order_identifier, path),
    FOREIGN KEY (order_type_identifier, order_identifier)
        REFERENCES orders (order_type_identifier, order_identifier) ON DELETE CASCADE
);

CREATE TABLE order_packages (
    order_type_identifier text    NOT NULL,
    order_identifier      text    NOT NULL,
    version               integer NOT NULL,
    data                  bytea   NOT NULL,
    PRIMARY KEY (order_type_identifier, order_identifier),
    FOREIGN KEY (order_type_identifier, order_identifier)
        REFERENCES orders (order_type_identifier, order_identifier) ON DELETE CASCADE
);
-- Packages are already compressed (zip): don't spend CPU compressing them again.
ALTER TABLE order_packages ALTER COLUMN data SET STORAGE EXTERNAL;

CREATE TABLE order_versions (
    order_type_identifier text    NOT NULL,
    order_identifier      text    NOT NULL,
    version               integer NOT NULL,
    status                text    NOT NULL,
    updated_at            bigint  NOT NULL,
    PRIMARY KEY (order_type_identifier, order_identifier, version),
    FOREIGN KEY (order_type_identifier, order_identifier)
        REFERENCES orders (order_type_identifier, order_identifier) ON DELETE CASCADE
);

CREATE TABLE registrations (
    device_identifier     text   NOT NULL,
    order_type_identifier text   NOT NULL,
    order_identifier      text   NOT NULL,
    push_token            text   NOT NULL,
    created_at            bigint NOT NULL,
    updated_at            bigint NOT NULL,
    PRIMARY KEY (device_identifier, order_type_identifier, order_identifier),
    FOREIGN KEY (order_type_identifier, order_identifier)
        REFERENCES orders (order_type_identifier, order_identifier) ON DELETE CASCADE
);
CREATE INDEX registrations_by_order ON registrations (order_type_identifier, order_identifier);
CREATE INDEX registrations_by_push_token ON registrations (push_token);
CREATE INDEX registrations_by_updated ON registrations (updated_at);

CREATE TABLE device_logs (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    received_at    bigint NOT NULL,
    remote_address text,
    message        text   NOT NULL
);
CREATE INDEX device_logs_by_time ON device_logs (received_at);

-- One row per push to send. Pending rows for the same order and push token collapse into one. A push being sent
-- is claimed by one instance (claimed_by) until lease_until, which that instance keeps renewing while it lives.
CREATE TABLE push_outbox (
    id                    bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    order_type_identifier text    NOT NULL,
    order_identifier      text    NOT NULL,
    device_identifier     text    NOT NULL,
    push_token            text    NOT NULL,
    status                text    NOT NULL CHECK (status IN ('pending', 'sending', 'delivered', 'failed')),
    attempts              integer NOT NULL DEFAULT 0,
    next_attempt_at       bigint  NOT NULL,
    last_error            text,
    created_at            bigint  NOT NULL,
    updated_at            bigint  NOT NULL,
    claimed_by            text,
    lease_until           bigint
);
CREATE UNIQUE INDEX push_outbox_one_pending
    ON push_outbox (order_type_identifier, order_identifier, push_token) WHERE status = 'pending';
CREATE INDEX push_outbox_due ON push_outbox (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX push_outbox_claims ON push_outbox (claimed_by, lease_until) WHERE status = 'sending';
CREATE INDEX push_outbox_by_order ON push_outbox (order_type_identifier, order_identifier);
CREATE INDEX push_outbox_by_status ON push_outbox (status, id);
CREATE INDEX push_outbox_by_updated ON push_outbox (updated_at);
