"""The ``companion`` command line.

Each module in :mod:`companion.commands` adds its own sub-commands through a
``register(subparsers)`` function, so a new command is a new file there and nothing else
(modules whose name starts with ``_`` are helpers the commands share, and are skipped).
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

import companion
import companion.commands
from companion import i18n
from companion.commands import CommandError, error_text
from companion.i18n import _
from companion.messages import N_

__all__ = ["CommandError", "build_parser", "main"]

LANGUAGE_CHOICES = ("en", "zh-Hans")

# argparse's own words (its help's headings, its errors), as the standard library writes them: argparse
# looks each up with gettext when it prints; these marks put them in the catalogue.
ARGPARSE_WORDS = (
    N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"), N_("argument %(argument_name)s: %(message)s"),
    N_("unrecognized arguments: %s"), N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"), N_("not allowed with argument %s"), N_("expected one argument"),
    N_("expected at most one argument"), N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"), N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"), N_("can't open '%(filename)s': %(error)s"),
    N_("ignored explicit argument %r"),
)


def _argparse_gettext(text: str) -> str:
    return i18n.current().translations.gettext(text)


def _argparse_ngettext(singular: str, plural: str, n: int) -> str:
    return i18n.current().translations.ngettext(singular, plural, n)


# argparse reads its module's ``_`` and ``ngettext`` each time it prints: in the command line's language.
argparse._ = _argparse_gettext  # type: ignore[attr-defined]
argparse.ngettext = _argparse_ngettext  # type: ignore[attr-defined]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion", description=_("Card Companion: a camera- and phone-based referee "
                                                                     "for card games played with a real poker deck."))
    parser.add_argument("--version", action="version", version=f"companion {companion.__version__}",
                        help=_("show the version and exit"))
    parser.add_argument("--language", metavar="LANG",
                        help=_("the language of messages and files: en or zh-Hans (default: the shell's LANG, else en)"))
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_info in sorted(pkgutil.iter_modules(companion.commands.__path__), key=lambda m: m.name):
        if module_info.name.startswith("_"):  # shared helpers, not commands
            continue
        module = importlib.import_module(f"companion.commands.{module_info.name}")
        module.register(subparsers)
    return parser


def split_language(argv: list[str] | None) -> tuple[str | None, list[str]]:
    """``--language`` (anywhere on the line: ``companion --language zh-Hans mat …`` or ``companion serve
    --language zh-Hans``) and the rest. It is read before the parsers are built, since their help is
    translated too; ``serve`` also takes it as the phones' default language."""
    rest = list(sys.argv[1:] if argv is None else argv)
    language = None
    for index, word in enumerate(rest):
        if word == "--":
            break
        if word.startswith("--language="):
            language = word.split("=", 1)[1]
            del rest[index]
            break
        if word == "--language" and index + 1 < len(rest):
            language = rest[index + 1]
            del rest[index:index + 2]
            break
    return language, rest


def main(argv: list[str] | None = None) -> int:
    language, argv = split_language(argv)
    i18n.use(language)   # an unknown code: the shell's language, else English
    parser = build_parser()
    args = parser.parse_args(argv)
    args.language = language
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error of ours.
        return 0
    except (CommandError, ValueError, OSError) as error:
        # ValueError covers the library's own errors (bad cards, illegal events, bad files).
        print(_("companion: error: %(error)s", error=error_text(error)), file=sys.stderr)
        return 2
