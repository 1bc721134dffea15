"""Persistence: every table's setup and every journal entry, written as it happens, behind one interface.

:class:`JournalStore` is what the session needs of a database. :class:`EventStore` is the embedded one
(the default: a home table and the demo need no database server): one SQLite file per data directory,
in WAL mode with ``synchronous=FULL`` so a committed entry survives a crash or power cut; each change is
its own transaction. :class:`companion.session.postgres.PostgresStore` keeps the same journal in
PostgreSQL, shared by several servers (``companion serve --database postgresql://…``). The schema is
append-only in both: nothing a user entered is ever updated or deleted, undo included (undo is an entry).
"""
from __future__ import annotations

import abc
import json
import pathlib
import sqlite3
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from companion.messages import MessageError

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    setup TEXT NOT NULL,
    pin_salt TEXT NOT NULL,
    pin_hash TEXT NOT NULL,
    created_at REAL NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS journal (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    event TEXT,
    source TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (table_id, seq)
);
"""
# Columns added after the first release: a database made before them gains them on open (nullable, so
# every stored row stays as it was). token_hash: the referee token's salted hash (tables made before it
# have none and use their PIN); request_key: the client's Idempotency-Key of the request that made a change.
ADDED_COLUMNS = (("tables", "token_hash", "TEXT"), ("journal", "request_key", "TEXT"))


@dataclass(frozen=True)
class TableRecord:
    id: str
    game: str
    setup: dict
    pin_salt: str
    pin_hash: str
    created_at: float
    meta: dict = field(default_factory=dict)  # what only the screens use, e.g. player colours
    token_hash: str | None = None  # the referee token's salted hash (same salt as the PIN)


@dataclass(frozen=True)
class JournalEntry:
    """One change to a table: ``kind`` is ``event`` (an engine event), ``undo``, ``redo`` or ``deck`` (the
    deck the camera reads with from then on: ``event`` is ``{"deck": NAME or null}`` or ``{"server_default": true}``)."""

    seq: int
    kind: str
    event: dict | None
    source: str
    at: float
    key: str | None = None  # the Idempotency-Key it was made under: a retry with it answers this entry
    replayed: bool = field(default=False, compare=False)  # True: answered again for a retried request

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "kind": self.kind, "event": self.event, "source": self.source, "at": self.at}


class StoreConflict(Exception):
    """What the database refused because another writer came first: ``kind`` is ``"revision"`` (a change with
    this sequence number is stored already: another server changed the table), ``"key"`` (the
    Idempotency-Key made a change already) or ``"table"`` (the table id is taken)."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


class StoreUnavailable(MessageError):
    """The database cannot be reached (now): nothing was written; the caller may retry later (HTTP 503)."""


# Called with (table id, revision) when another writer may have changed a table; (None, None): anything
# may have changed (the notifications were interrupted), every table should look again.
ChangeHeard = Callable[[str | None, int | None], None]


class JournalStore(abc.ABC):
    """What the session keeps in a database: the tables' setups and each table's append-only journal.

    ``append`` is where the revision is decided: a change is stored with the sequence number after the
    table's newest, and the database refuses (:class:`StoreConflict`) a number that is taken, so two
    servers racing on one table cannot both write the same revision. Every method may raise
    :class:`StoreUnavailable`; then nothing was written."""

    # True when other servers write the same tables (the session then reads what they wrote before a change).
    shared: bool = False

    @abc.abstractmethod
    def add_table(self, record: TableRecord) -> None: ...

    @abc.abstractmethod
    def append(self, table_id: str, entry: JournalEntry | Sequence[JournalEntry]) -> None:
        """Stores one change (or several, all or none) at the sequence numbers they carry."""

    @abc.abstractmethod
    def tables(self) -> list[TableRecord]: ...

    @abc.abstractmethod
    def table(self, table_id: str) -> TableRecord | None: ...

    @abc.abstractmethod
    def journal(self, table_id: str, after: int = 0) -> list[JournalEntry]:
        """The table's changes after sequence number ``after``, oldest first."""

    @abc.abstractmethod
    def entry_for_key(self, table_id: str, key: str) -> JournalEntry | None:
        """The change an Idempotency-Key made at this table, if any."""

    def take_lease(self, table_id: str, owner: str, kind: str, seconds: float) -> float:
        """Takes or renews ``owner``'s lease on the table's camera feed for ``seconds``: 0 when it holds it
        now, else the seconds until another owner's lease runs out. One server per store: always its own."""
        return 0.0

    def release_lease(self, table_id: str, owner: str) -> None:  # noqa: B027 - one server: nothing to release
        """Gives the lease up (if ``owner`` holds it), so another server may take the feed at once."""
        return None

    def save_feed_state(self, table_id: str, owner: str, feed: str, revision: int, state: bytes) -> bool:
        """Keeps what the table's feed ``feed`` has settled (its pipeline, saved) at the table's ``revision``,
        for a server that takes the feed over; only while ``owner`` holds the feed's lease. True when kept.
        One server per store: no other server takes a feed over, nothing is kept."""
        return False

    def feed_state(self, table_id: str, feed: str) -> bytes | None:
        """What :meth:`save_feed_state` kept of the table's feed ``feed`` (None: nothing, or another feed's)."""
        return None

    def listen(self, heard: ChangeHeard) -> None:  # noqa: B027 - optional: a store with one writer has nothing to say
        """Calls ``heard`` when another server changes a table."""
        return None

    @abc.abstractmethod
    def close(self) -> None: ...


class EventStore(JournalStore):
    """The one SQLite file of a data directory. Thread-safe: one connection behind a lock."""

    FILENAME = "companion.sqlite3"

    def __init__(self, data_dir: str | pathlib.Path) -> None:
        self.data_dir = pathlib.Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.data_dir / self.FILENAME
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)
        for table, column, kind in ADDED_COLUMNS:
            present = {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}
            if column not in present:
                self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
        # A retried request finds the change its Idempotency-Key made without reading the whole journal.
        self._db.execute("CREATE INDEX IF NOT EXISTS journal_request_key ON journal (table_id, request_key) "
                         "WHERE request_key IS NOT NULL")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def add_table(self, record: TableRecord) -> None:
        with self._lock, self._transaction():
            self._db.execute(
                "INSERT INTO tables (id, game, setup, pin_salt, pin_hash, created_at, meta, token_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (record.id, record.game, json.dumps(record.setup), record.pin_salt, record.pin_hash, record.created_at,
                 json.dumps(record.meta), record.token_hash),
            )

    def append(self, table_id: str, entry: JournalEntry | Sequence[JournalEntry]) -> None:
        entries = [entry] if isinstance(entry, JournalEntry) else list(entry)
        try:
            with self._lock, self._transaction():
                for one in entries:
                    self._db.execute(
                        "INSERT INTO journal (table_id, seq, kind, event, source, at, request_key) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (table_id, one.seq, one.kind, None if one.event is None else json.dumps(one.event), one.source, one.at,
                         one.key),
                    )
        except sqlite3.IntegrityError:
            raise StoreConflict("revision") from None   # one server per file: only a second process on it gets here

    def tables(self) -> list[TableRecord]:
        with self._lock:
            rows = self._db.execute("SELECT id, game, setup, pin_salt, pin_hash, created_at, meta, token_hash FROM tables "
                                    "ORDER BY created_at, id").fetchall()
        return [TableRecord(r[0], r[1], json.loads(r[2]), r[3], r[4], r[5], json.loads(r[6]), r[7]) for r in rows]

    def table(self, table_id: str) -> TableRecord | None:
        return next((record for record in self.tables() if record.id == table_id), None)

    def journal(self, table_id: str, after: int = 0) -> list[JournalEntry]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, kind, event, source, at, request_key FROM journal WHERE table_id = ? AND seq > ? ORDER BY seq",
                (table_id, after)).fetchall()
        return [JournalEntry(r[0], r[1], None if r[2] is None else json.loads(r[2]), r[3], r[4], r[5]) for r in rows]

    def entry_for_key(self, table_id: str, key: str) -> JournalEntry | None:
        """The change an Idempotency-Key made at this table, if any."""
        with self._lock:
            row = self._db.execute("SELECT seq, kind, event, source, at, request_key FROM journal "
                                   "WHERE table_id = ? AND request_key = ?", (table_id, key)).fetchone()
        return None if row is None else JournalEntry(row[0], row[1], None if row[2] is None else json.loads(row[2]), row[3], row[4], row[5])

    def _transaction(self):
        db = self._db

        class _Transaction:
            def __enter__(self):
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self, exc_type, exc, tb):
                db.execute("ROLLBACK" if exc_type else "COMMIT")
                return False

        return _Transaction()
