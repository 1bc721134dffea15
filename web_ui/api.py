"""The JSON API and the live change stream (server-sent events). See ``docs/web.md`` and ``openapi.yaml``."""
from __future__ import annotations

import io
import json
import re
import threading
import time

import qrcode
import qrcode.image.svg
from flask import Blueprint, Response, current_app, jsonify, request, stream_with_context, url_for
from flask_babel import gettext as _
from werkzeug.exceptions import HTTPException

from companion.games import GameError, IllegalEvent
from companion.session import (Conflict, DeckChoice, KeyReused, SessionError, StoreUnavailable, Table, TableNotFound,
                               TableRegistry, UnknownDeck)
from companion.session.table import check_plain_json

from web_ui.host import may_list   # the host's link lists the tables too (web_ui/evening.py)
from web_ui.i18n import error_text

bp = Blueprint("api", __name__, url_prefix="/api")


class ApiError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}   # e.g. a 429's Retry-After


def _json_error(status: int, message: str, headers: dict[str, str] | None = None):
    return jsonify(error=message), status, headers or {}


def register_error_handlers(app) -> None:
    """Every failure under /api answers JSON ``{"error": message}`` with a fitting status."""
    # Each error in the language of the phone that made the request (an engine's or the session's
    # Message translated here; see web_ui/i18n.py).
    app.register_error_handler(ApiError, lambda e: _json_error(e.status, e.message, e.headers))
    app.register_error_handler(TableNotFound, lambda e: _json_error(404, error_text(e)))
    app.register_error_handler(Conflict, lambda e: _json_error(409, error_text(e)))
    app.register_error_handler(KeyReused, lambda e: _json_error(422, error_text(e)))
    app.register_error_handler(UnknownDeck, lambda e: _json_error(422, error_text(e)))

    def database_unavailable(error: StoreUnavailable):
        # Nothing was written (each change is one transaction); the database pool reconnects by itself.
        current_app.logger.warning("database unavailable on %s %s: %s", request.method, request.path, error)
        wait = int(current_app.config.get("DATABASE_RETRY_SECONDS", 2))
        return _json_error(503, _("the tables' database cannot be reached just now: nothing was changed; try again in %(seconds)s s",
                                  seconds=wait), {"Retry-After": str(wait)})

    app.register_error_handler(StoreUnavailable, database_unavailable)
    app.register_error_handler(IllegalEvent, lambda e: _json_error(422, error_text(e)))
    for bad_input in (GameError, SessionError, ValueError):
        app.register_error_handler(bad_input, lambda e: _json_error(400, error_text(e)))

    def http_error(error: HTTPException):
        if request.path.startswith("/api/"):
            if error.code == 413:    # werkzeug's own (a body over MAX_CONTENT_LENGTH): in the phone's words
                from web_ui.i18n import render, too_large

                return _json_error(413, render(too_large(int(current_app.config["MAX_CONTENT_LENGTH"]))))
            response = jsonify(error=error.description or error.name)
            response.status_code = error.code or 500
            # 405 keeps its Allow header (and 429 its Retry-After): the client learns what to do instead.
            for name, value in error.get_headers():
                if name.lower() != "content-type":
                    response.headers[name] = value
            return response
        return error

    app.register_error_handler(HTTPException, http_error)

    def server_error(error: Exception):
        # A bug still answers in the API's shape, without details that would help an attacker.
        current_app.logger.exception("unexpected error on %s %s", request.method, request.path)
        if request.path.startswith("/api/"):
            return _json_error(500, _("internal error: the table is unchanged; please report this"))
        return "internal error", 500

    app.register_error_handler(Exception, server_error)
    app.before_request(refuse_cross_site_changes)


SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def refuse_cross_site_changes():
    """A state-changing request from another site's page is refused: a browser names the page's origin
    (``Origin``, ``Sec-Fetch-Site``) on every cross-site POST, text/plain ones included, while curl and
    scripts send neither and are let through (they still need the referee's PIN or token)."""
    if request.method in SAFE_METHODS:
        return None
    origin = request.headers.get("Origin")
    own = f"{request.scheme}://{request.host}".lower()
    if origin is not None and origin.rstrip("/").lower() != own:
        raise ApiError(403, _("a change from another site (%(origin)s) is refused: open the table's own page", origin=origin[:80]))
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        raise ApiError(403, _("a %(site)s request cannot change a table: open the table's own page", site=site))
    return None


def registry() -> TableRegistry:
    return current_app.extensions["registry"]


def json_body() -> dict:
    """The request body as a JSON object, whatever Content-Type the client sent (curl often sends none)."""
    limit = current_app.config["MAX_JSON_BYTES"]
    if request.content_length is not None and request.content_length > limit:
        raise ApiError(413, _('a JSON body may be at most %(limit)s bytes', limit=limit))
    raw = request.get_data(cache=True)
    if len(raw) > limit:  # a chunked body names no length up front
        raise ApiError(413, _('a JSON body may be at most %(limit)s bytes', limit=limit))
    try:
        body = json.loads(raw or b"null")
    except (UnicodeDecodeError, ValueError):
        raise ApiError(400, _("the body is not valid JSON")) from None
    except RecursionError:
        raise ApiError(400, _("the body nests too deeply")) from None
    if not isinstance(body, dict):
        raise ApiError(400, _("the body must be a JSON object"))
    check_plain_json(body)
    return body


class PinLockout:
    """Wrong PINs per table: after ``free`` of them the table takes no PIN for a while, twice as long after
    each further wrong one (30 s, 1 min, 2 min … up to an hour), whoever sends it and from wherever, so
    a million codes cannot be tried from many addresses. The referee token is never locked out: a
    stranger guessing PINs cannot lock the referee out of their own table."""

    def __init__(self, clock=time.monotonic) -> None:
        self._lock = threading.Lock()
        self._clock = clock
        self._failures: dict[str, int] = {}
        self._until: dict[str, float] = {}

    def wait(self, table_id: str) -> float:
        """Seconds until this table takes a PIN again (0: now)."""
        with self._lock:
            return max(0.0, self._until.get(table_id, 0.0) - self._clock())

    def failed(self, table_id: str, free: int, first_lockout: float, longest: float) -> None:
        with self._lock:
            count = self._failures.get(table_id, 0) + 1
            self._failures[table_id] = count
            if count >= free:
                self._until[table_id] = self._clock() + min(first_lockout * 2 ** (count - free), longest)

    def succeeded(self, table_id: str) -> None:
        with self._lock:
            self._failures.pop(table_id, None)
            self._until.pop(table_id, None)


def pin_lockout() -> PinLockout:
    return current_app.extensions["pin_lockout"]


def referee_table(table_id: str) -> Table:
    """The table, if this request carries its referee token (``X-Referee-Token``, or a token in
    ``X-Referee-Pin``) or its PIN (``X-Referee-Pin``); else 403, or 429 while wrong PINs lock it."""
    table = registry().get(table_id)
    token = request.headers.get("X-Referee-Token")
    pin = request.headers.get("X-Referee-Pin")
    if token is None and pin is not None and len(pin.strip()) > 12:
        token, pin = pin, None  # a phone that came in by the referee link keeps the token where a PIN goes
    if token is not None:
        if table.token_matches(token):
            return table
        raise ApiError(403, _("this referee link is not this table's: ask the referee for the link or the PIN"))
    config = current_app.config
    wait = pin_lockout().wait(table.id)
    if pin and wait > 0:
        raise ApiError(429, _("too many wrong PINs: this table takes a PIN again in %(number)s s (the referee link still works)",
                              number=int(wait) + 1))
    if not table.pin_matches(pin):
        if pin:  # a wrong guess counts; a watcher's phone sending none does not
            pin_lockout().failed(table.id, config["PIN_ATTEMPTS"], config["PIN_LOCKOUT_SECONDS"], config["PIN_LOCKOUT_MAX_SECONDS"])
        raise ApiError(403, _("only the referee can change this table: send the PIN in the X-Referee-Pin header"))
    pin_lockout().succeeded(table.id)
    return table


IDEMPOTENCY_KEY = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


def change_options() -> dict:
    """What a state-changing request may add in headers: ``X-Expected-Revision`` (the table's revision it
    was made against; another one answers 409) and ``Idempotency-Key`` (a retry applies once)."""
    options = {}
    expected = request.headers.get("X-Expected-Revision")
    if expected is not None:
        if not expected.strip().isdigit() or len(expected.strip()) > 12:
            raise ApiError(400, _('X-Expected-Revision is a revision number, got %(expected)s', expected=repr(expected[:20])))
        options["expected"] = int(expected)
    key = request.headers.get("Idempotency-Key")
    if key is not None:
        if not IDEMPOTENCY_KEY.match(key):
            raise ApiError(400, _("Idempotency-Key is 1-64 letters, digits or . _ : -"))
        options["key"] = key
    return options


def join_url(table: Table) -> str:
    base = current_app.config.get("PUBLIC_URL") or request.host_url
    return base.rstrip("/") + url_for("pages.table", table_id=table.id)


# -- tables ---------------------------------------------------------------------------------------
@bp.get("/games")
def games():
    """The games, each with its rule options (defaults) and, where the engine has it, what each means."""
    catalogue = []
    for name in registry().games:
        engine = registry().engines(name)
        catalogue.append({"name": name, "options": engine.option_defaults(), "help": dict(engine.option_help)})
    return jsonify(games=list(registry().games), catalogue=catalogue)


def referee_url(table: Table, token: str) -> str:
    # In the fragment: a browser never sends it to a server, a log or a Referer.
    return f"{join_url(table)}#ref={token}"


@bp.post("/tables")
def create_table():
    body = json_body()
    # "deck" (optional) names the learned deck its camera reads with; null: none (the general models).
    setup = {key: value for key, value in body.items() if key not in ("game", "deck")}
    deck = DeckChoice.parse(body) if "deck" in body else None
    table, pin, token = registry().create_with_token(body.get("game"), setup, deck=deck)
    current_app.extensions["camera"].adopt(table)
    payload = {
        "id": table.id,
        "pin": pin,
        "referee_token": token,
        "referee_url": referee_url(table, token),
        "referee_qr_url": url_for("api.qr_code", table_id=table.id, referee=token),
        "join_url": join_url(table),
        "qr_url": url_for("api.qr_code", table_id=table.id),
        "stream_url": url_for("api.stream", table_id=table.id),
    }
    return jsonify(payload), 201, {"Location": url_for("api.get_table", table_id=table.id)}


@bp.get("/tables")
def list_tables():
    """The tables with their join codes only when the server was started to list them (``--list-tables``) or
    the host asks (its link's token); otherwise just how many there are, so a stranger on the network learns no code to watch."""
    tables = registry().summaries()   # no journal replayed: a server of 1,000 finished games answers at once
    if not may_list():
        return jsonify(tables=[], count=len(tables), listed=False)
    return jsonify(tables=[{"id": t.table_id, "game": t.game, "seq": t.seq, "created_at": t.created_at, "state": t.state,
                            "players": [p["name"] for p in t.players], "winners": t.winners} for t in tables],
                   count=len(tables), listed=True)


@bp.get("/tables/<table_id>")
def get_table(table_id: str):
    response = jsonify(registry().get(table_id).snapshot())
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/tables/<table_id>/journal")
def journal(table_id: str):
    table = registry().get(table_id)
    return jsonify(journal=[entry.to_json() for entry in table.journal])


@bp.post("/tables/<table_id>/pin")
def check_pin(table_id: str):
    """Lets a phone check a PIN before it shows the referee's controls."""
    table = referee_table(table_id)
    return jsonify(ok=True, id=table.id)


def _changed(table: Table, entry, **more):
    """The change and the table as it is now (and ``more``); a retried request (same Idempotency-Key) gets
    the change it made the first time, marked ``Idempotent-Replayed: true``."""
    state = table.snapshot()
    response = jsonify(entry=entry.to_json(), state=state, revision=state["session"]["seq"], **more)
    if entry.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


def _optional_body() -> dict:
    """Undo and redo take an optional JSON object (phones send ``{}``; curl may send nothing)."""
    if not request.get_data(cache=True).strip():
        return {}
    return json_body()


@bp.post("/tables/<table_id>/events")
def post_event(table_id: str):
    table = referee_table(table_id)
    options = change_options()
    entry = table.submit(json_body(), source="referee", **options)
    return _changed(table, entry)


@bp.post("/tables/<table_id>/undo")
def undo(table_id: str):
    """Body ``{"undoes": N}`` (optional): N is ``session.undo_seq`` as the referee saw it, so two referees
    pressing Undo together undo one event, and the second is told (409)."""
    table = referee_table(table_id)
    options = change_options()
    undoes = _optional_body().get("undoes")
    if undoes is not None and (not isinstance(undoes, int) or isinstance(undoes, bool) or undoes < 1):
        raise ApiError(400, _('"undoes" is the change number of the event to undo (session.undo_seq)'))
    return _changed(table, table.undo(undoes=undoes, **options))


@bp.post("/tables/<table_id>/redo")
def redo(table_id: str):
    table = referee_table(table_id)
    options = change_options()
    _optional_body()  # a body, if any, must still be a small JSON object
    return _changed(table, table.redo(**options))


@bp.post("/tables/<table_id>/deck")
def choose_deck(table_id: str):
    """The referee names the deck the table's camera reads with: ``{"deck": "NAME"}``, ``{"deck": null}``
    (none: the general models) or ``{"server_default": true}``. Journaled as a ``deck`` change; an unknown
    deck is 422 and changes nothing."""
    table = referee_table(table_id)
    options = change_options()
    entry = registry().choose_deck(table, DeckChoice.parse(json_body()), **options)
    # what the camera reads with now (the deck may be named yet unreadable, e.g. damaged since)
    return _changed(table, entry, deck=current_app.extensions["camera"].decks.resolve(table.deck)[1].to_json())


@bp.get("/tables/<table_id>/qr.svg")
def qr_code(table_id: str):
    """The join link's QR code; with ``?referee=TOKEN`` (the table's token) the referee link's."""
    table = registry().get(table_id)
    link = join_url(table)
    token = request.args.get("referee")
    if token is not None:
        if not table.token_matches(token):
            raise ApiError(403, _("not this table's referee token"))
        link = referee_url(table, token)
    image = qrcode.make(link, image_factory=qrcode.image.svg.SvgPathImage, box_size=10, border=2)
    buffer = io.BytesIO()
    image.save(buffer)
    return Response(buffer.getvalue(), mimetype="image/svg+xml")


# -- live stream ------------------------------------------------------------------------------------
@bp.get("/tables/<table_id>/stream")
def stream(table_id: str):
    """Server-sent events (see :mod:`web_ui.live`): ``snapshot`` with the whole state, then a ``change``
    per change with its JSON Patch; id = the revision. Under ``companion serve`` the ASGI side serves
    this path without a thread (:class:`web_ui.live.LiveStreams`); this route serves test clients and
    plain WSGI servers, ending after SSE_MAX_SECONDS."""
    from web_ui import live

    table = registry().get(table_id)
    if registry().shared:
        live.sync_quietly(table)   # a phone that comes from another server may be ahead of this one
    try:
        after = live.resume_point(table, request.headers.get("Last-Event-ID"), request.args.get("after"))
    except live.BadResumePoint as error:
        raise ApiError(400, _("Last-Event-ID / after must be a change number (0 or more), got %(value)s", value=error.value)) from None
    config = current_app.config
    keepalive, lifetime, retry = config["SSE_KEEPALIVE_SECONDS"], config["SSE_MAX_SECONDS"], config["SSE_RETRY_MS"]

    def generate():
        yield f"retry: {int(retry)}\n\n".encode()
        messages, last = live.catch_up(table, after)
        yield from messages
        deadline = time.monotonic() + lifetime
        while time.monotonic() < deadline and not table.closed:
            if table.wait_for_change(last, timeout=min(keepalive, max(deadline - time.monotonic(), 0))):
                messages, last = live.catch_up(table, last)
                yield from messages
            elif not table.closed:
                yield b": keep-alive\n\n"

    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return Response(stream_with_context(generate()), mimetype="text/event-stream", headers=headers)
