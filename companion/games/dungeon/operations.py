"""Guilds and Dungeon's events as typed operations: one small frozen dataclass per event type.

``parse(event)`` runs after the dispatch's own checks (a known type; the game is not over) and refuses
nothing: every Dungeon handler first checks the phase, then the player against the seats, then the
cards against what the referee knows, so each field is kept as sent (``object``) and checked by the
handler where it always was, and refusals keep their order and wording. A seat field the event left
out is :data:`MISSING` (not ``None``), because "the event needs 'player'" and "player must be a seat
number ..., got None" are different refusals.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Final, Mapping


class _Missing:
    """The type of :data:`MISSING`: a field the event did not send at all."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()


def _sent(event: Mapping[str, Any], key: str) -> object:
    """The field as sent, or MISSING when the event has no such key."""
    return event[key] if key in event else MISSING


@dataclass(frozen=True)
class ChooseGuild:
    """``choose_guild``: a player joins the guild of a suit they hold most of."""

    player: object
    guild: object

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> ChooseGuild:
        return cls(_sent(event, "player"), event.get("guild"))


@dataclass(frozen=True)
class RedealSuit:
    """``redeal_suit``: a player puts all cards of a tied suit under the dungeon and draws as many."""

    player: object
    suit: object
    cards: object   # None, or the cards put under (checked as a list of codes)
    count: object   # how many when the cards are not named
    drawn: object   # None, or the cards drawn

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> RedealSuit:
        return cls(_sent(event, "player"), event.get("suit"), event.get("cards"), event.get("count"),
                   event.get("drawn"))


@dataclass(frozen=True)
class RedealFour:
    """``redeal_four``: every player puts 4 cards under the dungeon and draws 4."""

    player: object
    cards: object
    drawn: object

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> RedealFour:
        return cls(_sent(event, "player"), event.get("cards"), event.get("drawn"))


@dataclass(frozen=True)
class Trade:
    """``trade``: two players exchange cards, named or counted."""

    a: object
    b: object
    a_gives: object   # a list of cards or a number; [] when not sent
    b_gives: object

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> Trade:
        return cls(_sent(event, "a"), _sent(event, "b"), event.get("a_gives", []), event.get("b_gives", []))


@dataclass(frozen=True)
class CorrectHandSize:
    """``correct_hand_size``: the referee corrects a miscounted hand (the difference from ``other``)."""

    player: object
    count: object
    other: object   # None, or the player the difference came from or went to

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> CorrectHandSize:
        return cls(_sent(event, "player"), event.get("count"), event.get("other"))


@dataclass(frozen=True)
class Reveal:
    """``reveal``: the dungeon's top card is turned up (or a caller's friend)."""

    player: object   # None, or who reveals (must be the one whose turn it is)
    card: object     # None when the top card is known

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> Reveal:
        return cls(event.get("player"), event.get("card"))


@dataclass(frozen=True)
class Assign:
    """``assign``: the players agree who takes a prize."""

    player: object

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> Assign:
        return cls(_sent(event, "player"))


@dataclass(frozen=True)
class Commit:
    """``commit``: a mercenary to the battlefield, face up (``card``) or face down (no card)."""

    player: object
    card: object

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> Commit:
        return cls(_sent(event, "player"), event.get("card"))


@dataclass(frozen=True)
class TurnUp:
    """``turn_up``: a face-down committed card is turned up."""

    player: object
    card: object

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> TurnUp:
        return cls(_sent(event, "player"), event.get("card"))


@dataclass(frozen=True)
class Pass:
    """``pass``: a player commits nothing more."""

    player: object

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> Pass:
        return cls(_sent(event, "player"))


@dataclass(frozen=True)
class PlayScroll:
    """``play_scroll``: a scroll destroys a committed mercenary (or an enemy, by option)."""

    player: object
    card: object
    target: object        # "enemy", "friend" or a player
    target_card: object   # None, or which card of the target

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> PlayScroll:
        return cls(_sent(event, "player"), event.get("card"), _sent(event, "target"), event.get("target_card"))


@dataclass(frozen=True)
class PlayTrap:
    """``play_trap``: a trap from hand onto the battlefield."""

    player: object
    card: object

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> PlayTrap:
        return cls(_sent(event, "player"), event.get("card"))


@dataclass(frozen=True)
class TrapCard:
    """``trap_card``: the trapped player's card under a trap played from hand."""

    player: object
    card: object

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> TrapCard:
        return cls(_sent(event, "player"), event.get("card"))


@dataclass(frozen=True)
class TrapReveal:
    """``trap_reveal``: the card under a trap played from hand is shown."""

    card: object

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> TrapReveal:
        return cls(event.get("card"))


@dataclass(frozen=True)
class TrapCall:
    """``trap_call``: the trapped player calls odd or even."""

    call: object
    player: object

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> TrapCall:
        return cls(event.get("call"), _sent(event, "player"))


@dataclass(frozen=True)
class TrapDraw:
    """``trap_draw``: the card a revealed trap makes a player draw."""

    player: object
    card: object

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> TrapDraw:
        return cls(_sent(event, "player"), event.get("card"))


@dataclass(frozen=True)
class MageSwitch:
    """``mage_switch``: a Mage moves their committed mercenary to the enemy's side."""

    player: object

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> MageSwitch:
        return cls(_sent(event, "player"))


@dataclass(frozen=True)
class ThiefSwap:
    """``thief_swap``: a Thief swaps a card with the prize."""

    player: object
    card: object

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> ThiefSwap:
        return cls(_sent(event, "player"), event.get("card"))


@dataclass(frozen=True)
class Resolve:
    """``resolve``: the encounter's verdict."""

    @classmethod
    def parse(cls, event: Mapping[str, Any]) -> Resolve:
        return cls()


Operation = (ChooseGuild | RedealSuit | RedealFour | Trade | CorrectHandSize | Reveal | Assign | Commit | TurnUp
             | Pass | PlayScroll | PlayTrap | TrapCard | TrapReveal | TrapCall | TrapDraw | MageSwitch | ThiefSwap
             | Resolve)

PARSERS: dict[str, Callable[[Mapping[str, Any]], Operation]] = {
    "choose_guild": ChooseGuild.parse, "redeal_suit": RedealSuit.parse, "redeal_four": RedealFour.parse,
    "trade": Trade.parse, "correct_hand_size": CorrectHandSize.parse,
    "reveal": Reveal.parse, "assign": Assign.parse, "commit": Commit.parse, "turn_up": TurnUp.parse,
    "pass": Pass.parse, "play_scroll": PlayScroll.parse, "play_trap": PlayTrap.parse,
    "trap_card": TrapCard.parse, "trap_reveal": TrapReveal.parse, "trap_call": TrapCall.parse,
    "trap_draw": TrapDraw.parse, "mage_switch": MageSwitch.parse, "thief_swap": ThiefSwap.parse,
    "resolve": Resolve.parse}
