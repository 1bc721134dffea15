"""A live table: one game bound to its engine, its journal of changes, and who may change it.

The journal is the truth. It holds every change in order, each with a sequence number: an engine
event (from the referee's phone or from the camera), an ``undo`` or a ``redo``. The engine state is
always ``replay(setup, active events)``; undo moves the last active event onto the redo stack and
redo applies it again, so nothing entered is ever lost. Sequence numbers double as the ids of the
server-sent events that carry each change to the phones.
"""
from __future__ import annotations

import collections
import dataclasses
import hashlib
import hmac
import json
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from companion.games import IllegalEvent, replay
from companion.session import patch
from companion.session.store import JournalEntry, JournalStore, StoreConflict, TableRecord, TableSummary
from companion.session.summary import DELETED, FINISHED, summarize
from companion.messages import Message, MessageError

SOURCES = ("referee", "camera")
# Who made a journal entry: a caller's source, or "engine" for the events the game's automation options
# make by themselves right after a submitted event (Dungeon's ``auto_resolve``: ``engine.automatic_events``).
# No caller may submit as the engine.
ENGINE_SOURCE = "engine"
JOURNAL_SOURCES = (*SOURCES, ENGINE_SOURCE)
# Dungeon's automation makes at most one event after a change (a resolve); the bound only keeps an
# engine whose automatic events never stop from holding the table's lock forever.
MAX_AUTOMATIC_EVENTS_PER_CHANGE = 16
# Keys of an event that name the place it changes; the referee's word on a place beats the camera's.
# A player is not a place: choosing Ann's guild says nothing about the card she commits next.
TARGET_KEYS = ("cell", "zone", "chosen", "slot", "position")
MAX_EVENT_BYTES = 16_384
SECRET_SETUP_KEYS = ("seed", "deal")
# How many recent changes a table keeps as patches (JSON text, a few KB each) for streams that resume: a
# phone that missed more (a minute of 2 changes a second) gets one snapshot instead. As Python objects
# 256 patches held about 22 KB each, 110 MB for 20 busy tables (benchmarks/load_web.py soak); as text
# 128 of them hold well under 1 MB per table.
PATCH_HISTORY = 128
# The deepest legitimate body is a setup: {"players": [{"suits": ["H", "D"]}]} is 4 levels; 16 leaves
# room for rule options while a 1,000-level document (which once answered 500) is refused at once.
MAX_JSON_DEPTH = 16
# Card codes, zone names, player names, option values: a few dozen characters. 200 bounds every text a
# body may carry, so no string is repeated in every message at 60 KB (an issue-15 finding).
MAX_TEXT_CHARS = 200
# How often a change is tried again when the database refuses it because another server changed the table
# first (each try first reads what that server stored). Two servers racing on one table need two tries;
# this many only under a storm of writers on one table, and then the caller is told to look again (409).
MAX_RACE_ATTEMPTS = 16
# Before each further try a random wait of up to this many seconds, doubled each time (at most
# RACE_BACKOFF_MAX): two servers' referees writing one table as fast as they could once fell into step,
# the same one losing 8 times running; the random wait breaks the step.
RACE_BACKOFF_SECONDS = 0.002
RACE_BACKOFF_MAX = 0.05


class SessionError(MessageError, ValueError):
    """Bad input to the session (not a rules question): malformed event, unknown table."""


class TableNotFound(SessionError):
    pass


class Conflict(SessionError):
    """The request was made against another revision of the table than it has now (HTTP 409)."""


class GameFinished(Conflict):
    """The game at this table is over: it takes no new event (HTTP 409). Its referee's Undo still takes the last
    event back, which reopens the game: a correction, not a new move."""


class KeyReused(SessionError):
    """An idempotency key already made a different change (HTTP 422)."""


class UnknownDeck(SessionError):
    """A table named a deck that is not in the data folder (HTTP 422)."""


@dataclass(frozen=True)
class DeckChoice:
    """Which learned deck a table's camera reads with. ``server_default``: whatever deck the server was
    started with (``companion serve --deck``; none: the general models), for a table that names none.
    Otherwise ``name``: a deck learned into the data folder, or None for no deck (the general models).
    Only the camera uses it, never the rules: it lives in the table's meta and its journal, not its setup."""

    name: str | None = None
    server_default: bool = True

    @classmethod
    def parse(cls, body: Mapping[str, Any]) -> "DeckChoice":
        """From a request: ``{"deck": "NAME"}``, ``{"deck": null}`` (no deck) or ``{"server_default": true}``."""
        if body.get("server_default") is True and "deck" not in body:
            return cls()
        if "deck" not in body:
            raise SessionError(Message('name the deck: {"deck": "NAME"}, {"deck": null} for none (the general models), '
                               'or {"server_default": true}'))
        name = body["deck"]
        if name is None:
            return cls(None, server_default=False)
        from companion.vision.decks.store import DeckStore   # the deck name's rules live with the decks

        try:
            return cls(DeckStore.check_name(name), server_default=False)
        except ValueError as error:
            raise SessionError(getattr(error, "message", None) or str(error)) from None

    @classmethod
    def from_stored(cls, stored: Mapping[str, Any] | None) -> "DeckChoice":
        """From a table's meta or a ``deck`` journal entry (written by :meth:`stored`)."""
        if not stored or stored.get("server_default") or "deck" not in stored:
            return cls()
        name = stored["deck"]
        return cls(name if isinstance(name, str) else None, server_default=False)

    def stored(self) -> dict[str, Any]:
        return {"server_default": True} if self.server_default else {"deck": self.name}

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "server_default": self.server_default}


def hash_pin(pin: str, salt: str) -> str:
    return hashlib.sha256(f"{salt}:{pin}".encode()).hexdigest()


def check_plain_json(value: Any, what: str = "the body", max_depth: int = MAX_JSON_DEPTH,
                     max_text: int = MAX_TEXT_CHARS) -> None:
    """Raises SessionError unless ``value`` nests at most ``max_depth`` levels and every text (keys
    included) has at most ``max_text`` characters. Iterative, so no depth can exhaust the stack."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            if len(item) > max_text:
                raise SessionError(Message("%(what)s holds a text of %(count)s characters: at most %(max_text)s are allowed",
                                           what=what, count=len(item), max_text=max_text))
        elif isinstance(item, (dict, list)):
            if depth > max_depth:
                raise SessionError(Message('%(what)s nests deeper than %(max_depth)s levels', what=what, max_depth=max_depth))
            if isinstance(item, dict):
                pending.extend((key, depth) for key in item)
                pending.extend((child, depth + 1) for child in item.values())
            else:
                pending.extend((child, depth + 1) for child in item)


def check_event_shape(event: Any) -> dict:
    """The event as a plain JSON object with a text ``type``; raises SessionError otherwise."""
    if not isinstance(event, Mapping):
        raise SessionError(Message('an event must be a JSON object, got %(name)s', name=type(event).__name__))
    kind = event.get("type")
    if not isinstance(kind, str) or not kind:
        raise SessionError(Message('an event needs a "type", e.g. {"type": "place", "cell": [0, 0], "card": "10H"}'))
    check_plain_json(event, "an event")
    try:
        text = json.dumps(event, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise SessionError(Message('an event must be plain JSON: %(error)s', error=error)) from None
    if len(text) > MAX_EVENT_BYTES:
        raise SessionError(Message('an event may be at most %(max_event_bytes)s bytes of JSON', max_event_bytes=MAX_EVENT_BYTES))
    return json.loads(text)


# What an engine may raise on a well-formed JSON event of an odd shape (a number where it wanted a
# list, a missing key): the client's mistake, reported as one, never a server error.
MALFORMED_ERRORS = (TypeError, AttributeError, KeyError, IndexError)


def apply_checked(engine: Any, state: Any, event: dict) -> Any:
    """``engine.apply`` with odd-shaped input reported as a SessionError (the table unchanged)."""
    try:
        return engine.apply(state, event)
    except MALFORMED_ERRORS as error:
        raise SessionError(Message("a malformed %(get)s event: %(name)s: %(error)s",
                                   get=repr(event.get('type')), name=type(error).__name__, error=str(error)[:120])) from None


def event_target(event: Mapping[str, Any]) -> str | None:
    """The place an event changes (e.g. a grid cell), as a stable key; None when it names none."""
    parts = {key: event[key] for key in TARGET_KEYS if key in event}
    return json.dumps(parts, sort_keys=True) if parts else None


@dataclass
class _Active:
    event: dict
    source: str
    seq: int  # the change (an event or a redo) that made it active: what an undo of it names


ChangeListener = Callable[["Table", JournalEntry], None]


@dataclass
class Table:
    """One game in progress. Every public method is thread-safe.

    The table's revision is the sequence number of its newest change (0 for a new table): each change
    carries it, and a state-changing call may name the revision it expects (``expected``; another one
    raises :class:`Conflict`) and an idempotency ``key`` (a call repeated with it applies once, also
    after a restart: the key is stored with the change)."""

    record: TableRecord
    store: JournalStore
    engine: Any
    clock: Callable[[], float] = time.time
    warnings: list[Message] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._changed = threading.Condition()
        self._active: list[_Active] = []
        self._redo: list[_Active] = []
        # Only the recent changes stay in memory (the journal is on disk, read back by ``journal``), so a
        # table's memory does not grow with its length: 40 changes a second for 30 minutes once added
        # about 36 MB of journal entries to the server.
        self._seq = 0
        self._recent: collections.deque[JournalEntry] = collections.deque(maxlen=PATCH_HISTORY + 1)
        self.state = self.engine.new_game(self.record.setup)
        self._view_cache: tuple[int, dict] | None = None
        # Whether the game is over at a revision (the engine's result says so, as the evening's list reads it)
        self._finished_cache: tuple[int, bool] | None = None
        self._last_snapshot: tuple[int, dict] | None = None
        self._patches: collections.deque[tuple[int, str]] = collections.deque(maxlen=PATCH_HISTORY)
        # Called (inside the table's lock, so keep them quick) after every change: the web layer wakes
        # its live streams from here.
        self.listeners: list[ChangeListener] = []
        self.closed = False
        # Deleted by its referee (a ``delete`` change): nobody may see or change it any more; its journal stays.
        self.deleted = False
        self._deck = DeckChoice.from_stored(self.record.meta.get("deck"))

    # -- identity and access --------------------------------------------------------------
    @property
    def id(self) -> str:
        return self.record.id

    @property
    def game(self) -> str:
        return self.record.game

    @property
    def seq(self) -> int:
        return self._seq

    revision = seq

    @property
    def journal(self) -> list[JournalEntry]:
        """Every change of this table, in order, as stored (read from the database)."""
        return self.store.journal(self.id)

    def pin_matches(self, pin: str | None) -> bool:
        if not isinstance(pin, str) or len(pin) > 64:
            return False
        # compare_digest keeps the time the same however many characters match.
        return hmac.compare_digest(hash_pin(pin.strip(), self.record.pin_salt), self.record.pin_hash)

    def token_matches(self, token: str | None) -> bool:
        """The referee token (tables made before tokens have none and take their PIN alone)."""
        if not isinstance(token, str) or not self.record.token_hash or len(token) > 128:
            return False
        return hmac.compare_digest(hash_pin(token.strip(), self.record.pin_salt), self.record.token_hash)

    # -- changes --------------------------------------------------------------------------
    def submit(self, event: Any, source: str = "referee", expected: int | None = None,
               key: str | None = None) -> JournalEntry | None:
        """Apply an engine event and journal it, then the engine's automatic events it makes due (each its
        own change, source "engine"). Returns the submitted event's entry, or None when a camera reading
        is overruled by an earlier referee correction of the same place. Raises SessionError or
        IllegalEvent (the table unchanged) when the event is malformed or against the rules, Conflict
        when ``expected`` is not the current revision."""
        if source not in SOURCES:
            raise SessionError(Message('unknown source %(source)s: one of %(sources)s', source=repr(source), sources=list(SOURCES)))
        event = check_event_shape(event)

        def change() -> JournalEntry | None:
            if (done := self._replayed(key, "event", event)) is not None:
                return done
            self._check_expected(expected)
            if source == "camera" and self._overruled(event):
                return None
            # After the retried key (a tap that finished the game, sent again, gets its answer), the stale revision
            # (that phone saw an older table) and a camera reading the referee already corrected (silent, as ever):
            # a finished game takes no new event, whoever sends it. Undo stays open to the referee: it reopens the
            # game to correct the last change.
            if self._finished_unlocked():
                raise GameFinished(Message("the game at table %(table)s is finished: it takes no new event "
                                           "(the referee's Undo reopens it to correct the last change)", table=self.id))
            new_state = apply_checked(self.engine, self.state, event)
            chain = [(event, source, key, new_state)] + self._automatic_events(new_state)
            # the event and the automatic events it makes due are stored in one write (all or none): a
            # server that dies between them (the other servers take the table on) leaves no event whose
            # automatic follow-up nobody makes
            entries = self._record_all([("event", made, made_by, made_key) for made, made_by, made_key, _ in chain], chain[-1][3])
            self._redo.clear()
            for entry, (made, made_by, _, state) in zip(entries, chain):
                self._advance(entry)
                self.state = state
                self._active.append(_Active(made, made_by, entry.seq))
                self._published(entry)
            return entries[0]

        return self._change(change)

    def _automatic_events(self, state: Any) -> list[tuple[dict, str, None, Any]]:
        """The events the engine's automation options make due after ``state`` (``engine.automatic_events``),
        each with the state after it, to be journaled as changes of their own with source "engine" (so the
        phone and the camera behave alike and an undo takes one back like any change)."""
        automatic_events = getattr(self.engine, "automatic_events", None)   # an engine without automation has none
        if automatic_events is None:
            return []
        made: list[tuple[dict, str, None, Any]] = []
        for _ in range(MAX_AUTOMATIC_EVENTS_PER_CHANGE):
            automatic = automatic_events(state)
            if not automatic:
                return made
            event = check_event_shape(automatic[0])
            try:
                state = apply_checked(self.engine, state, event)
            except (IllegalEvent, SessionError) as error:
                # The engine refusing its own automatic event is its bug: the submitted change stands.
                self.warnings.append(Message('the automatic %(event)s was refused: %(error)s', event=repr(event.get('type')), error=error))
                return made
            made.append((event, ENGINE_SOURCE, None, state))
        self.warnings.append(Message("the engine kept making automatic events: stopped after %(count)s",
                                     count=MAX_AUTOMATIC_EVENTS_PER_CHANGE))
        return made

    def undo(self, source: str = "referee", expected: int | None = None, key: str | None = None,
             undoes: int | None = None) -> JournalEntry:
        """Takes the last event back. ``undoes`` names the change that made it (``session.undo_seq``):
        when another referee's undo or a new event came first, it is no longer the last and the call
        raises Conflict instead of undoing something else."""
        def change() -> JournalEntry:
            if (done := self._replayed(key, "undo", None)) is not None:
                return done
            self._check_expected(expected)
            if undoes is not None and (not self._active or self._active[-1].seq != undoes):
                now = Message("change %(seq)s", seq=self._active[-1].seq) if self._active else Message("nothing")
                raise Conflict(Message("change %(undoes)s is no longer the last event (the last is %(now)s): look again before undoing",
                                       undoes=undoes, now=now))
            if not self._active:
                raise IllegalEvent(Message("nothing to undo"))
            kept = self._active[:-1]
            new_state = replay(self.engine, self.record.setup, [a.event for a in kept])
            entry = self._record("undo", None, source, key, new_state)
            self._redo.append(self._active.pop())
            self.state = new_state
            self._published(entry)
            return entry

        return self._change(change)

    def redo(self, source: str = "referee", expected: int | None = None, key: str | None = None) -> JournalEntry:
        def change() -> JournalEntry:
            if (done := self._replayed(key, "redo", None)) is not None:
                return done
            self._check_expected(expected)
            if not self._redo:
                raise IllegalEvent(Message("nothing to redo"))
            again = self._redo[-1]
            # The table may have moved on by camera readings since; the rules still decide.
            new_state = apply_checked(self.engine, self.state, again.event)
            entry = self._record("redo", None, source, key, new_state)
            redone = self._redo.pop()
            self._active.append(_Active(redone.event, redone.source, entry.seq))
            self.state = new_state
            self._published(entry)
            return entry

        return self._change(change)

    @property
    def deck(self) -> DeckChoice:
        """The deck the table's camera reads with, as the table named it (see :class:`DeckChoice`)."""
        return self._deck

    def choose_deck(self, choice: DeckChoice, source: str = "referee", expected: int | None = None,
                    key: str | None = None, check: Callable[[DeckChoice], None] | None = None) -> JournalEntry:
        """Names the deck the camera reads with from now on: journaled as a ``deck`` change (so it has a
        revision, survives a restart and a retry with the same ``key`` applies once). ``check`` raises
        (UnknownDeck) when the deck is not there: the table is then unchanged."""
        if source not in SOURCES:
            raise SessionError(Message('unknown source %(source)s: one of %(sources)s', source=repr(source), sources=list(SOURCES)))
        stored = choice.stored()

        def change() -> JournalEntry:
            if (done := self._replayed(key, "deck", stored)) is not None:
                return done
            self._check_expected(expected)
            if check is not None:
                check(choice)
            entry = self._record("deck", stored, source, key, self.state)
            self._deck = choice
            self._published(entry)
            return entry

        return self._change(change)

    def delete(self, source: str = "referee", expected: int | None = None, key: str | None = None) -> JournalEntry:
        """The referee deletes the table: a ``delete`` change, after which nobody may see or change it (it leaves
        the evening's list and the players' records). Nothing is erased: the journal keeps the whole game."""
        if source not in SOURCES:
            raise SessionError(Message('unknown source %(source)s: one of %(sources)s', source=repr(source), sources=list(SOURCES)))

        def change() -> JournalEntry:
            if (done := self._replayed(key, "delete", None)) is not None:
                return done
            self._check_expected(expected)
            entry = self._record("delete", None, source, key, self.state)
            self.deleted = True
            self._published(entry)
            return entry

        return self._change(change)

    def summary(self) -> TableSummary:
        """What the evening's list reads of this table now (see companion.session.summary)."""
        with self._changed:
            return self._summary(self.state, self.seq, self._recent[-1].at if self._recent else self.record.created_at,
                                 self.engine.view(self.state), self.deleted)

    def _summary(self, state: Any, seq: int, at: float, view: dict, deleted: bool) -> TableSummary:
        return self._summary_and_finished(state, seq, at, view, deleted)[0]

    def _summary_and_finished(self, state: Any, seq: int, at: float, view: dict, deleted: bool) -> tuple[TableSummary, bool]:
        """The summary row and whether the game is over (a deleted table's row says deleted, yet its game may be over)."""
        result = getattr(self.engine, "result", None)   # an engine without one (a test's) is read from its view
        made = summarize(self.game, view, result(state) if result is not None else None)
        summary = TableSummary(self.id, self.game, DELETED if deleted else made["state"], made["players"], made["winners"],
                               seq, self.record.created_at, at)
        return summary, made["state"] == FINISHED

    def _view_unlocked(self) -> dict:
        """The engine's public view of the current state, made once per revision."""
        if self._view_cache is None or self._view_cache[0] != self.seq:
            self._view_cache = (self.seq, self.engine.view(self.state))
        return self._view_cache[1]

    def _finished_unlocked(self) -> bool:
        """Whether the game is over now, by the same account as the summary (the engine's ``result``)."""
        if self._finished_cache is None or self._finished_cache[0] != self.seq:
            self._finished_cache = (self.seq, self._summary_and_finished(self.state, self.seq, 0.0, self._view_unlocked(), False)[1])
        return self._finished_cache[1]

    @property
    def finished(self) -> bool:
        """The game is over: the table takes no new event (see :class:`GameFinished`) and its pages show it read-only."""
        with self._changed:
            return self._finished_unlocked()

    def _change(self, change: Callable[[], Any]) -> Any:
        """Runs ``change`` in the table's lock, after taking what other servers stored (a shared store).
        When the database refuses the change because another writer came first (its revision or its
        Idempotency-Key was taken meanwhile), takes that writer's changes and runs ``change`` again: it
        then answers as if it had come second (a stale ``expected`` is a Conflict, a retried key a replay)."""
        with self._changed:
            for attempt in range(MAX_RACE_ATTEMPTS):
                if attempt:
                    time.sleep(random.uniform(0, min(RACE_BACKOFF_SECONDS * 2 ** attempt, RACE_BACKOFF_MAX)))
                self._catch_up()
                if self.deleted:
                    raise TableNotFound(Message("table %(table)s was deleted by its referee", table=self.id))
                try:
                    return change()
                except StoreConflict:
                    continue
            raise Conflict(Message("the table is changing too fast to take this change: look at it again and retry"))

    def _catch_up(self) -> None:
        """Applies the changes other servers stored since this table's revision (inside the lock)."""
        if not self.store.shared:
            return
        for entry in self.store.journal(self.id, after=self.seq):
            if entry.seq != self.seq + 1:   # the store answers in order without gaps; anything else is a bug
                raise StoreConflict("revision")
            if self._last_snapshot is None or self._last_snapshot[0] != self.seq:
                self._last_snapshot = (self.seq, self._snapshot_unlocked())
            self._apply_stored(entry)
            self._published(entry)

    def sync(self) -> int:
        """Takes what other servers stored at this table (their phones' changes); returns the revision."""
        with self._changed:
            self._catch_up()
            return self.seq

    def _replayed(self, key: str | None, kind: str, event: dict | None) -> JournalEntry | None:
        """The change an earlier request with this idempotency key made (marked ``replayed``), if any."""
        if key is None:
            return None
        done = self.store.entry_for_key(self.id, key)
        if done is None:
            return None
        if done.kind != kind or done.event != event:
            raise KeyReused(Message("the Idempotency-Key %(key)s already made change %(seq)s (%(kind)s): use a new key",
                                    key=repr(key[:40]), seq=done.seq, kind=done.kind))
        return dataclasses.replace(done, replayed=True)

    def _check_expected(self, expected: int | None) -> None:
        if expected is not None and expected != self.seq:
            raise Conflict(Message('the table is at revision %(seq)s, not %(expected)s: look at it again and retry', seq=self.seq, expected=expected))

    def _record(self, kind: str, event: dict | None, source: str, key: str | None, state: Any) -> JournalEntry:
        entry = self._record_all([(kind, event, source, key)], state)[0]
        self._advance(entry)
        return entry

    def _record_all(self, changes: list[tuple[str, dict | None, str, str | None]], state: Any) -> list[JournalEntry]:
        """Journals (kind, event, source, key) changes at the next revisions, in one write: all or none, with the
        table's summary as of ``state`` (the state after them). The table's revision then moves on entry by
        entry (:meth:`_advance`), each published with its own state."""
        if self._last_snapshot is None or self._last_snapshot[0] != self.seq:
            self._last_snapshot = (self.seq, self._snapshot_unlocked())  # the view the first change is a patch of
        at = self.clock()
        entries = [JournalEntry(self.seq + n, kind, event, source, at, key) for n, (kind, event, source, key) in enumerate(changes, 1)]
        view = self.engine.view(state)
        summary, finished = self._summary_and_finished(state, entries[-1].seq, at, view, self.deleted or entries[-1].kind == "delete")
        self.store.append(self.id, entries[0] if len(entries) == 1 else entries, summary)  # raises before anything in memory changes
        self._view_cache = (entries[-1].seq, view)   # the last change's view is this one: not made twice
        self._finished_cache = (entries[-1].seq, finished)   # and so is its result
        return entries

    def _advance(self, entry: JournalEntry) -> None:
        self._seq = entry.seq
        self._recent.append(entry)

    def _published(self, entry: JournalEntry) -> None:
        """After a change: the patch from the previous view for resuming streams, then wake everyone."""
        previous = self._last_snapshot
        current = self._snapshot_unlocked()
        if previous is not None and previous[0] == entry.seq - 1:
            self._patches.append((entry.seq, json.dumps(patch.diff(previous[1], current), separators=(",", ":"))))
        else:
            self._patches.clear()  # no earlier view to diff against: older resumes get a snapshot
        self._last_snapshot = (entry.seq, current)
        self._changed.notify_all()
        for listener in list(self.listeners):
            listener(self, entry)

    def _overruled(self, event: dict) -> bool:
        target = event_target(event)
        if target is None:
            return False
        for active in reversed(self._active):
            if event_target(active.event) == target:
                if active.source != "referee":
                    return False
                return active.event != event
        return False

    # -- restart ----------------------------------------------------------------------------
    def load(self, entries: list[JournalEntry]) -> None:
        """Rebuild the table from its stored journal (at start-up, before anyone can see it)."""
        for entry in entries:
            self._apply_stored(entry)

    def _apply_stored(self, entry: JournalEntry) -> None:
        """One stored change into the state, as it was made (at start-up, or another server's change)."""
        try:
            if entry.kind == "event":
                self.state = self.engine.apply(self.state, entry.event)
                self._active.append(_Active(entry.event, entry.source, entry.seq))
                self._redo.clear()
            elif entry.kind == "undo":
                self._redo.append(self._active.pop())
                self.state = replay(self.engine, self.record.setup, [a.event for a in self._active])
            elif entry.kind == "redo":
                self.state = self.engine.apply(self.state, self._redo[-1].event)
                redone = self._redo.pop()
                self._active.append(_Active(redone.event, redone.source, entry.seq))
            elif entry.kind == "deck":
                self._deck = DeckChoice.from_stored(entry.event)
            elif entry.kind == "delete":
                self.deleted = True
        except (IllegalEvent, IndexError, *MALFORMED_ERRORS) as error:
            # The rules changed under a stored game: keep the entry, say so, go on.
            self.warnings.append(Message('change %(seq)s (%(kind)s) no longer applies: %(error)s', seq=entry.seq, kind=entry.kind, error=error))
        self._seq = entry.seq
        self._recent.append(entry)

    # -- reading ------------------------------------------------------------------------------
    def active_events(self) -> list[dict]:
        """The engine events that make the current state, in order (what a replay applies)."""
        with self._changed:
            return [dict(a.event) for a in self._active]

    def meta(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game,
            "seq": self.seq,
            "created_at": self.record.created_at,
            # A seed or an explicit deal fixes hidden cards: players never see them.
            "setup": {k: v for k, v in self.record.setup.items() if k not in SECRET_SETUP_KEYS},
            "colours": dict(self.record.meta.get("colours", {})),
            "can_undo": bool(self._active),
            "can_redo": bool(self._redo),
            "undo_event": self._active[-1].event if self._active else None,
            "undo_seq": self._active[-1].seq if self._active else None,
            "redo_event": self._redo[-1].event if self._redo else None,
            "events": len(self._active),
            "warnings": [warning.to_json() for warning in self.warnings],
            "deck": self._deck.to_json(),
            # the game is over: no new event is taken (409), the table page shows it read-only
            "finished": self._finished_unlocked(),
        }

    def _snapshot_unlocked(self) -> dict[str, Any]:
        view = dict(self._view_unlocked())
        view["session"] = self.meta()
        # One JSON round trip: the view is plain JSON (tuples become lists) exactly as a phone sees it,
        # so patches between two snapshots apply in the browser to the same document.
        return json.loads(json.dumps(view))

    def snapshot(self) -> dict[str, Any]:
        """The full public state: the engine's own view, plus the session's facts under ``session``."""
        with self._changed:
            if self._last_snapshot is not None and self._last_snapshot[0] == self.seq:
                return copy_json(self._last_snapshot[1])
            current = self._snapshot_unlocked()
            self._last_snapshot = (self.seq, current)
            return copy_json(current)

    def changes_since(self, after: int) -> tuple[list[JournalEntry], dict]:
        """The journal entries after ``after`` and the snapshot as of the last of them, read together."""
        with self._changed:
            entries = self.store.journal(self.id, after=after)
            return entries, self.snapshot()

    def patches_since(self, after: int) -> list[tuple[JournalEntry, str]] | None:
        """Each change after ``after`` with the patch it made to the snapshot (JSON Patch as JSON text),
        oldest first; None when they are no longer all kept (the caller sends a snapshot instead)."""
        with self._changed:
            if after >= self.seq:
                return []
            if not self._patches or self._patches[0][0] > after + 1 or self._patches[-1][0] != self.seq:
                return None
            first = after + 1 - self._patches[0][0]
            oldest = self._recent[0].seq
            return [(self._recent[seq - oldest], ops) for seq, ops in list(self._patches)[first:]]

    def wait_for_change(self, after: int, timeout: float) -> bool:
        """True when a change after ``after`` exists; False on timeout or when the table closes."""
        with self._changed:
            self._changed.wait_for(lambda: self.seq > after or self.closed, timeout=timeout)
            return self.seq > after

    def close(self) -> None:
        """Wakes everyone waiting for a change (server shutdown); the table stays readable."""
        with self._changed:
            self.closed = True
            self._changed.notify_all()
            for listener in list(self.listeners):
                listener(self, None)


def copy_json(value: Any) -> Any:
    """A deep copy of a plain JSON value (faster than copy.deepcopy for these)."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value
