-- A table's camera or detections feed runs on one server at a time: the owner holds this row and renews
-- it every few seconds; when it stops renewing (the server died), another server may take the lease.
CREATE TABLE feed_leases (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    owner TEXT NOT NULL,
    kind TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
