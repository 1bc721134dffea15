"""The companion's languages: English and Simplified Chinese, from gettext catalogues (Babel).

One catalogue, ``companion/locale/<locale>/LC_MESSAGES/messages.po``, holds every user-facing string
of the web UI (Python, templates and the browser's JavaScript), the command line, the mats and the
engines' messages (:mod:`companion.messages`); English is the source language (the msgids), so it
needs no catalogue. ``scripts/setup.sh`` compiles each ``.po`` to ``.mo`` (``scripts/i18n.py
compile``); a catalogue found uncompiled or older than its ``.po`` (a worktree that has not run setup
since) is compiled in memory with the same checks, with a warning.

Where text is shown:

- web (Python and templates): Flask-Babel's ``gettext``/``_`` with the request's language
  (:mod:`web_ui.i18n`); a :class:`~companion.messages.Message` through ``web_ui.i18n.render``;
- browser: ``_("…")`` of ``web_ui/static/i18n.js``, from the same catalogue served as JSON;
- command line: ``from companion.i18n import _`` (the language of ``--language``, else the
  environment's ``LANGUAGE``/``LC_ALL``/``LANG``, else English);
- anything else: ``translator(language).render(message)``.

Language codes: the public tags ``en`` and ``zh-Hans`` (URLs, cookies, ``<html lang>``); Babel's
locale names ``en`` and ``zh_Hans``. :func:`normalize` reads both and a browser's or shell's codes
(``zh-CN``, ``zh_CN.UTF-8``, ``en-GB``…); anything else is ``None``, and callers fall back to the
default language with no error.
"""
from __future__ import annotations

import functools
import io
import logging
import os
import pathlib
import re
import threading
from typing import Any, Iterable

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

from companion.messages import Message, N_, render as render_message

__all__ = ["LANGUAGES", "DEFAULT_LANGUAGE", "LOCALE_DIR", "normalize", "tag", "Translator", "translator",
           "use", "current", "_", "ngettext", "CatalogueError", "compile_catalogue"]

log = logging.getLogger(__name__)

#: Babel locale names the companion speaks, the default first.
LANGUAGES: tuple[str, ...] = ("en", "zh_Hans")
DEFAULT_LANGUAGE = "en"
#: The public tag of each language (BCP 47), as ``<html lang>``, cookies and URLs write it.
TAGS = {"en": "en", "zh_Hans": "zh-Hans"}
#: Each language's name in itself: what the language switch shows.
NATIVE_NAMES = {"en": "English", "zh_Hans": "中文"}
LOCALE_DIR = pathlib.Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "messages"


class CatalogueError(Exception):
    """A catalogue that cannot be compiled (bad syntax, placeholders that do not match their msgid)."""


def normalize(code: object) -> str | None:
    """The language a code names (``"zh-CN"`` → ``"zh_Hans"``, ``"en_US.UTF-8"`` → ``"en"``), or None.

    Every Chinese code reads Simplified Chinese (the only Chinese the companion has; a reader of
    Traditional characters reads it far better than English).
    """
    if not isinstance(code, str):
        return None
    text = code.strip().split(".")[0].split("@")[0].replace("_", "-").lower()
    if not text or len(text) > 35:
        return None
    primary = text.split("-")[0]
    if primary == "zh":
        return "zh_Hans"
    if primary == "en":
        return "en"
    return None


def tag(language: str) -> str:
    """The public tag (``zh-Hans``) of a Babel locale name (``zh_Hans``)."""
    return TAGS.get(language, language)


_compile_lock = threading.Lock()


def catalogue_path(language: str, suffix: str = ".po") -> pathlib.Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}{suffix}"


# One line of a .po file: a comment, or a keyword and/or one quoted string (gettext's grammar). Babel's
# reader lets some broken lines through (an unclosed quote): these are refused before it reads them.
_PO_LINE = re.compile(r'^(?:#.*|\s*|(?:(?:msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+)?"(?:[^"\\]|\\.)*"\s*)$')


def compile_catalogue(po_path: pathlib.Path) -> bytes:
    """The ``.mo`` bytes of a ``.po`` file; :class:`CatalogueError` naming the file and line when the
    catalogue is broken, or when a translation's placeholders do not match its msgid."""
    try:
        lines = pathlib.Path(po_path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise CatalogueError(f"{po_path}: {error}") from None
    for number, line in enumerate(lines, 1):
        if not _PO_LINE.match(line):
            raise CatalogueError(f"{po_path}:{number}: not a line of a gettext catalogue: {line[:80]!r}")
    try:
        with open(po_path, "rb") as handle:
            catalog = read_po(handle, abort_invalid=True)
    except Exception as error:  # babel raises PoFileError, UnicodeDecodeError, ValueError…
        raise CatalogueError(f"{po_path}: {error}") from None
    problems = []
    for message, errors in catalog.check():
        for error in errors:
            line = message.lineno or "?"
            problems.append(f"{po_path}:{line}: {message.id!r}: {error}")
    if problems:
        raise CatalogueError("\n".join(problems))
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def _stale(po_path: pathlib.Path, mo_path: pathlib.Path) -> bool:
    return not mo_path.exists() or mo_path.stat().st_mtime < po_path.stat().st_mtime


@functools.cache
def translations(language: str) -> NullTranslations:
    """The compiled catalogue of ``language`` (English and unknown languages: no catalogue)."""
    if language == DEFAULT_LANGUAGE or language not in LANGUAGES:
        return NullTranslations()
    po_path, mo_path = catalogue_path(language), catalogue_path(language, ".mo")
    if not po_path.exists():
        log.warning("no catalogue for %s at %s: showing English", language, po_path)
        return NullTranslations()
    with _compile_lock:
        if _stale(po_path, mo_path):
            log.warning("%s is not compiled (scripts/setup.sh compiles it): compiling it now", po_path)
            data = compile_catalogue(po_path)
            return Translations(io.BytesIO(data), domain=DOMAIN)
    with open(mo_path, "rb") as handle:
        return Translations(handle, domain=DOMAIN)


# Cards as a player names them: the suit symbols stay on the card faces; in sentences ``10♥`` /
# ``红桃10``.
SUIT_PATTERNS = {"S": N_("%(rank)s♠"), "H": N_("%(rank)s♥"), "D": N_("%(rank)s♦"), "C": N_("%(rank)s♣")}
SPECIAL_CARDS = {"BJ": N_("big joker"), "SJ": N_("small joker"), "BACK": N_("face-down card")}


class Translator:
    """One language's gettext, card names, numbers and lists, and :class:`Message` rendering."""

    def __init__(self, language: str) -> None:
        self.language = language if language in LANGUAGES else DEFAULT_LANGUAGE
        self.tag = tag(self.language)
        self.translations = translations(self.language)
        self.list_separator = "、" if self.language.startswith("zh") else ", "

    def gettext(self, text: str, **params: Any) -> str:
        translated = self.translations.gettext(text)
        return translated % params if params else translated

    def ngettext(self, singular: str, plural: str, n: int, **params: Any) -> str:
        translated = self.translations.ngettext(singular, plural, n)
        return translated % {"n": n, **params} if ("%" in translated) else translated

    def card_name(self, code: str) -> str:
        text = str(code).strip().upper()
        if text in SPECIAL_CARDS:
            return self.gettext(SPECIAL_CARDS[text])
        suit, rank = text[-1:], text[:-1]
        if suit in SUIT_PATTERNS and rank:
            return self.gettext(SUIT_PATTERNS[suit], rank=rank)
        return str(code)

    def words(self, items: Iterable[Any]) -> str:
        return self.list_separator.join(str(item) for item in items)

    def number(self, value: float) -> str:
        from babel.numbers import format_decimal
        return format_decimal(value, locale=self.language)

    def render(self, message: Message | str | dict) -> str:
        """A message (or its JSON from a view) in this language."""
        if isinstance(message, dict):
            from companion.messages import from_json
            message = from_json(message)
        return render_message(message, self.translations.gettext, self.translations.ngettext, self.card_name,
                              self.list_separator)


@functools.cache
def translator(language: str | None) -> Translator:
    """The translator of a language code (any form :func:`normalize` reads); unknown: the default."""
    return Translator(normalize(language) or DEFAULT_LANGUAGE)


# -- the command line's language ------------------------------------------------------------------
_current = threading.local()


def environment_language(environ: dict[str, str] | None = None) -> str | None:
    """The language the shell asks for (``COMPANION_LANGUAGE``, then gettext's ``LANGUAGE``,
    ``LC_ALL``, ``LC_MESSAGES``, ``LANG``), or None."""
    environ = os.environ if environ is None else environ
    for name in ("COMPANION_LANGUAGE", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        for code in (environ.get(name) or "").split(":"):
            found = normalize(code)
            if found:
                return found
    return None


def use(language: str | None) -> Translator:
    """Sets the command line's language (unknown or None: the environment's, else English)."""
    chosen = translator(normalize(language) or environment_language() or DEFAULT_LANGUAGE)
    _current.translator = chosen
    return chosen


def current() -> Translator:
    found = getattr(_current, "translator", None)
    return found if found is not None else use(None)


def _(text: str, **params: Any) -> str:
    """The command line's gettext: ``text`` in the current language, ``%(name)s`` filled from ``params``."""
    return current().gettext(text, **params)


def ngettext(singular: str, plural: str, n: int, **params: Any) -> str:
    return current().ngettext(singular, plural, n, **params)
