"""The phone pages' language: Flask-Babel over the project's catalogues (:mod:`companion.i18n`).

Which language a request reads, first match wins:

1. ``?lang=`` on the address (the language switch's link; remembered in the ``lang`` cookie);
2. the ``lang`` cookie (this phone's choice, a year);
3. the browser's ``Accept-Language`` (a phone's first visit);
4. the server's default: ``LANGUAGE`` in the config (``companion serve --language``).

An unknown code at any step is passed over with no error. Every page's top bar holds the switch (one
tap, ``GET /language?to=zh-Hans&next=…``). The browser's ``_()`` (``static/i18n.js``) reads the same
catalogue, served as ``/i18n/<tag>.js`` (a script setting ``window.I18N``; CSP allows only our own
scripts) and ``/i18n/<tag>.json``. Live streams carry data and message ids only
(:mod:`companion.messages`), so each phone renders a table in its own language.

Python code marks strings with ``from flask_babel import gettext as _`` (or ``lazy_gettext`` at
import time), templates with ``{{ _("…") }}``; a :class:`~companion.messages.Message` from a lower
layer is shown with :func:`render`.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Response, current_app, g, redirect, request
from flask_babel import Babel, Domain, get_locale

from companion.games import GAME_TITLES
from companion.i18n import DEFAULT_LANGUAGE, LANGUAGES, NATIVE_NAMES, normalize, tag, translations, translator
from companion.messages import Message

bp = Blueprint("i18n", __name__)

COOKIE = "lang"
COOKIE_SECONDS = 365 * 24 * 3600


class CatalogueDomain(Domain):
    """Flask-Babel's domain, reading the project's catalogues through :func:`companion.i18n.translations`
    (which compiles a stale ``.po`` in memory instead of showing English)."""

    def get_translations(self):
        locale = get_locale()
        return translations(str(locale) if locale is not None else DEFAULT_LANGUAGE)


def server_language() -> str:
    return normalize(current_app.config.get("LANGUAGE")) or DEFAULT_LANGUAGE


def choose_language() -> str:
    """The request's language (see the module's docstring)."""
    asked = normalize(request.args.get("lang"))
    if asked:
        g.remember_language = asked
        return asked
    remembered = normalize(request.cookies.get(COOKIE))
    if remembered:
        return remembered
    for code, _quality in request.accept_languages:
        found = normalize(code)
        if found:
            return found
    return server_language()


def language() -> str:
    locale = get_locale()
    return str(locale) if locale is not None else server_language()


def current():
    """The request's :class:`companion.i18n.Translator`."""
    return translator(language())


def render(message: Message | str | dict | None) -> str:
    """A message from a lower layer (or its JSON) in the request's language."""
    if message is None:
        return ""
    return current().render(message)


def error_text(error: BaseException) -> str:
    """An exception's text for the reader: its :class:`Message` when it carries one (what a player is told:
    ``for_player``), else ``str``."""
    message = getattr(error, "for_player", None) or getattr(error, "message", None)
    if isinstance(message, Message):
        return render(message)
    return str(error)


def headers_language(headers: list[tuple[bytes, bytes]], default: str | None) -> str:
    """The language of a request seen before Flask (an ASGI scope's headers): its ``lang`` cookie, else
    its ``Accept-Language`` (by quality), else ``default``; as :func:`choose_language` reads them."""
    from http.cookies import CookieError, SimpleCookie

    found = {name.lower(): value.decode("latin-1") for name, value in headers}
    try:
        cookie = SimpleCookie(found.get(b"cookie", ""))
    except CookieError:
        cookie = SimpleCookie()
    if COOKIE in cookie and normalize(cookie[COOKIE].value):
        return normalize(cookie[COOKIE].value)
    asked = []
    for part in found.get(b"accept-language", "").split(",")[:20]:
        code, _sep, params = part.strip().partition(";")
        try:
            quality = float(params.strip()[2:]) if params.strip().startswith("q=") else 1.0
        except ValueError:
            quality = 0.0
        if normalize(code) and quality > 0:
            asked.append((-quality, len(asked), normalize(code)))
    return min(asked)[2] if asked else (normalize(default) or DEFAULT_LANGUAGE)


def too_large(limit_bytes: int) -> Message:
    """What a phone is told of a request over the server's body limit, in MB (a player reads no byte counts)."""
    return Message("that is too much to send at once: the server takes at most %(mb)s MB a request",
                   mb=format(limit_bytes / (1024 * 1024), "g"))


def too_slow(seconds: float) -> Message:
    """What a phone is told when what it sent stopped arriving (a weak link dropped it half way): to send it again."""
    return Message("what was sent did not arrive within %(seconds)s s (a weak connection?): send it again",
                   seconds=format(seconds, "g"))


def _safe_next(target: str | None) -> str:
    """Only a path on this server (no other host, no scheme): the switch never redirects elsewhere."""
    if not target:
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


@bp.get("/language")
def switch():
    """One tap: remember ``to`` on this phone and go back to the page (``next``)."""
    chosen = normalize(request.args.get("to")) or server_language()
    response = redirect(_safe_next(request.args.get("next")))
    response.set_cookie(COOKIE, tag(chosen), max_age=COOKIE_SECONDS, samesite="Lax", httponly=False,
                        secure=request.is_secure)
    return response


def catalogue_json(language_name: str) -> dict[str, Any]:
    """The compiled catalogue as the browser reads it: msgid → translation (plurals: a list of forms)."""
    catalog = getattr(translations(language_name), "_catalog", {})
    messages: dict[str, Any] = {}
    for key, value in catalog.items():
        if not key:
            continue  # the header
        if isinstance(key, tuple):
            messages.setdefault(key[0], []).append(value)
        else:
            messages[key] = value
    return {"language": tag(language_name), "messages": messages}


_CATALOGUE_CACHE: dict[str, tuple[str, str]] = {}


def _catalogue_payload(language_name: str) -> tuple[str, str]:
    """The JSON text and its ETag, computed once per language per process."""
    found = _CATALOGUE_CACHE.get(language_name)
    if found is None:
        text = json.dumps(catalogue_json(language_name), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        found = (text, hashlib.sha256(text.encode()).hexdigest()[:16])
        _CATALOGUE_CACHE[language_name] = found
    return found


def catalogue_version(language_name: str) -> str:
    return _catalogue_payload(language_name)[1]


def _catalogue_response(code: str, as_script: bool) -> Response:
    language_name = normalize(code) or server_language()
    text, etag = _catalogue_payload(language_name)
    if as_script:
        body, mimetype = f"window.I18N = {text};\n", "text/javascript"
    else:
        body, mimetype = text, "application/json"
    response = Response(body, mimetype=mimetype)
    response.set_etag(etag)
    # The page names the catalogue with its version (?v=): a new catalogue is a new address.
    response.headers["Cache-Control"] = "public, max-age=86400" if request.args.get("v") == etag else "no-cache"
    return response.make_conditional(request)


@bp.get("/i18n/<code>.js")
def catalogue_script(code: str):
    return _catalogue_response(code, as_script=True)


@bp.get("/i18n/<code>.json")
def catalogue(code: str):
    return _catalogue_response(code, as_script=False)


def page_context() -> dict[str, Any]:
    """What every template may use: the language, the switch's other languages, message rendering."""
    current_language = language()
    here = request.full_path if request.query_string else request.path
    return {
        "language": current_language,
        "language_tag": tag(current_language),
        "other_languages": [{"tag": tag(name), "name": NATIVE_NAMES[name], "next": here}
                            for name in LANGUAGES if name != current_language],
        "catalogue_version": catalogue_version(current_language),
        "render": render,
        "card_name": lambda code: current().card_name(code),
        "game_title": lambda game: render(GAME_TITLES.get(game, game)),
    }


def init_app(app) -> None:
    babel = Babel()
    babel.init_app(app, default_locale=server_language_of(app), locale_selector=choose_language)
    babel.domain_instance = CatalogueDomain()
    # {% trans %} blocks are looked up with their whitespace collapsed, as scripts/i18n.py extracts them
    # (trimmed): a block written over two lines is otherwise shown in English.
    app.jinja_env.policies["ext.i18n.trimmed"] = True
    app.register_blueprint(bp)
    app.context_processor(page_context)

    @app.after_request
    def remember_language(response):
        chosen = g.get("remember_language")
        if chosen:
            response.set_cookie(COOKIE, tag(chosen), max_age=COOKIE_SECONDS, samesite="Lax", secure=request.is_secure)
        # The same address answers in another language for another phone or cookie.
        if request.endpoint != "static":
            response.vary.add("Accept-Language")
            response.vary.add("Cookie")
        return response


def server_language_of(app) -> str:
    return normalize(app.config.get("LANGUAGE")) or DEFAULT_LANGUAGE
