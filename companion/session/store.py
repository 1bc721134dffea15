"""Persistence: every table's setup and every journal entry, written as it happens, behind one interface.

:class:`JournalStore` is what the session needs of a database. :class:`EventStore` is the embedded one
(the default: a home table and the demo need no database server): one SQLite file per data directory,
in WAL mode with ``synchronous=FULL`` so a committed entry survives a crash or power cut; each change is
its own transaction. :class:`companion.session.postgres.PostgresStore` keeps the same journal in
PostgreSQL, shared by several servers (``companion serve --database postgresql://…``). The schema is
append-only in both: nothing a user entered is ever updated or deleted, undo included (undo is an entry),
and a table's deletion too (a ``delete`` entry: the table is hidden, its journal kept). Beside the journal,
one summary row per table (``table_summaries``, companion.session.summary) is rewritten with each change, and
the host's merged player names (``player_aliases``) are kept: neither holds anything a user entered.
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
CREATE TABLE IF NOT EXISTS table_summaries (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    game TEXT NOT NULL,
    state TEXT NOT NULL,
    players TEXT NOT NULL,
    winners TEXT NOT NULL,
    seq INTEGER NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS player_aliases (
    name_key TEXT PRIMARY KEY,
    same_as TEXT NOT NULL,
    at REAL NOT NULL
);
"""
# The summary row of a table follows its newest change only: a server that heard a change late (another
# server's, with PostgreSQL) never writes an older summary over a newer one.
UPSERT_SUMMARY = ("INSERT INTO table_summaries (table_id, game, state, players, winners, seq, created_at, updated_at) "
                  "VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p}, {p}) ON CONFLICT (table_id) DO UPDATE SET state = excluded.state, "
                  "players = excluded.players, winners = excluded.winners, seq = excluded.seq, updated_at = excluded.updated_at "
                  "WHERE excluded.seq >= table_summaries.seq")
SUMMARY_COLUMNS = "table_id, game, state, players, winners, seq, created_at, updated_at"
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
class TableSummary:
    """What the evening's list and the players' records read of a table (companion.session.summary): kept
    beside the journal, written with each change, so a list of 1,000 finished games replays none of them.
    ``players``: ``[{"name", "score"}]`` in seating order; ``state``: playing, finished or deleted."""

    table_id: str
    game: str
    state: str
    players: list
    winners: list
    seq: int
    created_at: float
    updated_at: float

    def row(self) -> tuple:
        return (self.table_id, self.game, self.state, json.dumps(self.players, ensure_ascii=False),
                json.dumps(self.winners, ensure_ascii=False), self.seq, self.created_at, self.updated_at)

    @classmethod
    def from_row(cls, row: Sequence) -> "TableSummary":
        return cls(row[0], row[1], row[2], json.loads(row[3]), json.loads(row[4]), int(row[5]), float(row[6]), float(row[7]))

    def to_json(self) -> dict[str, Any]:
        return {"id": self.table_id, "game": self.game, "state": self.state, "players": self.players,
                "winners": self.winners, "seq": self.seq, "created_at": self.created_at, "updated_at": self.updated_at}


@dataclass(frozen=True)
class ImportedTable:
    """One table to add whole (an import): its record, its journal and its summary, stored together."""

    record: "TableRecord"
    entries: list
    summary: TableSummary


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
    def append(self, table_id: str, entry: JournalEntry | Sequence[JournalEntry], summary: TableSummary | None = None) -> None:
        """Stores one change (or several, all or none) at the sequence numbers they carry, with the table's
        summary after them (in the same transaction: the summary is never behind the journal)."""

    @abc.abstractmethod
    def save_summary(self, summary: TableSummary) -> None:
        """Writes a table's summary (made again from its journal: a table stored before summaries existed)."""

    @abc.abstractmethod
    def summaries(self, ids: Sequence[str] | None = None) -> list[TableSummary]:
        """The tables' summaries (only ``ids``' when given), newest table first; deleted tables included."""

    @abc.abstractmethod
    def unsummarized(self) -> list[str]:
        """The ids of the tables that have no summary yet, oldest first."""

    @abc.abstractmethod
    def count_tables(self) -> int: ...

    @abc.abstractmethod
    def import_tables(self, tables: Sequence[ImportedTable]) -> None:
        """Adds whole tables (record, journal, summary), all or none; StoreConflict("table") when an id is taken."""

    @abc.abstractmethod
    def aliases(self) -> dict[str, str]:
        """The names the host merged: the merged name's key to the key of the name it is the same player as."""

    @abc.abstractmethod
    def set_alias(self, name_key: str, same_as: str | None, at: float) -> None:
        """Records that ``name_key`` is the same player as ``same_as`` (None: not any more)."""

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
        try:
            with self._lock, self._transaction():
                self._insert_table(record)
        except sqlite3.IntegrityError:
            raise StoreConflict("table") from None   # the id is taken (the registry no longer holds every id in memory)

    def _insert_table(self, record: TableRecord) -> None:
        self._db.execute(
            "INSERT INTO tables (id, game, setup, pin_salt, pin_hash, created_at, meta, token_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (record.id, record.game, json.dumps(record.setup), record.pin_salt, record.pin_hash, record.created_at,
             json.dumps(record.meta), record.token_hash),
        )

    def _insert_entries(self, table_id: str, entries: Sequence[JournalEntry]) -> None:
        self._db.executemany(
            "INSERT INTO journal (table_id, seq, kind, event, source, at, request_key) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(table_id, one.seq, one.kind, None if one.event is None else json.dumps(one.event), one.source, one.at, one.key)
             for one in entries])

    def append(self, table_id: str, entry: JournalEntry | Sequence[JournalEntry], summary: TableSummary | None = None) -> None:
        entries = [entry] if isinstance(entry, JournalEntry) else list(entry)
        try:
            with self._lock, self._transaction():
                self._insert_entries(table_id, entries)
                if summary is not None:
                    self._db.execute(UPSERT_SUMMARY.format(p="?"), summary.row())
        except sqlite3.IntegrityError:
            raise StoreConflict("revision") from None   # one server per file: only a second process on it gets here

    def save_summary(self, summary: TableSummary) -> None:
        with self._lock, self._transaction():
            self._db.execute(UPSERT_SUMMARY.format(p="?"), summary.row())

    def summaries(self, ids: Sequence[str] | None = None) -> list[TableSummary]:
        query = f"SELECT {SUMMARY_COLUMNS} FROM table_summaries"
        parameters: tuple = ()
        if ids is not None:
            ids = list(ids)[:1000]
            query += f" WHERE table_id IN ({', '.join('?' * len(ids))})" if ids else " WHERE 0"
            parameters = tuple(ids)
        with self._lock:
            rows = self._db.execute(query + " ORDER BY created_at DESC, table_id", parameters).fetchall()
        return [TableSummary.from_row(row) for row in rows]

    def unsummarized(self) -> list[str]:
        with self._lock:
            rows = self._db.execute("SELECT id FROM tables WHERE id NOT IN (SELECT table_id FROM table_summaries) "
                                    "ORDER BY created_at, id").fetchall()
        return [row[0] for row in rows]

    def count_tables(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM tables").fetchone()[0])

    def import_tables(self, tables: Sequence[ImportedTable]) -> None:
        try:
            with self._lock, self._transaction():
                for one in tables:
                    self._insert_table(one.record)
                    self._insert_entries(one.record.id, one.entries)
                    self._db.execute(UPSERT_SUMMARY.format(p="?"), one.summary.row())
        except sqlite3.IntegrityError:
            raise StoreConflict("table") from None

    def aliases(self) -> dict[str, str]:
        with self._lock:
            return dict(self._db.execute("SELECT name_key, same_as FROM player_aliases").fetchall())

    def set_alias(self, name_key: str, same_as: str | None, at: float) -> None:
        with self._lock, self._transaction():
            if same_as is None:
                self._db.execute("DELETE FROM player_aliases WHERE name_key = ?", (name_key,))
            else:
                self._db.execute("INSERT INTO player_aliases (name_key, same_as, at) VALUES (?, ?, ?) ON CONFLICT (name_key) "
                                 "DO UPDATE SET same_as = excluded.same_as, at = excluded.at", (name_key, same_as, at))

    def tables(self) -> list[TableRecord]:
        with self._lock:
            rows = self._db.execute("SELECT id, game, setup, pin_salt, pin_hash, created_at, meta, token_hash FROM tables "
                                    "ORDER BY created_at, id").fetchall()
        return [TableRecord(r[0], r[1], json.loads(r[2]), r[3], r[4], r[5], json.loads(r[6]), r[7]) for r in rows]

    def table(self, table_id: str) -> TableRecord | None:
        with self._lock:
            row = self._db.execute("SELECT id, game, setup, pin_salt, pin_hash, created_at, meta, token_hash FROM tables "
                                   "WHERE id = ?", (table_id,)).fetchone()
        return None if row is None else TableRecord(row[0], row[1], json.loads(row[2]), row[3], row[4], row[5],
                                                    json.loads(row[6]), row[7])

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
