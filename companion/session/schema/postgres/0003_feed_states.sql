-- What a table's camera or detections feed has settled (its table pipeline, saved: the cards it follows, where
-- each lies, what the game binding knows of each), kept by the server holding the feed's lease after each
-- post that changed it. A server that takes the feed over (its owner died) goes on from it, so a card that
-- lay on the mat at the takeover is seen leaving it and none is seen arriving twice. Not the journal: this
-- row is replaced as the feed goes on (nothing a user entered is in it).
CREATE TABLE feed_states (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    feed TEXT NOT NULL,
    revision BIGINT NOT NULL,
    state BYTEA NOT NULL,
    saved_at TIMESTAMPTZ NOT NULL
);
