-- Download links (issue 32): the URL a "Track with Apple Wallet" button or an email points at. Only the SHA-256 of
-- a link's reference is kept; a link is found by it, used up by its first download unless it is reusable, and
-- expires.
CREATE TABLE order_links (
    id                    TEXT PRIMARY KEY,
    hash                  BLOB NOT NULL UNIQUE,
    merchant_id           INTEGER NOT NULL REFERENCES merchants (id),
    order_type_identifier TEXT NOT NULL,
    order_identifier      TEXT NOT NULL,
    reusable              INTEGER NOT NULL,
    created_at            INTEGER NOT NULL,
    expires_at            INTEGER NOT NULL,
    first_used_at         INTEGER,
    first_user            TEXT,               -- a digest of the address that first downloaded it, for its grace
    downloads             INTEGER NOT NULL DEFAULT 0,
    revoked_at            INTEGER,
    FOREIGN KEY (order_type_identifier, order_identifier) REFERENCES orders (order_type_identifier, order_identifier)
) STRICT;
CREATE INDEX order_links_by_order ON order_links (order_type_identifier, order_identifier, expires_at);
CREATE INDEX order_links_by_expiry ON order_links (expires_at);
