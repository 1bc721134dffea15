#!/usr/bin/env python3
"""The translation catalogues (companion/locale/): extract, update, compile, check.

    python scripts/i18n.py update     # after marking new strings: adds them (untranslated) to each .po
    python scripts/i18n.py missing    # what still needs a translation (the test fails on each)
    python scripts/i18n.py compile    # .po -> .mo (scripts/setup.sh runs this; a broken catalogue stops it)
    python scripts/i18n.py check      # what tests/test_translations.py checks: all translated, none unused
    python scripts/i18n.py extract    # writes companion/locale/messages.pot (for translators' tools)

How strings are marked: companion/i18n/__init__.py and docs/i18n.md.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from companion.i18n import LOCALE_DIR, CatalogueError  # noqa: E402
from companion.i18n import catalogues  # noqa: E402


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    if command == "extract":
        path = LOCALE_DIR / "messages.pot"
        catalogues.write_catalogue(catalogues.template(), path)
        print(f"wrote {path}")
    elif command == "update":
        for line in catalogues.update():
            print(line)
    elif command == "compile":
        try:
            written = catalogues.compile_all()
        except CatalogueError as error:
            print(f"a translation catalogue does not compile:\n{error}\n"
                  "fix the .po file named above (its syntax, or a translation whose %(name)s placeholders differ "
                  "from its msgid's)", file=sys.stderr)
            return 1
        for path in written:
            print(f"compiled {path}")
    elif command in ("check", "missing"):
        result = catalogues.check()
        lines = list(result.lines())
        if command == "missing":
            lines = [line for line in lines if "no translation" in line]
        for line in lines:
            print(line)
        return 0 if result.ok or (command == "missing" and not lines) else 1
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
