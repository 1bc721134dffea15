"""The Chosen's events as typed operations: one small frozen dataclass per event type.

``parse(event)`` runs after the dispatch's own checks (the game is not over; a turn event is the
current player's and the vault is not waiting) and makes only the checks each handler always made
first and that need no state (a sent or played card is readable and of the right kind), with the
same messages. A field whose check depends on the state, or came after one that does, is kept as
sent (``object``) and checked by the handler where it always was, so refusals are unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from companion.cards import InvalidCardError
from companion.games.base import IllegalEvent
from companion.games.chosen.pieces import CHOSEN, normalise, role
from companion.messages import Message


@dataclass(frozen=True)
class Chip:
    """``chip``: one chip face down onto a player's area; ``card`` its face if the camera saw it."""

    onto: object   # as sent: a player name or seat, checked against the players
    card: object   # as sent: None or "BACK" when unseen, checked after the turn's rules

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> Chip:
        if "onto" not in event:
            raise IllegalEvent(Message("chip needs 'onto': the player whose area receives it"))
        return cls(event["onto"], event.get("card"))


@dataclass(frozen=True)
class Send:
    """``send``: a chosen goes to departure with stacked medicine, discarding chips by position."""

    card: str        # a chosen (J, Q or joker), read
    medicine: object  # as sent: a list of medicine cards, checked after the turn's rules
    discard: object   # as sent: a list of chip positions, checked after the turn's rules

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> Send:
        card = card_code(event.get("card"), "chosen card")
        if role(card) != CHOSEN:
            raise IllegalEvent(Message('%(card)s is %(role)s, not a chosen (J, Q or joker)', card=card,
                                       role=Message("medicine") if role(card) == "medicine" else Message("radiation")))
        return cls(card, event.get("medicine", []), event.get("discard", []))


@dataclass(frozen=True)
class Play:
    """``play``: medicine or radiation onto a chosen on the mat."""

    card: str        # medicine or radiation, read
    chosen: object   # as sent: a chosen's id, looked up on the mat

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> Play:
        card = card_code(event.get("card"))
        if role(card) == CHOSEN:
            raise IllegalEvent(Message('%(card)s is a chosen: only medicine or radiation can be played onto a chosen', card=card))
        return cls(card, event.get("chosen"))


@dataclass(frozen=True)
class EndTurn:
    """``end_turn``: the player's chosen move one zone; arrivals are judged; the next player draws."""

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> EndTurn:
        return cls()


@dataclass(frozen=True)
class Reveal:
    """``reveal``: the faces of the unseen chips a chosen at the vault carries."""

    faces: object   # as sent: checked once a chosen is known to wait at the vault

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> Reveal:
        return cls(event.get("faces"))


@dataclass(frozen=True)
class SetHandSize:
    """``set_hand_size``: the referee corrects a miscounted hand."""

    player: object   # as sent: checked against the players
    size: object     # as sent: checked after the player

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> SetHandSize:
        return cls(event.get("player"), event.get("size"))


Operation = Chip | Send | Play | EndTurn | Reveal | SetHandSize

PARSERS: dict[str, Callable[[Mapping[str, Any]], Operation]] = {
    "chip": Chip.parse, "send": Send.parse, "play": Play.parse, "end_turn": EndTurn.parse,
    "reveal": Reveal.parse, "set_hand_size": SetHandSize.parse}


def card_code(value: object, what: str = "card") -> str:
    """A card's code, or IllegalEvent naming what the card was for."""
    try:
        return normalise(value)
    except InvalidCardError as error:
        raise IllegalEvent(Message('bad %(what)s: %(error)s', what=what, error=error)) from None
