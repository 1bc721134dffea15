"""Command-line sub-commands: each module defines ``register(subparsers)`` and sets ``handler`` on its parsers.

User-facing text goes through ``from companion.i18n import _, ngettext`` (the language of ``companion
--language``, else the shell's), help strings included: the language is chosen before the parsers are
built. An error is ``CommandError(_("…"))``, or a :class:`~companion.messages.Message` from a lower layer.
"""
from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

from companion.messages import N_, Message, MessageError


class CommandError(MessageError):
    """A user-facing failure: printed as one clear line, exit status 2.

    Defined here, below :mod:`companion.cli`, so the command modules never import the module that
    loads them; ``companion.cli.CommandError`` is the same class.
    """


def error_text(error: BaseException) -> str:
    """An error in the command line's language: its :class:`Message` when it carries one, else its text."""
    from companion import i18n

    message = getattr(error, "message", None)
    return i18n.current().render(message) if isinstance(message, Message) else str(error)


# Python's json names a mistake in English ("Expecting ',' delimiter"): the common ones in a reader's words;
# any other is told only by where it is.
JSON_MISTAKES = {"Expecting value": N_("a value was expected"),
                 "Expecting ',' delimiter": N_("a comma was expected"),
                 "Expecting ':' delimiter": N_("a colon was expected"),
                 "Expecting property name enclosed in double quotes": N_("a key in double quotes was expected"),
                 "Unterminated string starting at": N_("a string is not closed"),
                 "Invalid control character at": N_("a line break or control character inside a string"),
                 "Invalid \\escape": N_("a backslash that escapes nothing"),
                 "Extra data": N_("more text after the JSON ends")}


def read_json_file(path: str) -> Any:
    """The data of the JSON file ``path`` (``-``: standard input); else a CommandError naming the file and saying,
    in the command line's language, what is wrong with it (not the operating system's or Python's English)."""
    from companion.i18n import _

    try:
        text = sys.stdin.read() if path == "-" else pathlib.Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CommandError(_("%(path)s: no such file", path=path)) from None
    except IsADirectoryError:
        raise CommandError(_("%(path)s: a folder, not a file", path=path)) from None
    except PermissionError:
        raise CommandError(_("%(path)s: not allowed to read it", path=path)) from None
    except UnicodeDecodeError:
        raise CommandError(_("%(path)s: not a UTF-8 text file", path=path)) from None
    except OSError as error:     # rarer ones (a disk error): the system's own words are all there is
        raise CommandError(_("%(path)s: cannot be read (%(error)s)", path=path, error=error.strerror or error)) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        mistake = JSON_MISTAKES.get(error.msg)
        if mistake is None:
            raise CommandError(_("%(path)s: not JSON (at line %(line)s, character %(column)s)", path=path, line=error.lineno,
                                 column=error.colno)) from None
        raise CommandError(_("%(path)s: not JSON (%(mistake)s at line %(line)s, character %(column)s)", path=path,
                             mistake=_(mistake), line=error.lineno, column=error.colno)) from None
