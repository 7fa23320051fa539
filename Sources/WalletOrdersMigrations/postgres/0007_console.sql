-- The operator's console (issue 30): one search box, filters, an order's whole story, day-by-day charts; each served
-- by an index, so that a page answers in milliseconds at a million orders.

-- When a device first registered for the order: the day it was added to Wallet, kept when devices come and go.
ALTER TABLE orders ADD COLUMN first_registered_at bigint;
UPDATE orders o SET first_registered_at = r.first
FROM (SELECT order_type_identifier, order_identifier, min(created_at) AS first FROM registrations
      GROUP BY order_type_identifier, order_identifier) r
WHERE r.order_type_identifier = o.order_type_identifier AND r.order_identifier = o.order_identifier;
CREATE INDEX orders_by_first_registration ON orders (first_registered_at) WHERE first_registered_at IS NOT NULL;

-- The search box: Wallet's order identifier, the shop's order number of any merchant, a push token's beginning.
CREATE INDEX orders_by_identifier ON orders (order_identifier);
CREATE INDEX orders_by_any_number ON orders (order_number) WHERE order_number IS NOT NULL;
CREATE INDEX registrations_by_push_token_prefix ON registrations (push_token text_pattern_ops);
-- Filters, each in the listing's order: the status (a rare one is found without reading the others) and the
-- creation date.
CREATE INDEX orders_by_status ON orders (status, seq);
CREATE INDEX orders_by_created ON orders (created_at, seq);

-- What a version changed from the one before: a JSON array of {path, before, after}; NULL for a first version.
ALTER TABLE order_versions ADD COLUMN changes text;
CREATE INDEX order_versions_by_time ON order_versions (updated_at);

-- An order's webhook deliveries, for its page.
CREATE INDEX webhook_deliveries_by_order ON webhook_deliveries (order_type_identifier, order_identifier, id);
