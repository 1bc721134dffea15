"""Kingdoms' events as typed operations: one small frozen dataclass per event type.

``parse(event)`` checks and reads, once, everything about an event that does not depend on the state,
in the order the engine always checked it (unknown fields, then the cell, then the card), and raises
:class:`IllegalEvent` with the same messages; the engine's handlers take the typed value. What depends
on the state (whose turn, whether a player exists, whether a cell is free) stays with the handlers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Final, Mapping

from companion.cards import Card
from companion.games.base import IllegalEvent
from companion.games.kingdoms.grid import Cell
from companion.messages import Message

CANVAS = 11


class _NotGiven:
    """The marker of an optional field the event did not carry (``None`` is a value an event can carry)."""

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN: Final = _NotGiven()


@dataclass(frozen=True)
class Place:
    """``place``: a card lands on a canvas cell; ``player`` names the placer (else whose turn it is)."""

    cell: Cell
    card: Card
    player: object = NOT_GIVEN   # as sent: the handler checks it against the players

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> Place:
        _only(event, "place", {"cell", "card", "player"})
        return cls(_cell(event), _card(event), event["player"] if "player" in event else NOT_GIVEN)


@dataclass(frozen=True)
class Remove:
    """``remove``: the card on a cell is taken away."""

    cell: Cell

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> Remove:
        _only(event, "remove", {"cell"})
        return cls(_cell(event))


@dataclass(frozen=True)
class Replace:
    """``replace``: the card on a cell is another one (a correction, or a face-down card named)."""

    cell: Cell
    card: Card

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> Replace:
        _only(event, "replace", {"cell", "card"})
        return cls(_cell(event), _card(event))


@dataclass(frozen=True)
class TurnDown:
    """``turn_down``: the card on a cell is turned face down (a resource in a dragon's lines)."""

    cell: Cell

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> TurnDown:
        _only(event, "turn_down", {"cell"})
        return cls(_cell(event))


@dataclass(frozen=True)
class ScoreRound:
    """``score_round``: the referee scores a full grid (``auto_score`` off)."""

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> ScoreRound:
        _only(event, "score_round", set())
        return cls()


@dataclass(frozen=True)
class SetTurn:
    """``set_turn``: the referee says whose turn it is."""

    player: object   # as sent (None when absent): the handler checks it against the players

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> SetTurn:
        _only(event, "set_turn", {"player"})
        return cls(event.get("player"))


Operation = Place | Remove | Replace | TurnDown | ScoreRound | SetTurn

PARSERS: dict[str, Callable[[Mapping[str, Any]], Operation]] = {
    "place": Place.parse, "remove": Remove.parse, "replace": Replace.parse, "turn_down": TurnDown.parse,
    "score_round": ScoreRound.parse, "set_turn": SetTurn.parse}


def _only(event: Mapping[str, Any], kind: str, allowed: set[str]) -> None:
    extra = set(event) - allowed - {"type"}
    if extra:
        raise IllegalEvent(Message("%(kind)s: unknown field(s) %(extra)s; expected %(value)s",
                                   kind=kind, extra=str(sorted(extra)), value=sorted(allowed) or 'none'))


def _cell(event: Mapping[str, Any]) -> Cell:
    cell = event.get("cell")
    if (not isinstance(cell, (list, tuple)) or len(cell) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in cell)):
        raise IllegalEvent(Message('%(get)s: cell must be [row, col] with whole numbers, got %(cell)s', get=event.get('type'), cell=repr(cell)))
    row, col = cell
    if not (1 <= row <= CANVAS and 1 <= col <= CANVAS):
        raise IllegalEvent(Message("cell %(cell)s is off the %(canvas)s×%(canvas)s canvas (rows and columns 1-%(canvas)s)",
                                   cell=str(list(cell)), canvas=CANVAS))
    return row, col


def _card(event: Mapping[str, Any]) -> Card:
    if "card" not in event:
        raise IllegalEvent(Message('%(get)s: a card code is needed, e.g. "card": "5H"', get=event.get('type')))
    try:
        return Card.parse(event["card"])
    except ValueError as error:
        raise IllegalEvent(str(error)) from None
