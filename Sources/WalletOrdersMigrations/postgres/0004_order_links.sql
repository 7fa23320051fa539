-- Download links (issue 32): the URL a "Track with Apple Wallet" button or an email points at. Only the SHA-256 of
-- a link's reference is kept; a link is found by it, used up by its first download unless it is reusable, and
-- expires.
CREATE TABLE order_links (
    id                    text    PRIMARY KEY,
    hash                  bytea   NOT NULL UNIQUE,
    merchant_id           bigint  NOT NULL REFERENCES merchants (id),
    order_type_identifier text    NOT NULL,
    order_identifier      text    NOT NULL,
    reusable              boolean NOT NULL,
    created_at            bigint  NOT NULL,
    expires_at            bigint  NOT NULL,
    first_used_at         bigint,
    first_user            text,               -- a digest of the address that first downloaded it, for its grace
    downloads             bigint  NOT NULL DEFAULT 0,
    revoked_at            bigint,
    FOREIGN KEY (order_type_identifier, order_identifier) REFERENCES orders (order_type_identifier, order_identifier)
);
CREATE INDEX order_links_by_order ON order_links (order_type_identifier, order_identifier, expires_at);
CREATE INDEX order_links_by_expiry ON order_links (expires_at);
