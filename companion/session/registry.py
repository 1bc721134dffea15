"""All tables of one data directory (or one shared database): creation with a referee PIN, lookup by id,
loading a table from its journal when it is first asked for, and (with PostgreSQL) the tables other servers
make and change.

A server starts without replaying any journal: a table is loaded (its journal replayed) the first time it is
asked for, and the evening's list and the players' records read the tables' summary rows
(companion.session.summary), so a server holding 1,000 finished games answers at once (benchmarks/bench_history.py).
"""
from __future__ import annotations

import json
import pathlib
import re
import secrets
import threading
import time
from typing import Any, Callable, Mapping

from companion.games import GAMES, GameError, InvalidSetup, get_engine
from companion.session.store import (EventStore, ImportedTable, JournalStore, StoreConflict, StoreUnavailable, TableRecord,
                                     TableSummary)
from companion.session.summary import DELETED
from companion.session.table import (MALFORMED_ERRORS, DeckChoice, SessionError, Table, TableNotFound, UnknownDeck,
                                     check_plain_json, hash_pin)
from companion.messages import Message

# Short enough to read aloud and type, no look-alikes (0/O, 1/I/L): it is also the join code.
ID_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
ID_LENGTH = 6
ID_PATTERN = re.compile(rf"^[{ID_ALPHABET}]{{{ID_LENGTH}}}$")
PIN_DIGITS = 6
# The referee token: 32 random bytes (43 URL-safe characters) in the referee's link and QR code. Unlike
# the 6-digit PIN (a convenience to type, locked out after a few wrong tries) it cannot be guessed.
REFEREE_TOKEN_BYTES = 32
COLOUR_PATTERN = re.compile(r"^#[0-9a-fA-F]{6}$")
# A player's name is shown on every phone and in every message: a long nickname fits in 40 characters.
MAX_NAME_CHARS = 40


def open_store(data_dir: str | pathlib.Path, database: str | None = None) -> JournalStore:
    """The store for ``database`` (a ``postgresql://`` URL), else the SQLite file in ``data_dir``."""
    if not database:
        return EventStore(data_dir)
    if database.startswith(("postgresql://", "postgres://")):
        from companion.session.postgres import PostgresStore

        return PostgresStore(database)
    raise StoreUnavailable(Message("--database must be a postgresql:// URL, got %(url)s", url=repr(database[:40])))


def normalize_table_id(text: Any) -> str:
    """The canonical id from what a person typed; raises TableNotFound for anything that cannot be one."""
    if not isinstance(text, str):
        raise TableNotFound(Message("a table id is text"))
    candidate = text.strip().upper()
    if not ID_PATTERN.match(candidate):
        raise TableNotFound(Message('no table %(text)s: a table code is %(id_length)s letters and digits', text=repr(text[:20]), id_length=ID_LENGTH))
    return candidate


def split_presentation(setup: dict) -> tuple[dict, dict]:
    """Takes the players' colours out of a setup: the screens use them, the rules do not."""
    players = setup.get("players")
    if not isinstance(players, list):
        return setup, {}
    colours, cleaned = {}, []
    for player in players:
        if isinstance(player, dict) and ("colour" in player or "color" in player):
            player = dict(player)
            colour = player.pop("colour", None) or player.pop("color", None)
            player.pop("color", None)
            if not isinstance(colour, str) or not COLOUR_PATTERN.match(colour):
                raise SessionError(Message('a player colour is written #rrggbb, got %(colour)s', colour=repr(colour)))
            if isinstance(player.get("name"), str):
                colours[player["name"].strip()] = colour.lower()
        cleaned.append(player)
    return {**setup, "players": cleaned}, ({"colours": colours} if colours else {})


class TableRegistry:
    """The tables of one data directory: each loaded into memory when first asked for, every change written through."""

    def __init__(self, data_dir: str | pathlib.Path, clock: Callable[[], float] = time.time,
                 engines: Callable[[str], Any] = get_engine, games: tuple[str, ...] = GAMES,
                 database: str | None = None, store: JournalStore | None = None) -> None:
        # ``engines`` and ``games`` are the game catalogue; tests may bring their own. ``database``: a
        # postgresql:// URL whose journal several servers share (None: the SQLite file in ``data_dir``).
        self.store = store if store is not None else open_store(data_dir, database)
        self.data_dir = pathlib.Path(data_dir)   # also holds the learned decks (decks/NAME, companion.vision.decks.store)
        self.clock = clock
        self.engines = engines
        self.games = games
        self._lock = threading.Lock()
        self._tables: dict[str, Table] = {}
        # Called after every change of every table (one list shared by all of them, so a listener added
        # later hears the tables made later too): the web layer wakes its live streams from here.
        self.listeners: list = []
        # Tables stored but not loadable now (an engine gone or refusing the stored setup): kept in the
        # database untouched, reported instead of stopping the server.
        self.unavailable: dict[str, str] = {}
        # Tables their referee deleted: never loaded again (their journals stay in the database).
        self.deleted: set[str] = set()
        # Another server's changes reach this one's tables (and their phones) as the database announces them.
        self.store.listen(self._heard)

    @property
    def shared(self) -> bool:
        """Whether other servers change these tables too (a PostgreSQL store)."""
        return self.store.shared

    def _load(self, record: TableRecord) -> Table | None:
        """The table replayed from its journal (inside ``self._lock``); None when its engine refuses it or its
        referee deleted it. A table whose summary row is missing or behind (stored before summaries) gets it."""
        try:
            table = Table(record, self.store, self.engines(record.game), self.clock)
            table.listeners = self.listeners
        except (GameError, ImportError, AttributeError) as error:
            self.unavailable[record.id] = f"{record.game}: {error}"
            return None
        table.load(self.store.journal(record.id))
        stored = self.store.summaries([record.id])
        if not stored or stored[0].seq != table.seq:
            self.store.save_summary(table.summary())
        if table.deleted:
            self.deleted.add(record.id)
            return None
        self._tables[record.id] = table
        return table

    def _heard(self, table_id: str | None, seq: int | None) -> None:
        """The database announced a change (None: the announcements were interrupted, look at every table)."""
        tables = list(self._tables.values()) if table_id is None else [self._tables.get(table_id)]
        for table in tables:
            if table is not None and (seq is None or seq > table.seq):
                try:
                    table.sync()
                except Exception:   # the database went away again: the next announcement or change catches up
                    pass
                if table.deleted:   # its referee deleted it through another server
                    self._forget(table)

    def _forget(self, table: Table) -> None:
        with self._lock:
            self._tables.pop(table.id, None)
            self.deleted.add(table.id)
        table.close()   # its live streams end

    def close(self) -> None:
        for table in list(self._tables.values()):
            table.close()
        self.store.close()

    def create(self, game: Any, setup: Mapping[str, Any], meta: Mapping[str, Any] | None = None,
               pin: str | None = None, deck: DeckChoice | None = None) -> tuple[Table, str]:
        """A new table and its referee PIN (shown once; only its salted hash is stored)."""
        table, pin, _token = self.create_with_token(game, setup, meta, pin, deck)
        return table, pin

    def create_with_token(self, game: Any, setup: Mapping[str, Any], meta: Mapping[str, Any] | None = None,
                          pin: str | None = None, deck: DeckChoice | None = None) -> tuple[Table, str, str]:
        """A new table, its referee PIN and its referee token (both shown once; only salted hashes are stored).
        ``meta`` adds what only the screens and commands use (e.g. ``{"demo": "kingdoms"}``), never what the
        rules use; ``pin`` chooses the PIN (the demo keeps its table's) instead of drawing one; ``deck`` the
        deck its camera reads with (None: the server's default), which must be in the data folder."""
        if deck is not None:
            self.check_deck(deck)
        if not isinstance(game, str) or game not in self.games:
            raise InvalidSetup(Message('unknown game %(game)s: choose one of %(games)s', game=repr(game), games=list(self.games)))
        if not isinstance(setup, Mapping):
            raise SessionError(Message("the setup must be a JSON object"))
        check_plain_json(setup, "the setup")
        players = setup.get("players")
        for player in players if isinstance(players, list) else []:
            name = player.get("name") if isinstance(player, Mapping) else player
            if isinstance(name, str) and len(name) > MAX_NAME_CHARS:
                raise SessionError(Message("a player name may be at most %(max_name_chars)s characters, got %(count)s",
                                           max_name_chars=MAX_NAME_CHARS, count=len(name)))
        try:
            setup = json.loads(json.dumps(setup, allow_nan=False))
        except (TypeError, ValueError) as error:
            raise SessionError(Message('the setup must be plain JSON: %(error)s', error=error)) from None
        setup, presentation = split_presentation(setup)
        meta = {**presentation, **dict(meta or {})}
        if deck is not None and not deck.server_default:
            meta["deck"] = deck.stored()
        engine = self.engines(game)
        try:
            engine.new_game(setup)  # the engine judges the setup before anything is stored
        except MALFORMED_ERRORS as error:
            raise SessionError(Message('a malformed setup: %(name)s: %(error)s', name=type(error).__name__, error=str(error)[:120])) from None
        if pin is None:
            pin = "".join(secrets.choice("0123456789") for _ in range(PIN_DIGITS))
        elif not (isinstance(pin, str) and pin.isdigit() and len(pin) == PIN_DIGITS):
            raise SessionError(Message('a referee PIN is %(pin_digits)s digits', pin_digits=PIN_DIGITS))
        token = secrets.token_urlsafe(REFEREE_TOKEN_BYTES)
        salt = secrets.token_hex(8)
        with self._lock:
            for _attempt in range(8):
                table_id = self._new_id()
                record = TableRecord(table_id, game, setup, salt, hash_pin(pin, salt), self.clock(), meta, hash_pin(token, salt))
                try:
                    self.store.add_table(record)
                    break
                except StoreConflict:   # another server made a table with this id a moment ago: draw again
                    continue
            else:
                raise SessionError(Message("no free table id was found: please try again"))
            table = Table(record, self.store, engine, self.clock)
            table.listeners = self.listeners
            self._tables[table_id] = table
        self.store.save_summary(table.summary())   # listed at once, before its first change
        return table, pin, token

    def deck_names(self) -> list[str]:
        """The decks learned into this data folder."""
        from companion.vision.decks.store import DeckStore

        return DeckStore(self.data_dir).names()

    def check_deck(self, choice: DeckChoice) -> None:
        """Raises UnknownDeck unless the deck ``choice`` names is in the data folder (no deck always is)."""
        if choice.server_default or choice.name is None:
            return
        from companion.vision.decks.store import DeckStore

        store = DeckStore(self.data_dir)
        if not store.exists(choice.name):
            known = store.names()
            if known:
                raise UnknownDeck(Message("no deck named %(name)s on this server (known: %(known)s): teach it first on the Teach your "
                                          "deck page", name=repr(choice.name), known=list(known)))
            raise UnknownDeck(Message("no deck named %(name)s on this server (none learned yet): teach it first on the Teach your "
                                      "deck page", name=repr(choice.name)))

    def choose_deck(self, table: Table, choice: DeckChoice, **options: Any):
        """The table reads with ``choice`` from now on (see :meth:`Table.choose_deck`); UnknownDeck and nothing
        changed when it names a deck that is not in the data folder."""
        return table.choose_deck(choice, check=self.check_deck, **options)

    def get(self, table_id: Any) -> Table:
        """The table (loaded from its journal the first time it is asked for); TableNotFound when there is none,
        its referee deleted it or its engine refuses it."""
        key = normalize_table_id(table_id)
        table = self._tables.get(key)
        if table is not None and not table.deleted:
            return table
        if table is None and key not in self.unavailable and key not in self.deleted:
            with self._lock:
                table = self._tables.get(key)
                if table is None:
                    record = self.store.table(key)
                    table = self._load(record) if record is not None else None
            if table is not None and not table.deleted:
                return table
        if key in self.unavailable:
            raise TableNotFound(Message("table %(key)s is stored but cannot be loaded: %(unavailable)s",
                                        key=key, unavailable=self.unavailable[key]))
        if key in self.deleted or (table is not None and table.deleted):
            raise TableNotFound(Message("table %(table)s was deleted by its referee", table=key))
        raise TableNotFound(Message('no table %(key)s', key=key))

    def list(self) -> list[Table]:
        """Every table, loaded (each journal replayed): for tools and tests. The evening's list reads
        :meth:`summaries` instead, which replays nothing."""
        with self._lock:
            for record in self.store.tables():
                if record.id not in self._tables and record.id not in self.unavailable and record.id not in self.deleted:
                    self._load(record)
            return sorted((t for t in self._tables.values() if not t.deleted), key=lambda t: t.record.created_at, reverse=True)

    def summaries(self, ids: Any = None, deleted: bool = False) -> list[TableSummary]:
        """The tables' summaries, newest first, without replaying any journal (only ``ids``' when given; deleted
        tables only when ``deleted``). A table stored before summaries existed is loaded once to make its row."""
        self.summarize_missing()
        rows = self.store.summaries(None if ids is None else list(ids))
        return [row for row in rows if deleted or row.state != DELETED]

    def summarize_missing(self, stop: threading.Event | None = None) -> int:
        """Makes the summary rows of the tables that have none (stored before summaries existed), loading each
        once; returns how many. ``stop`` ends it early (the server is stopping)."""
        made = 0
        for table_id in self.store.unsummarized():
            if stop is not None and stop.is_set():
                break
            if table_id in self.unavailable:
                continue   # its engine refuses it: no row (it is reported as unavailable when asked for)
            with self._lock:
                if table_id in self._tables:
                    self.store.save_summary(self._tables[table_id].summary())
                else:
                    record = self.store.table(table_id)
                    if record is None or (self._load(record) is None and table_id in self.unavailable):
                        continue
            made += 1
        return made

    def delete(self, table: Table, **options: Any):
        """The referee deletes ``table`` (see :meth:`Table.delete`): gone from the list, the records and its link."""
        entry = table.delete(**options)
        self._forget(table)
        return entry

    def add_imported(self, tables: list[ImportedTable]) -> list[Table]:
        """Stores whole tables an import made (companion.session.transfer), all or none, and loads them."""
        self.store.import_tables(tables)
        with self._lock:
            loaded = [self._load(one.record) for one in tables]
        return [table for table in loaded if table is not None]

    def id_is_free(self, table_id: str) -> bool:
        return ID_PATTERN.match(table_id) is not None and table_id not in self._tables and self.store.table(table_id) is None

    def new_id(self) -> str:
        """A table id not taken in this store (a race with another server is caught when it is stored)."""
        while True:
            candidate = self._new_id()
            if self.store.table(candidate) is None:
                return candidate

    def _new_id(self) -> str:
        while True:
            candidate = "".join(secrets.choice(ID_ALPHABET) for _ in range(ID_LENGTH))
            if candidate not in self._tables:
                return candidate
