"""The evening: the server's tables, each player's record, export and import, deleting a table (issue 30).

Who sees what:

- The **host** (whoever runs the server) sees every table and every record: ``companion serve`` prints the
  host's link (``/evening#host=TOKEN``, a long random token kept in the data folder, so it survives a
  restart); the page trades it for a cookie on that phone. With ``--list-tables`` everyone may read the
  list and the records as the host does (a home table), but only the host's link merges names, exports
  every table's JSON or imports.
- A **player** sees the tables whose link they have: this phone's own list of the tables it opened
  (the table page keeps their codes in the browser), and any one table by its code.
- The **referee** of a table (its PIN or link) deletes it, after confirming with its code; nothing else
  is lost (companion.session.table.Table.delete: the journal keeps the game).

Everything here reads the tables' summary rows (companion.session.summary), never a journal, except an
export of the JSON (which is the journal).
"""
from __future__ import annotations

import json
import os
import pathlib
import secrets
import time

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request, url_for
from flask_babel import gettext as _

from companion.session import TableNotFound
from companion.session.records import player_records, resolve
from companion.session.store import StoreConflict, TableSummary
from companion.session.summary import FINISHED, player_key
from companion.session.transfer import ImportRefused, csv_text, export_document, export_table, import_document

from web_ui.host import HOST_COOKIE, HOST_HEADER, is_host, may_list, token_matches
from web_ui.api import ApiError, change_options, json_body, referee_table, referee_url, registry
from web_ui.i18n import error_text

bp = Blueprint("evening", __name__)

HOST_TOKEN_FILE = "host-token"
# The host's token: 32 random bytes (43 URL-safe characters), like a referee's: it cannot be guessed.
HOST_TOKEN_BYTES = 32
# The host's phone keeps its cookie this long (an evening, and the next ones of the season).
HOST_COOKIE_DAYS = 60
# The tables a phone opened, sent back as ?mine=: at most this many (a phone's own list of one season).
MAX_MINE = 200
# The evening page shows this many tables at a time, newest first (the rest on the next pages): a page of
# 1,000 finished games took 455 ms to serve on the loaded 2-core machine (benchmarks/bench_history.py), and a
# phone scrolls through 50 cards already.
PAGE_TABLES = 50


def ensure_host_token(data_dir: str | pathlib.Path) -> str:
    """The host's token of this data folder: read from ``host-token``, or drawn and written there (mode 0600)."""
    path = pathlib.Path(data_dir) / HOST_TOKEN_FILE
    try:
        token = path.read_text().strip()
        if len(token) >= 32:
            return token
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(HOST_TOKEN_BYTES)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(token + "\n")
    return token


def host_link(base_url: str, token: str) -> str:
    # In the fragment: a browser never sends it to a server, a log or a Referer.
    return base_url.rstrip("/") + "/evening#host=" + token


# -- who may see ------------------------------------------------------------------------------------
def require_list() -> None:
    if not may_list():
        raise ApiError(403, _("only the host sees every table and the players' records: open the host's link "
                              "that companion serve printed"))


def require_host() -> None:
    if not is_host():
        raise ApiError(403, _("only the host may do this: open the host's link that companion serve printed"))


# -- reading ----------------------------------------------------------------------------------------
def result_url(summary: TableSummary) -> str:
    """Where the list opens a table: a finished one read-only (its result), an unfinished one to play on."""
    if summary.state == FINISHED and "results.result_page" in current_app.view_functions:   # web_ui/results.py
        return url_for("results.result_page", table_id=summary.table_id)
    return url_for("pages.table", table_id=summary.table_id)


def mine_ids() -> list[str]:
    raw = request.args.get("mine", "")
    ids = []
    for part in raw.split(",")[:MAX_MINE]:
        part = part.strip().upper()
        if part and part not in ids and len(part) <= 12:
            ids.append(part)
    return ids


def _records():
    summaries = registry().summaries()
    aliases = registry().store.aliases()
    return summaries, aliases, player_records(summaries, aliases)


@bp.get("/evening")
def evening():
    """The evening's tables: every table for the host (or with --list-tables), else this phone's own."""
    page = request.args.get("page", "1")
    page = int(page) if page.isdigit() and 0 < len(page) < 6 and int(page) > 0 else 1
    if may_list():
        tables, scope = registry().summaries(), "all"
    else:
        ids = mine_ids()
        tables, scope = (registry().summaries(ids) if ids else []), "mine"
    shown = tables[(page - 1) * PAGE_TABLES:page * PAGE_TABLES]
    return render_template("evening.html", tables=shown, scope=scope, host=is_host(), result_url=result_url,
                           listing=may_list(), played=played, page=page, pages=max(1, -(-len(tables) // PAGE_TABLES)),
                           count=len(tables))


@bp.get("/players")
def players():
    if not may_list():
        return render_template("evening_refused.html"), 403
    _summaries, _aliases, records = _records()
    ordered = sorted(records.values(), key=lambda r: (-r.wins, -r.games, r.name.casefold()))
    return render_template("players.html", records=ordered, host=is_host(), when=when)


@bp.get("/players/<path:name>")
def player(name: str):
    if not may_list():
        return render_template("evening_refused.html"), 403
    _summaries, aliases, records = _records()
    key = resolve(player_key(name), aliases)
    record = records.get(key)
    if record is None:
        abort(404)
    merged = sorted(other for other, into in aliases.items() if resolve(into, aliases) == key)
    others = sorted((r for r in records.values() if r.key != key), key=lambda r: r.name.casefold())
    return render_template("player.html", record=record, host=is_host(), when=when, result_url=result_url,
                           merged=merged, others=others)


@bp.get("/t/<table_id>/delete")
def delete_page(table_id: str):
    try:
        table = registry().get(table_id)
    except TableNotFound:
        abort(404)
    return render_template("delete_table.html", table=table, summary=table.summary())


def when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at))


def played(summary: TableSummary) -> str:
    """When a table was played: its first and its last change's times (one date when they share it)."""
    start, last = time.localtime(summary.created_at), time.localtime(summary.updated_at)
    if start[:3] == last[:3]:
        return f"{time.strftime('%Y-%m-%d %H:%M', start)}–{time.strftime('%H:%M', last)}"
    return f"{when(summary.created_at)} – {when(summary.updated_at)}"


# -- the API ----------------------------------------------------------------------------------------
@bp.post("/api/host/session")
def host_session():
    """The host's page trades the token of its link (``X-Host-Token``) for a cookie on this phone."""
    if not token_matches(request.headers.get(HOST_HEADER)):
        raise ApiError(403, _("this is not the host's link of this server"))
    response = jsonify(ok=True)
    response.set_cookie(HOST_COOKIE, current_app.config["HOST_TOKEN"], max_age=HOST_COOKIE_DAYS * 86400, httponly=True,
                        samesite="Strict", secure=request.is_secure, path="/")
    return response


@bp.delete("/api/host/session")
def host_sign_out():
    response = jsonify(ok=True)
    response.delete_cookie(HOST_COOKIE, path="/")
    return response


@bp.get("/api/evening/tables")
def api_tables():
    """Every table's summary (the host, or --list-tables); ``?mine=A,B`` anyone: those tables only."""
    ids = mine_ids()
    if ids and not may_list():
        return jsonify(tables=[s.to_json() for s in registry().summaries(ids)], scope="mine")
    require_list()
    return jsonify(tables=[s.to_json() for s in registry().summaries()], scope="all")


@bp.get("/api/evening/players")
def api_players():
    require_list()
    _summaries, _aliases, records = _records()
    ordered = sorted(records.values(), key=lambda r: (-r.wins, -r.games, r.name.casefold()))
    return jsonify(players=[r.to_json() for r in ordered],
                   same_name=_("The same name is the same player at every table (letter case and spaces aside); "
                               "the host can merge two names of one person."))


@bp.get("/api/evening/players/<path:name>")
def api_player(name: str):
    require_list()
    _summaries, aliases, records = _records()
    record = records.get(resolve(player_key(name), aliases))
    if record is None:
        raise ApiError(404, _("no finished game has a player named %(name)s", name=name[:40]))
    return jsonify(record.to_json(with_tables=True))


@bp.post("/api/evening/players/merge")
def api_merge():
    """The host says two names are one player: ``{"name": "ann", "into": "Anne"}``; ``"into": null`` undoes it."""
    require_host()
    body = json_body()
    name, into = body.get("name"), body.get("into")
    if not isinstance(name, str) or not name.strip() or len(name) > 40:
        raise ApiError(400, _('"name" is the player name to merge (at most 40 characters)'))
    if into is not None and (not isinstance(into, str) or not into.strip() or len(into) > 40):
        raise ApiError(400, _('"into" is the player name it is the same player as, or null to undo a merge'))
    store = registry().store
    aliases = store.aliases()
    key = player_key(name)
    if into is None:
        if key not in aliases:
            raise ApiError(404, _("%(name)s is not merged into another name", name=name[:40]))
        store.set_alias(key, None, time.time())
        return jsonify(ok=True, name=name, into=None)
    target = resolve(player_key(into), aliases)
    if target == key or resolve(key, aliases) == target:
        raise ApiError(400, _("%(name)s and %(into)s are one player already", name=name[:40], into=into[:40]))
    store.set_alias(key, target, time.time())
    return jsonify(ok=True, name=name, into=into)


@bp.delete("/api/tables/<table_id>")
def api_delete(table_id: str):
    """The referee deletes the table, confirming with its code: ``{"confirm": "K7M2QX"}``."""
    table = referee_table(table_id)
    options = change_options()
    body = json_body()
    if not isinstance(body.get("confirm"), str) or body["confirm"].strip().upper() != table.id:
        raise ApiError(400, _('to delete the table, confirm with its code: {"confirm": "%(table)s"}', table=table.id))
    entry = registry().delete(table, **options)
    current_app.extensions["camera"].detach(table)   # its camera feed, if any, stops
    return jsonify(ok=True, id=table.id, revision=entry.seq)


def _csv_response(summaries: list[TableSummary], filename: str) -> Response:
    response = Response(csv_text(summaries).encode("utf-8"), mimetype="text/csv")
    response.headers["Content-Type"] = "text/csv; charset=utf-8"
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    response.headers["Cache-Control"] = "no-store"
    return response


def _json_download(document: dict, filename: str) -> Response:
    response = Response(json.dumps(document, ensure_ascii=False, separators=(",", ":")), mimetype="application/json")
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/api/tables/<table_id>/export.csv")
def api_table_csv(table_id: str):
    """One table's rows (one per player): anyone with its link may read its result."""
    table = registry().get(table_id)
    return _csv_response([table.summary()], f"companion-{table.id}.csv")


@bp.get("/api/tables/<table_id>/export.json")
def api_table_json(table_id: str):
    """One table with its journal (its setup's seed included): its referee, or the host."""
    table = registry().get(table_id) if is_host() else referee_table(table_id)
    document = export_document([export_table(table.record, table.journal, table.summary())])
    return _json_download(document, f"companion-{table.id}.json")


@bp.get("/api/evening/export.csv")
def api_all_csv():
    require_list()
    return _csv_response(registry().summaries(), "companion-tables.csv")


@bp.get("/api/evening/export.json")
def api_all_json():
    """Every table with its journal: the host only (the setups' seeds are in it)."""
    require_host()
    store = registry().store
    tables = []
    for summary in registry().summaries():
        record = store.table(summary.table_id)
        if record is not None:
            tables.append(export_table(record, store.journal(record.id), summary))
    return _json_download(export_document(tables), "companion-tables.json")


@bp.post("/api/evening/import")
def api_import():
    """The host imports an export (one table or many): all or none; each table keeps its id where it is free
    here and gets a new referee PIN and link, given back once in the answer."""
    require_host()
    most = int(current_app.config["MAX_IMPORT_BYTES"])
    if request.content_length is not None and request.content_length > most:
        raise ApiError(413, _("an import may be at most %(limit)s MB", limit=most // (1024 * 1024)))
    request.max_content_length = most   # the one body larger than MAX_CONTENT_LENGTH (Flask 3.1: per request)
    raw = request.get_data(cache=False)
    if len(raw) > most:
        raise ApiError(413, _("an import may be at most %(limit)s MB", limit=most // (1024 * 1024)))
    try:
        document = json.loads(raw.decode("utf-8-sig") or "null")
    except (UnicodeDecodeError, ValueError):
        raise ApiError(400, _("the import is not valid JSON")) from None
    except RecursionError:
        raise ApiError(400, _("the body nests too deeply")) from None
    for _attempt in range(3):
        try:
            imported = import_document(registry(), document)
            break
        except StoreConflict:   # another server took an id a moment ago: judged again with new ids
            continue
        except ImportRefused as error:
            raise ApiError(400, error_text(error)) from None
    else:
        raise ApiError(409, _("the import's table ids were taken meanwhile: please try again"))
    return jsonify(tables=[{"id": one.table.id, "former_id": one.former_id, "game": one.table.game, "pin": one.pin,
                            "referee_url": referee_url(one.table, one.token),
                            "join_url": url_for("pages.table", table_id=one.table.id, _external=False)}
                           for one in imported]), 201


@bp.get("/evening/import")
def import_page():
    if not is_host():
        return render_template("evening_refused.html"), 403
    return render_template("evening_import.html")
