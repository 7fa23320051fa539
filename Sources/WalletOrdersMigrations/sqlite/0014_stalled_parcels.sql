-- Stalled parcels (issue 42): a merchant may ask that a parcel in transit of which nothing was heard for some hours
-- moves to `issue`. Each parcel an order follows keeps whether its fulfillment was in transit when last written (null:
-- written before this migration, so not known until the order is read), when it was last heard of (a carrier event,
-- any change to its fulfillment), and when it was found stalled, which happens once until it is heard of again.
-- Parcels followed before this migration count as heard of now.
ALTER TABLE merchants ADD COLUMN stalled_parcel_hours INTEGER;
ALTER TABLE order_tracking ADD COLUMN in_transit INTEGER;
ALTER TABLE order_tracking ADD COLUMN heard_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE order_tracking ADD COLUMN stalled_at INTEGER;
UPDATE order_tracking SET heard_at = CAST(strftime('%s', 'now') AS INTEGER);
CREATE INDEX order_tracking_quiet ON order_tracking (merchant_id, heard_at)
    WHERE stalled_at IS NULL AND in_transit IS NOT 0;
