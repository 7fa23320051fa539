-- Device logs are bounded (issue 13): identical messages fold into one row with a count and the time last seen;
-- each row keeps its size (twice the message's bytes plus a charge of 160 for the row and its index entries, as
-- DeviceLogEntry.storedSize counts it) and counters.device_log_bytes their sum, so that the rows last seen
-- longest ago can go when the sum passes the configured total. message_hash is FNV-1a of the message; rows
-- stored before this migration have 0 and are never folded into.
ALTER TABLE device_logs ADD COLUMN message_hash INTEGER NOT NULL DEFAULT 0;
ALTER TABLE device_logs ADD COLUMN count INTEGER NOT NULL DEFAULT 1;
ALTER TABLE device_logs ADD COLUMN last_seen_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE device_logs ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
UPDATE device_logs SET last_seen_at = received_at, size = 2 * length(CAST(message AS BLOB)) + 160;
CREATE INDEX device_logs_by_hash ON device_logs (message_hash);
CREATE INDEX device_logs_by_last_seen ON device_logs (last_seen_at, id);
INSERT INTO counters (name, value) SELECT 'device_log_bytes', COALESCE(SUM(size), 0) FROM device_logs;
