-- When each version of an order was written, for admins: one row per version, kept by triggers so no write
-- path can forget it. Existing orders start with their current version.
CREATE TABLE order_versions (
    order_type_identifier TEXT NOT NULL,
    order_identifier      TEXT NOT NULL,
    version               INTEGER NOT NULL,
    status                TEXT NOT NULL,
    updated_at            INTEGER NOT NULL,  -- unix seconds, the order's updatedAt for this version
    PRIMARY KEY (order_type_identifier, order_identifier, version),
    FOREIGN KEY (order_type_identifier, order_identifier)
        REFERENCES orders (order_type_identifier, order_identifier) ON DELETE CASCADE
) STRICT;

INSERT INTO order_versions (order_type_identifier, order_identifier, version, status, updated_at)
SELECT order_type_identifier, order_identifier, version, status, updated_at FROM orders;

CREATE TRIGGER order_versions_on_insert AFTER INSERT ON orders BEGIN
    INSERT OR REPLACE INTO order_versions (order_type_identifier, order_identifier, version, status, updated_at)
    VALUES (NEW.order_type_identifier, NEW.order_identifier, NEW.version, NEW.status, NEW.updated_at);
END;

CREATE TRIGGER order_versions_on_update AFTER UPDATE OF version ON orders BEGIN
    INSERT OR REPLACE INTO order_versions (order_type_identifier, order_identifier, version, status, updated_at)
    VALUES (NEW.order_type_identifier, NEW.order_identifier, NEW.version, NEW.status, NEW.updated_at);
END;

CREATE INDEX push_outbox_by_order ON push_outbox (order_type_identifier, order_identifier);
CREATE INDEX push_outbox_by_updated ON push_outbox (updated_at);
