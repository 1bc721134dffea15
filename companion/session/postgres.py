"""The journal in PostgreSQL: several servers share a venue's tables (``companion serve --database URL``).

The same data and semantics as the SQLite store (:mod:`companion.session.store`), with the checks where
every server sees them: the database gives each change its revision or refuses it (the primary key and
a trigger, ``schema/postgres/0001_journal.sql``), keeps the Idempotency-Keys (a unique index), and
announces every stored change with ``NOTIFY companion_journal, 'TABLE SEQ'`` in the same transaction, so
the other servers' phones hear it (:meth:`PostgresStore.listen`). Connections come from a psycopg pool;
the schema is the numbered files in ``schema/postgres``, applied once each, in order, under an advisory
lock (two servers starting together apply them once).
"""
from __future__ import annotations

import json
import pathlib
import threading
import time
import uuid
from typing import Sequence

import psycopg
import psycopg_pool
from psycopg import errors

from companion.messages import Message
from companion.session.store import (SUMMARY_COLUMNS, UPSERT_SUMMARY, ChangeHeard, ImportedTable, JournalEntry, JournalStore,
                                     StoreConflict, StoreUnavailable, TableRecord, TableSummary)

SCHEMA_DIR = pathlib.Path(__file__).resolve().parent / "schema" / "postgres"
CHANNEL = "companion_journal"
# Any constant will do: the key of the advisory lock under which a server applies the schema.
SCHEMA_LOCK = 0x43434A31
# A request waits this long for a connection (or for the database to come back) before it answers 503:
# long enough for a pool busy with a burst, short enough that a phone is told soon.
POOL_WAIT_SECONDS = 3.0
CONNECT_TIMEOUT_SECONDS = 3
# Connections per server: each request holds one for a few milliseconds (the server runs 16 request threads).
POOL_MIN, POOL_MAX = 2, 8
# The notification listener looks at its stop flag this often, and reconnects this soon after losing the database.
LISTEN_POLL_SECONDS = 0.5
CONFLICTS = {"journal_pkey": "revision", "journal_contiguous": "revision", "journal_request_key": "key", "tables_pkey": "table"}
UNREACHABLE = (psycopg.OperationalError, psycopg.InterfaceError, psycopg_pool.PoolTimeout)


def unavailable(error: BaseException) -> StoreUnavailable:
    return StoreUnavailable(Message("the tables' database cannot be reached: %(reason)s",
                                    reason=(str(error).strip().splitlines() or [type(error).__name__])[0][:200]))


def migrate(connection: psycopg.Connection) -> list[str]:
    """Applies the schema files not applied yet (in order, each in its own transaction); returns their names."""
    applied = []
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        connection.execute("CREATE TABLE IF NOT EXISTS companion_schema (version TEXT PRIMARY KEY, "
                           "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
        done = {row[0] for row in connection.execute("SELECT version FROM companion_schema")}
        for path in sorted(SCHEMA_DIR.glob("*.sql")):
            if path.stem not in done:
                connection.execute(path.read_text())
                connection.execute("INSERT INTO companion_schema (version) VALUES (%s)", (path.stem,))
                applied.append(path.stem)
    return applied


def _record(row) -> TableRecord:
    return TableRecord(row[0], row[1], json.loads(row[2]), row[3], row[4], row[5], json.loads(row[6]), row[7])


def _insert_table(connection, record: TableRecord) -> None:
    connection.execute(
        "INSERT INTO tables (id, game, setup, pin_salt, pin_hash, created_at, meta, token_hash) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
        (record.id, record.game, json.dumps(record.setup), record.pin_salt, record.pin_hash, record.created_at,
         json.dumps(record.meta), record.token_hash))


def _insert_entries(cursor, table_id: str, entries: Sequence[JournalEntry]) -> None:
    cursor.executemany(
        "INSERT INTO journal (table_id, seq, kind, event, source, at, request_key) VALUES (%s, %s, %s, %s, %s, %s, %s)",
        [(table_id, one.seq, one.kind, None if one.event is None else json.dumps(one.event), one.source, one.at, one.key)
         for one in entries])


def _entry(row) -> JournalEntry:
    return JournalEntry(row[0], row[1], None if row[2] is None else json.loads(row[2]), row[3], row[4], row[5])


class PostgresStore(JournalStore):
    """The tables of every server that names this database. Thread-safe (a connection pool)."""

    shared = True

    def __init__(self, url: str, pool_min: int = POOL_MIN, pool_max: int = POOL_MAX) -> None:
        self.url = url
        # Who this server is in the feed leases (companion.session.leases): unique per process.
        self.server_id = uuid.uuid4().hex[:12]
        try:
            with psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_SECONDS, autocommit=True) as connection:
                migrate(connection)
        except UNREACHABLE as error:
            raise unavailable(error) from None
        except psycopg.Error as error:   # e.g. a URL psycopg cannot parse, a role without rights
            raise StoreUnavailable(Message("the tables' database refused: %(reason)s", reason=str(error).strip()[:200])) from None
        self.pool = psycopg_pool.ConnectionPool(
            url, min_size=pool_min, max_size=pool_max, timeout=POOL_WAIT_SECONDS, open=False, name="companion",
            kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_SECONDS},
            # a connection the database dropped (restarted) is noticed here, not by the request given it
            check=psycopg_pool.ConnectionPool.check_connection, reconnect_timeout=24 * 3600.0)
        self.pool.open(wait=False)
        self._closed = threading.Event()
        self._listener: threading.Thread | None = None

    # -- writing ----------------------------------------------------------------------------------
    def add_table(self, record: TableRecord) -> None:
        self._write(lambda connection: _insert_table(connection, record))

    def append(self, table_id: str, entry: JournalEntry | Sequence[JournalEntry], summary: TableSummary | None = None) -> None:
        entries = [entry] if isinstance(entry, JournalEntry) else list(entry)

        def write(connection: psycopg.Connection) -> None:
            with connection.cursor() as cursor:
                _insert_entries(cursor, table_id, entries)
                if summary is not None:
                    cursor.execute(UPSERT_SUMMARY.format(p="%s"), summary.row())
                # delivered to the listeners when (and only if) this transaction commits
                cursor.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{table_id} {entries[-1].seq}"))

        self._write(write)

    def save_summary(self, summary: TableSummary) -> None:
        self._write(lambda connection: connection.execute(UPSERT_SUMMARY.format(p="%s"), summary.row()))

    def import_tables(self, tables: Sequence[ImportedTable]) -> None:
        def write(connection: psycopg.Connection) -> None:
            with connection.cursor() as cursor:
                for one in tables:
                    _insert_table(cursor, one.record)
                    _insert_entries(cursor, one.record.id, one.entries)
                    cursor.execute(UPSERT_SUMMARY.format(p="%s"), one.summary.row())

        try:
            self._write(write)
        except StoreConflict:
            raise StoreConflict("table") from None

    def set_alias(self, name_key: str, same_as: str | None, at: float) -> None:
        if same_as is None:
            self._write(lambda connection: connection.execute("DELETE FROM player_aliases WHERE name_key = %s", (name_key,)))
        else:
            self._write(lambda connection: connection.execute(
                "INSERT INTO player_aliases (name_key, same_as, at) VALUES (%s, %s, %s) ON CONFLICT (name_key) "
                "DO UPDATE SET same_as = excluded.same_as, at = excluded.at", (name_key, same_as, at)))

    def _write(self, work) -> None:
        try:
            with self.pool.connection() as connection, connection.transaction():
                work(connection)
        except errors.UniqueViolation as error:
            raise StoreConflict(CONFLICTS.get(error.diag.constraint_name or "", "revision")) from None
        except UNREACHABLE as error:
            raise unavailable(error) from None

    # -- reading ----------------------------------------------------------------------------------
    def _read(self, query: str, parameters: tuple | dict = ()) -> list[tuple]:
        try:
            with self.pool.connection() as connection:
                return connection.execute(query, parameters).fetchall()
        except UNREACHABLE as error:
            raise unavailable(error) from None

    def tables(self) -> list[TableRecord]:
        return [_record(row) for row in self._read(
            "SELECT id, game, setup, pin_salt, pin_hash, created_at, meta, token_hash FROM tables ORDER BY created_at, id")]

    def table(self, table_id: str) -> TableRecord | None:
        rows = self._read("SELECT id, game, setup, pin_salt, pin_hash, created_at, meta, token_hash FROM tables WHERE id = %s",
                          (table_id,))
        return _record(rows[0]) if rows else None

    def summaries(self, ids: Sequence[str] | None = None) -> list[TableSummary]:
        if ids is None:
            rows = self._read(f"SELECT {SUMMARY_COLUMNS} FROM table_summaries ORDER BY created_at DESC, table_id")
        else:
            rows = self._read(f"SELECT {SUMMARY_COLUMNS} FROM table_summaries WHERE table_id = ANY(%s) "
                              "ORDER BY created_at DESC, table_id", (list(ids)[:1000],))
        return [TableSummary.from_row(row) for row in rows]

    def unsummarized(self) -> list[str]:
        return [row[0] for row in self._read(
            "SELECT id FROM tables WHERE NOT EXISTS (SELECT 1 FROM table_summaries WHERE table_id = id) ORDER BY created_at, id")]

    def count_tables(self) -> int:
        return int(self._read("SELECT count(*) FROM tables")[0][0])

    def aliases(self) -> dict[str, str]:
        return dict(self._read("SELECT name_key, same_as FROM player_aliases"))

    def journal(self, table_id: str, after: int = 0) -> list[JournalEntry]:
        return [_entry(row) for row in self._read(
            "SELECT seq, kind, event, source, at, request_key FROM journal WHERE table_id = %s AND seq > %s ORDER BY seq",
            (table_id, after))]

    def entry_for_key(self, table_id: str, key: str) -> JournalEntry | None:
        rows = self._read("SELECT seq, kind, event, source, at, request_key FROM journal WHERE table_id = %s AND request_key = %s",
                          (table_id, key))
        return _entry(rows[0]) if rows else None

    # -- camera feed leases (schema/postgres/0002_feed_leases.sql) ----------------------------------
    def take_lease(self, table_id: str, owner: str, kind: str, seconds: float) -> float:
        # One statement: taken when free, expired or already this owner's; else the other's time left.
        rows = self._read(
            "INSERT INTO feed_leases AS lease (table_id, owner, kind, expires_at) "
            "VALUES (%(table)s, %(owner)s, %(kind)s, now() + make_interval(secs => %(seconds)s)) "
            "ON CONFLICT (table_id) DO UPDATE SET owner = EXCLUDED.owner, kind = EXCLUDED.kind, expires_at = EXCLUDED.expires_at "
            "WHERE lease.owner = EXCLUDED.owner OR lease.expires_at < now() RETURNING owner",
            {"table": table_id, "owner": owner, "kind": kind, "seconds": float(seconds)})
        if rows:
            return 0.0
        left = self._read("SELECT GREATEST(EXTRACT(EPOCH FROM expires_at - now()), 0) FROM feed_leases WHERE table_id = %s",
                          (table_id,))
        return float(left[0][0]) if left else 0.0

    def release_lease(self, table_id: str, owner: str) -> None:
        self._read("DELETE FROM feed_leases WHERE table_id = %s AND owner = %s RETURNING table_id", (table_id, owner))

    # -- what a feed has settled (schema/postgres/0003_feed_states.sql) -------------------------------
    def save_feed_state(self, table_id: str, owner: str, feed: str, revision: int, state: bytes) -> bool:
        # Kept only while the saver holds the lease: a server cut off from the database that lost the feed
        # must not overwrite what the new owner keeps.
        rows = self._read(
            "INSERT INTO feed_states AS kept (table_id, feed, revision, state, saved_at) "
            "SELECT %(table)s, %(feed)s, %(revision)s, %(state)s, now() FROM feed_leases "
            "WHERE table_id = %(table)s AND owner = %(owner)s AND expires_at >= now() "
            "ON CONFLICT (table_id) DO UPDATE SET feed = EXCLUDED.feed, revision = EXCLUDED.revision, "
            "state = EXCLUDED.state, saved_at = EXCLUDED.saved_at RETURNING table_id",
            {"table": table_id, "owner": owner, "feed": feed, "revision": int(revision), "state": state})
        return bool(rows)

    def feed_state(self, table_id: str, feed: str) -> bytes | None:
        rows = self._read("SELECT state FROM feed_states WHERE table_id = %s AND feed = %s", (table_id, feed))
        return bytes(rows[0][0]) if rows else None

    # -- hearing the other servers ------------------------------------------------------------------
    def listen(self, heard: ChangeHeard) -> None:
        """A thread LISTENs on its own connection and calls ``heard(table, seq)`` for every stored change (its
        own server's too), in commit order; after it (re)connects it calls ``heard(None, None)``: changes made
        while it was away were not announced to it."""
        if self._listener is not None:
            return
        self._listener = threading.Thread(target=self._listen, args=(heard,), name="postgres-listen", daemon=True)
        self._listener.start()

    def _listen(self, heard: ChangeHeard) -> None:
        while not self._closed.is_set():
            try:
                with psycopg.connect(self.url, connect_timeout=CONNECT_TIMEOUT_SECONDS, autocommit=True) as connection:
                    connection.execute(f"LISTEN {CHANNEL}")
                    heard(None, None)
                    while not self._closed.is_set():
                        for note in connection.notifies(timeout=LISTEN_POLL_SECONDS):
                            table_id, _, seq = note.payload.partition(" ")
                            if seq.isdigit():
                                heard(table_id, int(seq))
            except UNREACHABLE:
                self._closed.wait(LISTEN_POLL_SECONDS)
            except Exception:   # a listener's bug must not end the hearing: look at everything again
                self._closed.wait(LISTEN_POLL_SECONDS)

    def close(self) -> None:
        self._closed.set()
        if self._listener is not None:
            self._listener.join(LISTEN_POLL_SECONDS * 4)
        self.pool.close(timeout=2.0)

    def wait_until_reachable(self, timeout: float) -> bool:
        """Whether the database answers within ``timeout`` seconds (for tests and tools)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                self._read("SELECT 1")
                return True
            except StoreUnavailable:
                time.sleep(0.1)
        return False
