-- The operator's console (issue 30): one search box, filters, an order's whole story, day-by-day charts; each served
-- by an index, so that a page answers in milliseconds at a million orders.

-- When a device first registered for the order: the day it was added to Wallet, kept when devices come and go.
ALTER TABLE orders ADD COLUMN first_registered_at INTEGER;
UPDATE orders SET first_registered_at = (
    SELECT MIN(r.created_at) FROM registrations r
    WHERE r.order_type_identifier = orders.order_type_identifier AND r.order_identifier = orders.order_identifier
);
CREATE INDEX orders_by_first_registration ON orders (first_registered_at) WHERE first_registered_at IS NOT NULL;

-- The search box: Wallet's order identifier and the shop's order number of any merchant.
CREATE INDEX orders_by_identifier ON orders (order_identifier);
CREATE INDEX orders_by_any_number ON orders (order_number) WHERE order_number IS NOT NULL;
-- Filters: the status (a rare one is found without reading the others) and the creation date. Each holds the rowid,
-- the listing's order.
CREATE INDEX orders_by_status ON orders (status);
CREATE INDEX orders_by_created ON orders (created_at);

-- What a version changed from the one before: a JSON array of {path, before, after}; NULL for a first version.
ALTER TABLE order_versions ADD COLUMN changes TEXT;
CREATE INDEX order_versions_by_time ON order_versions (updated_at);

-- An order's webhook deliveries, for its page.
CREATE INDEX webhook_deliveries_by_order ON webhook_deliveries (order_type_identifier, order_identifier, id);
