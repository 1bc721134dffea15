"""Export and import of whole tables: a game moved from a laptop to the venue's server keeps its history.

The JSON export holds each table's setup (the seed and the deal included: a replay needs them), its journal
(every change, undo and redo included, as stored) and its summary, under ``"format": "card-companion/tables"``
and a version. Import takes such a document whole or not at all: every table's setup is judged by its engine
and its journal replayed on this server's rules before anything is stored; any change that does not apply, a
malformed entry, a gap in the sequence or a game this server lacks refuses the whole import with the reason.
An imported table keeps its id where it is free here (else it gets a new one) and gets a new referee PIN and
link: an export never carries the means to change a table (the PIN's hash would be a six-digit secret away).

The CSV export (one row per game and player) is for spreadsheets: UTF-8 with a byte-order mark, so a
spreadsheet on Windows reads Chinese names as they were typed.
"""
from __future__ import annotations

import csv
import io
import math
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from companion.games import GameError
from companion.messages import Message
from companion.session.store import ImportedTable, JournalEntry, TableRecord, TableSummary
from companion.session.summary import FINISHED
from companion.session.table import (JOURNAL_SOURCES, MALFORMED_ERRORS, SessionError, Table, check_event_shape,
                                     check_plain_json, hash_pin)

if TYPE_CHECKING:
    from companion.session.registry import TableRegistry

FORMAT = "card-companion/tables"
VERSION = 1
# What an import may hold: a venue's season is a few hundred tables of at most a few thousand changes; the
# bounds only keep a hostile file from holding the server for minutes.
MAX_IMPORT_TABLES = 2000
MAX_IMPORT_CHANGES = 50_000
IMPORTED_KINDS = ("event", "undo", "redo", "deck")
# The meta an import keeps: what the screens use. Anything else (a demo's PIN, a future key) is left out.
IMPORTED_META = ("colours", "deck")
CSV_COLUMNS = ("table", "game", "state", "started", "last_change", "seat", "player", "score", "rank", "winner")


class ImportRefused(SessionError):
    """The document cannot be imported (HTTP 400): nothing was stored."""


@dataclass(frozen=True)
class Imported:
    """One table an import stored: its id here (``former_id``: the id it had in the export), PIN and link token."""

    table: Table
    former_id: str
    pin: str
    token: str


def export_table(record: TableRecord, journal: Sequence[JournalEntry], summary: TableSummary | None) -> dict[str, Any]:
    return {"id": record.id, "game": record.game, "created_at": record.created_at, "setup": record.setup,
            "meta": {key: record.meta[key] for key in IMPORTED_META if key in record.meta},
            "journal": [entry.to_json() for entry in journal],
            "summary": None if summary is None else summary.to_json()}


def export_document(tables: Iterable[dict[str, Any]], clock=time.time) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "exported_at": clock(), "tables": list(tables)}


def _iso(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at))


def csv_rows(summaries: Iterable[TableSummary]) -> list[list[Any]]:
    """One row per game and player, seat order, with the rank by score (1 = best; ties share it)."""
    rows = []
    for summary in summaries:
        scores = [p.get("score") for p in summary.players]
        for seat, player in enumerate(summary.players, 1):
            score = player.get("score")
            rank = None if score is None else 1 + sum(1 for other in scores if other is not None and other > score)
            rows.append([summary.table_id, summary.game, summary.state, _iso(summary.created_at), _iso(summary.updated_at),
                         seat, player.get("name"), "" if score is None else score, "" if rank is None else rank,
                         "yes" if summary.state == FINISHED and player.get("name") in summary.winners else "no"])
    return rows


def csv_text(summaries: Iterable[TableSummary]) -> str:
    """The CSV export, with the UTF-8 byte-order mark first (a spreadsheet then reads Chinese names right)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in csv_rows(summaries):
        # a cell a spreadsheet would run as a formula (a name typed "=1+1") is written as text
        writer.writerow([f"'{cell}" if isinstance(cell, str) and cell[:1] in ("=", "+", "-", "@") else cell for cell in row])
    return "\ufeff" + buffer.getvalue()


# -- import --------------------------------------------------------------------------------------------
def _refuse(message: Message) -> ImportRefused:
    return ImportRefused(message)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _entries(raw: Any, where: Message) -> list[JournalEntry]:
    if not isinstance(raw, list):
        raise _refuse(Message("%(where)s: the journal must be a list", where=where))
    if len(raw) > MAX_IMPORT_CHANGES:
        raise _refuse(Message("%(where)s: at most %(most)s changes a table, got %(count)s", where=where,
                              most=MAX_IMPORT_CHANGES, count=len(raw)))
    entries = []
    for number, item in enumerate(raw, 1):
        if not isinstance(item, Mapping):
            raise _refuse(Message("%(where)s, change %(number)s: not a JSON object", where=where, number=number))
        kind, source, at, event = item.get("kind"), item.get("source"), item.get("at"), item.get("event")
        if item.get("seq") != number or isinstance(item.get("seq"), bool):
            raise _refuse(Message("%(where)s, change %(number)s: its seq is %(seq)s (changes are numbered 1, 2, 3 … without gaps)",
                                  where=where, number=number, seq=repr(item.get("seq"))[:20]))
        if kind == "delete":
            raise _refuse(Message("%(where)s: the table was deleted by its referee; a deleted table is not imported", where=where))
        if kind not in IMPORTED_KINDS:
            raise _refuse(Message("%(where)s, change %(number)s: unknown kind %(kind)s (one of %(kinds)s)", where=where,
                                  number=number, kind=repr(kind)[:30], kinds=list(IMPORTED_KINDS)))
        if source not in JOURNAL_SOURCES:
            raise _refuse(Message("%(where)s, change %(number)s: unknown source %(source)s (one of %(sources)s)", where=where,
                                  number=number, source=repr(source)[:30], sources=list(JOURNAL_SOURCES)))
        if not _number(at):
            raise _refuse(Message("%(where)s, change %(number)s: its time must be a number", where=where, number=number))
        try:
            if kind == "event":
                event = check_event_shape(event)
            elif kind == "deck":
                if not isinstance(event, Mapping):
                    raise SessionError(Message("a deck change names its deck as a JSON object"))
                check_plain_json(event, "a deck change")
                event = dict(event)
            elif event is not None:
                raise SessionError(Message("an undo or a redo carries no event"))
        except SessionError as error:
            raise _refuse(Message("%(where)s, change %(number)s: %(error)s", where=where, number=number, error=error.message)) from None
        entries.append(JournalEntry(number, kind, event, source, float(at)))
    return entries


def _meta(raw: Any, where: Message) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise _refuse(Message("%(where)s: its meta must be a JSON object", where=where))
    meta = {key: raw[key] for key in IMPORTED_META if key in raw}
    try:
        check_plain_json(meta, "the meta")
    except SessionError as error:
        raise _refuse(Message("%(where)s: %(error)s", where=where, error=error.message)) from None
    colours = meta.get("colours", {})
    from companion.session.registry import COLOUR_PATTERN   # the one rule of a colour

    if not isinstance(colours, Mapping) or not all(isinstance(k, str) and isinstance(v, str) and COLOUR_PATTERN.match(v)
                                                   for k, v in colours.items()):
        raise _refuse(Message("%(where)s: the players' colours are written {name: #rrggbb}", where=where))
    if "deck" in meta and not isinstance(meta["deck"], Mapping):
        raise _refuse(Message("%(where)s: its deck must be a JSON object", where=where))
    return meta


def prepare_import(registry: "TableRegistry", document: Any) -> tuple[list[ImportedTable], list[tuple[str, str, str]]]:
    """The tables of an export document, judged and replayed (nothing stored), each with (former id, PIN,
    token); raises ImportRefused with the first reason it cannot be imported."""
    if not isinstance(document, Mapping) or document.get("format") != FORMAT:
        raise _refuse(Message('not a Card Companion export: its "format" must be %(format)s', format=repr(FORMAT)))
    if document.get("version") != VERSION:
        raise _refuse(Message("an export of version %(version)s: this server reads version %(known)s",
                              version=repr(document.get("version"))[:20], known=VERSION))
    raw_tables = document.get("tables")
    if not isinstance(raw_tables, list) or not raw_tables:
        raise _refuse(Message('the export holds no tables: "tables" must be a list of at least one'))
    if len(raw_tables) > MAX_IMPORT_TABLES:
        raise _refuse(Message("at most %(most)s tables an import, got %(count)s", most=MAX_IMPORT_TABLES, count=len(raw_tables)))
    prepared: list[ImportedTable] = []
    secrets_made: list[tuple[str, str, str]] = []
    taken: set[str] = set()
    now = registry.clock()
    for number, raw in enumerate(raw_tables, 1):
        where = Message("table %(number)s", number=number)
        if not isinstance(raw, Mapping):
            raise _refuse(Message("%(where)s: not a JSON object", where=where))
        game, setup, created_at = raw.get("game"), raw.get("setup"), raw.get("created_at")
        if not isinstance(game, str) or game not in registry.games:
            raise _refuse(Message("%(where)s: the game %(game)s is not played on this server (%(games)s)", where=where,
                                  game=repr(game)[:30], games=list(registry.games)))
        if not isinstance(setup, Mapping):
            raise _refuse(Message("%(where)s: its setup must be a JSON object", where=where))
        if not _number(created_at) or not 0 < created_at <= now + 86400:
            raise _refuse(Message("%(where)s: its created_at must be a time (seconds since 1970)", where=where))
        try:
            check_plain_json(setup, "the setup")
        except SessionError as error:
            raise _refuse(Message("%(where)s: %(error)s", where=where, error=error.message)) from None
        meta = _meta(raw.get("meta"), where)
        entries = _entries(raw.get("journal"), where)
        former = raw.get("id") if isinstance(raw.get("id"), str) else ""
        table_id = former if former not in taken and registry.id_is_free(former) else registry.new_id()
        while table_id in taken:
            table_id = registry.new_id()
        taken.add(table_id)
        pin = "".join(secrets.choice("0123456789") for _ in range(6))
        token = secrets.token_urlsafe(32)
        salt = secrets.token_hex(8)
        record = TableRecord(table_id, game, dict(setup), salt, hash_pin(pin, salt), float(created_at), meta, hash_pin(token, salt))
        try:
            table = Table(record, registry.store, registry.engines(game), registry.clock)
        except (GameError, *MALFORMED_ERRORS) as error:
            raise _refuse(Message("%(where)s: its setup is refused here: %(error)s", where=where, error=str(error)[:160])) from None
        table.load(entries)
        if table.warnings:   # a change the rules of this server do not take
            raise _refuse(Message("%(where)s: %(error)s", where=where, error=table.warnings[0]))
        prepared.append(ImportedTable(record, entries, table.summary()))
        secrets_made.append((former, pin, token))
    return prepared, secrets_made


def import_document(registry: "TableRegistry", document: Any) -> list[Imported]:
    """Stores every table of ``document`` (all or none) and loads them; ImportRefused and nothing stored otherwise."""
    prepared, made = prepare_import(registry, document)
    tables = registry.add_imported(prepared)
    by_id = {table.id: table for table in tables}
    return [Imported(by_id[one.record.id], former, pin, token) for one, (former, pin, token) in zip(prepared, made)
            if one.record.id in by_id]
