-- The write path records each version's history row itself, as the PostgreSQL store does, rather than by trigger.
DROP TRIGGER order_versions_on_insert;
DROP TRIGGER order_versions_on_update;

-- "Which orders changed since" goes from the device's registrations to each order by its key; an index on
-- (order type, change tag) only tempted the planner to walk every order of the type instead.
DROP INDEX orders_by_change;

-- Claims on the outbox: which instance sends a push, and until when its claim holds unless renewed. A claim
-- whose lease ran out (its instance died) goes back to pending.
ALTER TABLE push_outbox ADD COLUMN claimed_by TEXT;
ALTER TABLE push_outbox ADD COLUMN lease_until INTEGER;
CREATE INDEX push_outbox_claims ON push_outbox (claimed_by, lease_until) WHERE status = 'sending';
