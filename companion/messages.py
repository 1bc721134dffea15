"""Text for people, as data: message ids with parameters, translated where they are shown.

The card model and the engines are pure and know no language. A sentence they produce for a person
(an illegal event's reason, a log line, a verdict, an option's help) is a :class:`Message`: an
English message id with ``%(name)s`` placeholders and its parameters. The id is the gettext msgid
(the catalogue's key, extracted by ``pybabel``/``companion.i18n``); the web UI, the command line and
the mats translate it with the reader's language (:mod:`companion.i18n`), and a browser renders the
same JSON (``{"msg": id, "args": {...}}``) with its own catalogue, so a table's players may each read
their own language while the live stream carries only data.

Marking, for the extractor (keywords ``N_``, ``Message``, ``Plural``)::

    N_("the dungeon")                                  # a plain id: the marker returns it unchanged
    Message("cell %(cell)s already holds %(card)s", cell="(2,3)", card=CardName("5H"))
    Plural("%(n)d card left", "%(n)d cards left", n=3)

``str(message)`` is the English sentence, so ``str(error)`` of an engine's error reads as before.
A parameter is text or a number (shown as is), a :class:`CardName` (a card as a player says it:
``10♥`` / ``红桃10``), another message (translated too) or a list of those (joined by the language's
list separator).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

__all__ = ["N_", "MessageError", "Message", "Plural", "CardName", "Words", "render", "from_json", "to_json", "english", "jsonable"]


def N_(msgid: str) -> str:
    """Marks ``msgid`` for translation and returns it unchanged (translated where it is shown)."""
    return msgid


@dataclass(frozen=True)
class CardName:
    """A card (its code) in a sentence: rendered as the reader's language names it."""

    code: str

    def to_json(self) -> dict[str, str]:
        return {"card": self.code}


@dataclass(frozen=True)
class Words:
    """A list of parameters in a sentence, joined as the language joins a list ("a, b" / "a、b"), or with
    ``clauses=True`` as it joins clauses ("a; b" / "a；b")."""

    items: tuple[Any, ...]
    clauses: bool = False

    def __init__(self, items: Iterable[Any], clauses: bool = False) -> None:
        object.__setattr__(self, "items", tuple(items))
        object.__setattr__(self, "clauses", clauses)

    def to_json(self) -> Any:
        items = [_arg_json(item) for item in self.items]
        return {"clauses": items} if self.clauses else items


class Message:
    """An English message id with named parameters; immutable and comparable."""

    __slots__ = ("id", "args", "plural", "n")
    id: str
    args: tuple[tuple[str, Any], ...]
    plural: str | None
    n: int | None

    def __init__(self, msgid: str, /, **args: Any) -> None:
        object.__setattr__(self, "id", msgid)
        object.__setattr__(self, "args", tuple(sorted((k, _freeze(v)) for k, v in args.items())))
        object.__setattr__(self, "plural", None)
        object.__setattr__(self, "n", None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Message is immutable")

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.args)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Message):
            return NotImplemented
        return (self.id, self.args, self.plural, self.n) == (other.id, other.args, other.plural, other.n)

    def __hash__(self) -> int:
        return hash((self.id, self.args, self.plural, self.n))

    def __str__(self) -> str:
        return english(self)

    def __repr__(self) -> str:
        return f"Message({self.id!r}, {self.params!r})"

    def to_json(self) -> dict[str, Any]:
        return to_json(self)

    def __reduce__(self) -> tuple[Any, ...]:
        # copy, deepcopy and pickle rebuild it whole (its attributes cannot be set one by one)
        return (_rebuild, (self.id, self.args, self.plural, self.n))


def _rebuild(msgid: str, args: tuple[tuple[str, Any], ...], plural: str | None, n: int | None) -> Message:
    message = Message(msgid)
    object.__setattr__(message, "args", args)
    object.__setattr__(message, "plural", plural)
    object.__setattr__(message, "n", n)
    return message


def Plural(singular: str, plural: str, /, n: int, **args: Any) -> Message:  # noqa: N802 (reads like the constructor it is)
    """A message whose English (and other languages') wording depends on the count ``n``."""
    message = Message(singular, n=n, **args)
    object.__setattr__(message, "plural", plural)
    object.__setattr__(message, "n", int(n))
    return message


def _freeze(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return Words(value)
    return value


def _arg_json(value: Any) -> Any:
    if isinstance(value, BaseException):
        value = _error_message(value)
    if isinstance(value, (Message, CardName, Words)):
        return value.to_json()
    return value


def _error_message(error: BaseException) -> "Message | str":
    """An exception as a parameter: its own message when it carries one (an engine's error), else its text."""
    message = getattr(error, "message", None)
    return message if isinstance(message, Message) else str(error)


def to_json(message: Message | str) -> dict[str, Any]:
    """``{"msg": id, "args": {...}}`` (plus ``"plural"`` and ``"n"``): what views and streams carry."""
    if isinstance(message, str):
        return {"msg": message, "args": {}}
    out: dict[str, Any] = {"msg": message.id, "args": {k: _arg_json(v) for k, v in message.args}}
    if message.plural is not None:
        out.update(plural=message.plural, n=message.n)
    return out


def _arg_from_json(value: Any) -> Any:
    if isinstance(value, list):
        return Words(_arg_from_json(item) for item in value)
    if isinstance(value, dict):
        if "msg" in value:
            return from_json(value)
        if set(value) == {"card"}:
            return CardName(str(value["card"]))
        if set(value) == {"clauses"}:
            return Words((_arg_from_json(item) for item in value["clauses"]), clauses=True)
    return value


def from_json(data: Mapping[str, Any] | str) -> Message:
    """The message a view carried (the inverse of :func:`to_json`)."""
    if isinstance(data, str):
        return Message(data)
    args = {k: _arg_from_json(v) for k, v in (data.get("args") or {}).items()}
    if data.get("plural") is not None:
        args.pop("n", None)
        return Plural(str(data["msg"]), str(data["plural"]), n=int(data.get("n") or 0), **args)
    return Message(str(data["msg"]), **args)


def render(message: Message | str, gettext: Callable[[str], str], ngettext: Callable[[str, str, int], str],
           card_name: Callable[[str], str], list_separator: str = ", ", clause_separator: str = "; ") -> str:
    """The message in a language: its id translated, then each parameter rendered the same way.

    A translation whose placeholders do not fit its parameters (a catalogue mistake) falls back to the
    English id rather than failing where it is shown.
    """
    if isinstance(message, str):
        return gettext(message) if message else ""
    if not message.id:
        return ""

    def arg(value: Any) -> Any:
        if isinstance(value, BaseException):
            value = _error_message(value)
        if isinstance(value, Message):
            return render(value, gettext, ngettext, card_name, list_separator, clause_separator)
        if isinstance(value, CardName):
            return card_name(value.code)
        if isinstance(value, Words):
            separator = clause_separator if value.clauses else list_separator
            return separator.join(str(arg(item)) for item in value.items)
        return value

    params = {k: arg(v) for k, v in message.args}
    if message.plural is not None and message.n is not None:
        pattern = ngettext(message.id, message.plural, message.n)
        fallback = message.id if message.n == 1 else message.plural
    else:
        pattern = gettext(message.id)
        fallback = message.id
    for text in (pattern, fallback):
        try:
            return text % params if params or "%" in text else text
        except (KeyError, ValueError, TypeError):
            continue
    return message.id


def _english_card(code: str) -> str:
    # The card model's own text (``10♥``, ``big joker``) without importing it: messages sit below the card model.
    specials = {"BJ": "big joker", "SJ": "small joker", "BACK": "face-down card"}
    if code in specials:
        return specials[code]
    symbols = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
    return code[:-1] + symbols[code[-1]] if code[-1:] in symbols and len(code) > 1 else code


def english(message: Message | str) -> str:
    """The message in English: the id itself with its parameters (no catalogue needed)."""
    return render(message, lambda s: s, lambda s, p, n: s if n == 1 else p, _english_card)


def jsonable(value: Any) -> Any:
    """``value`` with every message inside it (in dicts, lists, tuples) as its JSON: what a view returns."""
    if isinstance(value, (Message, CardName, Words)):
        return value.to_json()
    if isinstance(value, Mapping):
        return {key: jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    return value


class MessageError(Exception):
    """An error whose text is a :class:`Message`: ``str(error)`` is the English sentence; ``error.message`` is
    translated where it is shown (the web API answers in the phone's language, the CLI in its own).
    Plain text is accepted too (shown untranslated).

    ``for_player``, when given, is what a phone is told instead: the same failure without what only the
    server's operator can use (the server's folders, the operating system's own words)."""

    def __init__(self, message: Message | str = "", *args: object, for_player: Message | None = None) -> None:
        super().__init__(str(message), *args)
        self.message: Message = message if isinstance(message, Message) else Message(str(message))
        self.for_player: Message = for_player if for_player is not None else self.message
