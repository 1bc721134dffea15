"""The session layer: binds card events to a game engine, persists every change, replays on restart.

Above the engines and the table pipeline, below the web UI and the CLI. A :class:`TableRegistry`
owns one data directory (a SQLite file) or
names a PostgreSQL database that several servers share; each :class:`Table` in it holds a game's journal, its
current state, its referee PIN and a change feed (sequence numbers) for server-sent events.
"""
from __future__ import annotations

from companion.session.registry import ID_PATTERN, TableRegistry, normalize_table_id
from companion.session.store import EventStore, JournalEntry, JournalStore, StoreUnavailable, TableRecord
from companion.session.table import (Conflict, DeckChoice, GameFinished, KeyReused, SessionError, Table, TableNotFound, UnknownDeck,
                                     check_event_shape, event_target)

__all__ = [
    "Conflict", "DeckChoice", "GameFinished", "KeyReused", "EventStore", "ID_PATTERN", "JournalEntry", "JournalStore", "StoreUnavailable",
    "SessionError", "Table", "TableNotFound", "TableRecord",
    "TableRegistry", "UnknownDeck", "check_event_shape", "event_target", "normalize_table_id",
]
