-- Every page a write touches is written twice: into the log, then by the checkpoint into the database. These changes
-- take pages off the two writes devices and merchants make most: an order's new version and a registration.

-- No query reads this index (the admin listing walks orders by rowid), yet each update moved the order in it.
DROP INDEX orders_by_updated;

-- The history clustered on its key, as it is always read: a rowid table kept a second tree (its key's index) for
-- every row.
CREATE TABLE order_versions_by_key (
    order_type_identifier TEXT NOT NULL,
    order_identifier      TEXT NOT NULL,
    version               INTEGER NOT NULL,
    status                TEXT NOT NULL,
    updated_at            INTEGER NOT NULL,  -- unix seconds, the order's updatedAt for this version
    PRIMARY KEY (order_type_identifier, order_identifier, version),
    FOREIGN KEY (order_type_identifier, order_identifier)
        REFERENCES orders (order_type_identifier, order_identifier) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;
INSERT INTO order_versions_by_key (order_type_identifier, order_identifier, version, status, updated_at)
SELECT order_type_identifier, order_identifier, version, status, updated_at FROM order_versions
ORDER BY order_type_identifier, order_identifier, version;
DROP TABLE order_versions;
ALTER TABLE order_versions_by_key RENAME TO order_versions;

-- Registrations clustered on their key (device, order type, order), which a device's listing reads in order: the
-- same, one tree fewer per registration.
CREATE TABLE registrations_by_key (
    device_identifier     TEXT NOT NULL,
    order_type_identifier TEXT NOT NULL,
    order_identifier      TEXT NOT NULL,
    push_token            TEXT NOT NULL,
    created_at            INTEGER NOT NULL,
    updated_at            INTEGER NOT NULL,
    PRIMARY KEY (device_identifier, order_type_identifier, order_identifier),
    FOREIGN KEY (order_type_identifier, order_identifier)
        REFERENCES orders (order_type_identifier, order_identifier) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;
INSERT INTO registrations_by_key (device_identifier, order_type_identifier, order_identifier, push_token, created_at,
                                  updated_at)
SELECT device_identifier, order_type_identifier, order_identifier, push_token, created_at, updated_at
FROM registrations ORDER BY device_identifier, order_type_identifier, order_identifier;
DROP TABLE registrations;
ALTER TABLE registrations_by_key RENAME TO registrations;
CREATE INDEX registrations_by_order ON registrations (order_type_identifier, order_identifier);
CREATE INDEX registrations_by_push_token ON registrations (push_token);
