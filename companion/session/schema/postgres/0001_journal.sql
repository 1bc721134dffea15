-- Card Companion's tables and their journals in PostgreSQL (companion.session.postgres applies the files
-- of this folder in order, once each, and records them in companion_schema). The same data as the SQLite
-- store (companion/session/store.py): JSON kept as the text it was written as, so both stores give back
-- exactly what was stored.
CREATE TABLE tables (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    setup TEXT NOT NULL,
    pin_salt TEXT NOT NULL,
    pin_hash TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}',
    token_hash TEXT
);

CREATE TABLE journal (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seq BIGINT NOT NULL CHECK (seq > 0),
    kind TEXT NOT NULL,
    event TEXT,
    source TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    request_key TEXT,
    CONSTRAINT journal_pkey PRIMARY KEY (table_id, seq)
);
-- An Idempotency-Key makes one change per table, whichever server the retry reaches.
CREATE UNIQUE INDEX journal_request_key ON journal (table_id, request_key) WHERE request_key IS NOT NULL;

-- The revision is decided here: a change takes the number after the table's newest stored one, or none.
-- (The primary key refuses a number taken; this refuses a gap, e.g. a server that skipped a change it had
-- not seen yet.) Append-only: nothing stored is ever updated or deleted, undo included.
CREATE FUNCTION companion_journal_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        RAISE EXCEPTION 'the journal is append-only' USING ERRCODE = 'restrict_violation';
    END IF;
    IF NEW.seq > 1 AND NOT EXISTS (SELECT 1 FROM journal WHERE table_id = NEW.table_id AND seq = NEW.seq - 1) THEN
        RAISE EXCEPTION 'change % of table % follows no stored change', NEW.seq, NEW.table_id
            USING ERRCODE = 'unique_violation', CONSTRAINT = 'journal_contiguous';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER journal_check BEFORE INSERT OR UPDATE OR DELETE ON journal
    FOR EACH ROW EXECUTE FUNCTION companion_journal_check();
CREATE TRIGGER tables_append_only BEFORE DELETE ON tables
    FOR EACH ROW EXECUTE FUNCTION companion_journal_check();
