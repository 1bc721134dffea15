"""The catalogues' upkeep: extract every marked string, merge into the ``.po`` files, compile, check.

``scripts/i18n.py`` runs these (``extract``, ``update``, ``compile``, ``check``); ``scripts/setup.sh``
compiles; ``tests/test_translations.py`` checks that every extracted string has a Chinese
translation and that the catalogue holds nothing unused.

What is extracted (one mapping, here, for the tools and the test alike):

- Python under ``companion/``, ``web_ui/``, ``calibration/``: ``_``, ``gettext``, ``ngettext``,
  ``lazy_gettext`` (the web and the command line), ``N_``, ``Message``, ``Plural`` (the engines'
  and other pure layers' marked ids, :mod:`companion.messages`);
- Jinja templates under ``web_ui/templates/``: ``{{ _("…") }}``, ``{% trans %}``;
- JavaScript under ``web_ui/static/``: ``_("…")``, ``ngettext("…", "…", n)``, ``N_("…")``.
"""
from __future__ import annotations

import dataclasses
import datetime
import io
import os
import pathlib
import tempfile
from typing import Iterable

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from companion.i18n import DOMAIN, LANGUAGES, DEFAULT_LANGUAGE, LOCALE_DIR, CatalogueError, catalogue_path, compile_catalogue

ROOT = LOCALE_DIR.parent.parent
SOURCE_DIRS = ("companion", "web_ui", "calibration")
KEYWORDS = {
    "_": None, "gettext": None, "lazy_gettext": None, "ngettext": (1, 2), "N_": None,
    "Message": None, "Plural": (1, 2),
}
METHOD_MAP = [
    ("**/locale/**", "ignore"),
    ("**/__pycache__/**", "ignore"),
    ("**/static/vendor/**", "ignore"),   # onnxruntime-web, vendored by scripts/setup.sh: not our strings
    ("**.py", "python"),
    ("**/templates/**.html", "jinja2.ext:babel_extract"),
    ("**/static/**.js", "javascript"),
]
OPTIONS_MAP = {
    "**/templates/**.html": {"extensions": "jinja2.ext.do", "trimmed": "true"},
    "**/static/**.js": {"jsx": "false", "template_string": "false"},
}
TRANSLATED = tuple(language for language in LANGUAGES if language != DEFAULT_LANGUAGE)


@dataclasses.dataclass(frozen=True)
class Extracted:
    msgid: str
    plural: str | None
    locations: tuple[tuple[str, int], ...]


def extract(root: pathlib.Path = ROOT) -> dict[str, Extracted]:
    """Every marked string in the sources, by msgid, with where it is used."""
    found: dict[str, tuple[str | None, list[tuple[str, int]]]] = {}
    for directory in SOURCE_DIRS:
        for filename, lineno, message, _comments, _context in extract_from_dir(
                root / directory, METHOD_MAP, OPTIONS_MAP, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",),
                strip_comment_tags=True):
            if isinstance(message, (tuple, list)):
                msgid, plural = message[0], message[1] if len(message) > 1 else None
            else:
                msgid, plural = message, None
            if not msgid:
                continue
            entry = found.setdefault(msgid, (plural, []))
            if plural and not entry[0]:
                found[msgid] = (plural, entry[1])
            found[msgid][1].append((f"{directory}/{filename}", lineno))
    return {msgid: Extracted(msgid, plural, tuple(sorted(locations))) for msgid, (plural, locations) in sorted(found.items())}


def template(root: pathlib.Path = ROOT) -> Catalog:
    """The ``.pot``: every extracted string, no translations."""
    catalog = Catalog(project="card-companion", domain=DOMAIN, creation_date=datetime.datetime(2026, 12, 1),
                      charset="utf-8")
    for entry in extract(root).values():
        catalog.add((entry.msgid, entry.plural) if entry.plural else entry.msgid, locations=entry.locations)
    return catalog


def read_catalogue(language: str) -> Catalog:
    path = catalogue_path(language)
    with open(path, "rb") as handle:
        return read_po(handle, locale=language, abort_invalid=True)


def write_catalogue(catalog: Catalog, path: pathlib.Path) -> None:
    buffer = io.BytesIO()
    # No line numbers: a catalogue then changes only when strings do (and merges between branches stay easy).
    write_po(buffer, catalog, width=120, sort_output=True, include_previous=False, omit_header=False, include_lineno=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue())


def update(root: pathlib.Path = ROOT) -> list[str]:
    """Merges the extracted strings into each language's ``.po``: new ones untranslated, unused ones
    dropped (their translations are lost only when the msgid left the code). Returns what changed."""
    pot = template(root)
    report = []
    for language in TRANSLATED:
        path = catalogue_path(language)
        if path.exists():
            catalog = read_catalogue(language)
        else:
            catalog = Catalog(locale=language, domain=DOMAIN, project="card-companion", version="0.1.0",
                              copyright_holder="the Card Companion authors", msgid_bugs_address="the project's issues",
                              last_translator="the Card Companion authors", language_team="the Card Companion authors",
                              fuzzy=False)
        before = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}
        catalog.update(pot, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        after = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}
        write_catalogue(catalog, path)
        report.append(f"{path.relative_to(root)}: {len(after)} strings, {len(after - before)} new, {len(before - after)} dropped")
    return report


@dataclasses.dataclass
class Check:
    missing: dict[str, list[str]]      # language → msgids extracted but untranslated (or absent)
    unused: dict[str, list[str]]       # language → catalogue msgids no source uses
    broken: dict[str, str]             # language → compile error

    @property
    def ok(self) -> bool:
        return not any(self.missing.values()) and not any(self.unused.values()) and not self.broken

    def lines(self) -> Iterable[str]:
        for language, ids in self.missing.items():
            for msgid in ids:
                yield f"{language}: no translation: {msgid!r}"
        for language, ids in self.unused.items():
            for msgid in ids:
                yield f"{language}: unused catalogue entry: {msgid!r}"
        for language, error in self.broken.items():
            yield f"{language}: {error}"


def _translated(message) -> bool:
    if message.fuzzy:
        return False
    strings = message.string if isinstance(message.string, (tuple, list)) else (message.string,)
    return all(isinstance(s, str) and s.strip() for s in strings)


def check(root: pathlib.Path = ROOT) -> Check:
    extracted = extract(root)
    result = Check(missing={}, unused={}, broken={})
    for language in TRANSLATED:
        try:
            compile_catalogue(catalogue_path(language))
        except CatalogueError as error:
            result.broken[language] = str(error)
        catalog = read_catalogue(language)
        entries = {(m.id if isinstance(m.id, str) else m.id[0]): m for m in catalog if m.id}
        result.missing[language] = [msgid for msgid in extracted if msgid not in entries or not _translated(entries[msgid])]
        result.unused[language] = sorted(msgid for msgid in entries if msgid not in extracted)
    return result


def compile_all() -> list[str]:
    """Compiles every ``.po`` to its ``.mo`` (the install step); :class:`CatalogueError` on the first broken one."""
    written = []
    for language in TRANSLATED:
        po_path, mo_path = catalogue_path(language), catalogue_path(language, ".mo")
        data = compile_catalogue(po_path)
        _replace(mo_path, data)
        written.append(str(mo_path))
    return written


def _replace(path: pathlib.Path, data: bytes) -> None:
    """``path`` holds ``data``, swapped in whole: a server or test run loading the catalogue meanwhile (setup run
    again beside it; the setup script's tests compile while other test processes translate) reads the old file
    or the new one, never a half-written one."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, 0o644)   # mkstemp makes it 0600; the catalogue is read by whoever serves
        os.replace(temporary, path)
    except BaseException:
        pathlib.Path(temporary).unlink(missing_ok=True)
        raise
