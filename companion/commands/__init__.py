"""Command-line sub-commands: each module defines ``register(subparsers)`` and sets ``handler`` on its parsers.

User-facing text goes through ``from companion.i18n import _, ngettext`` (the language of ``companion
--language``, else the shell's), help strings included: the language is chosen before the parsers are
built. An error is ``CommandError(_("…"))``, or a :class:`~companion.messages.Message` from a lower layer.
"""
from __future__ import annotations

from companion.messages import Message


class CommandError(Exception):
    """A user-facing failure: printed as one clear line, exit status 2.

    Defined here, below :mod:`companion.cli`, so the command modules never import the module that
    loads them; ``companion.cli.CommandError`` is the same class.
    """

    def __init__(self, message: "Message | str" = "", *args: object) -> None:
        super().__init__(str(message), *args)
        self.message = message
