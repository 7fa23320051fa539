-- Tracking events bounded by what is stored (issue 39): a sender's waiting events, `received` and `pending` alike,
-- are counted by source, and a write that gives an order a tracking number finds the events waiting for it by the
-- number and the sender at once, however many events the sender keeps.
DROP INDEX tracking_events_waiting;
CREATE INDEX tracking_events_waiting ON tracking_events (tracking_number, source) WHERE state IN ('received', 'pending');
DROP INDEX tracking_events_pending_by_source;
CREATE INDEX tracking_events_waiting_by_source ON tracking_events (source) WHERE state IN ('received', 'pending');
