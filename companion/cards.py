"""The card model: one physical poker card, its code, and the detector's class table.

Codes are what a person writes and what every layer above speaks:
``AS 2S … 10S JS QS KS`` (suits S H D C), ``BJ`` (big, colour joker),
``SJ`` (small, monochrome joker) and ``BACK`` (a card seen face down).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from companion.messages import Message, MessageError


class InvalidCardError(MessageError, ValueError):
    """A code that names no card of a poker deck."""


class Suit(str, enum.Enum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def is_red(self) -> bool:
        return self in (Suit.HEARTS, Suit.DIAMONDS)

    @property
    def symbol(self) -> str:
        return {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[self.value]


SUITS: tuple[Suit, ...] = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
RANK_NAMES: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
# Aliases people type: "T" for ten, "1" for ace.
_RANK_ALIASES = {"T": "10", "1": "A"}


class Kind(str, enum.Enum):
    STANDARD = "standard"
    BIG_JOKER = "big_joker"      # the colour joker
    SMALL_JOKER = "small_joker"  # the monochrome joker
    BACK = "back"                # a card face down: identity unknown


@dataclass(frozen=True, order=True)
class Card:
    """An immutable card. ``rank`` is 1 (ace) … 13 (king); jokers and backs have neither rank nor suit."""

    kind: Kind
    rank: int | None = None
    suit: Suit | None = None

    def __post_init__(self) -> None:
        if self.kind is Kind.STANDARD:
            if self.rank is None or not 1 <= self.rank <= 13 or self.suit is None:
                raise InvalidCardError(Message("a standard card needs rank 1-13 and a suit, got %(rank)s %(suit)s",
                                               rank=repr(self.rank), suit=repr(self.suit)))
        elif self.rank is not None or self.suit is not None:
            raise InvalidCardError(Message('%(value)s has no rank or suit', value=self.kind.value))

    @classmethod
    def parse(cls, code: str) -> "Card":
        if not isinstance(code, str):
            raise InvalidCardError(Message('a card code must be text, got %(name)s', name=type(code).__name__))
        text = code.strip().upper()
        special = {"BJ": Kind.BIG_JOKER, "SJ": Kind.SMALL_JOKER, "BACK": Kind.BACK}
        if text in special:
            return cls(special[text])
        if len(text) < 2:
            raise InvalidCardError(Message("unknown card %(code)s: expected e.g. 'AS', '10H', 'QD', 'BJ', 'SJ' or 'BACK'", code=repr(code)))
        rank_text, suit_text = text[:-1], text[-1]
        rank_text = _RANK_ALIASES.get(rank_text, rank_text)
        if rank_text not in RANK_NAMES:
            raise InvalidCardError(Message("unknown rank %(rank_text)s in card %(code)s: ranks are %(rank_names)s",
                                           rank_text=repr(rank_text), code=repr(code), rank_names=' '.join(RANK_NAMES)))
        try:
            suit = Suit(suit_text)
        except ValueError:
            raise InvalidCardError(Message("unknown suit %(suit_text)s in card %(code)s: suits are S H D C",
                                           suit_text=repr(suit_text), code=repr(code))) from None
        return cls(Kind.STANDARD, RANK_NAMES.index(rank_text) + 1, suit)

    @property
    def code(self) -> str:
        if self.kind is Kind.BIG_JOKER:
            return "BJ"
        if self.kind is Kind.SMALL_JOKER:
            return "SJ"
        if self.kind is Kind.BACK:
            return "BACK"
        rank, suit = self.standard
        return f"{RANK_NAMES[rank - 1]}{suit.value}"

    @property
    def standard(self) -> tuple[int, Suit]:
        """Rank and suit of a standard card; InvalidCardError for a joker or a back (they have neither)."""
        if self.rank is None or self.suit is None:
            raise InvalidCardError(Message('%(value)s has no rank or suit', value=self.kind.value))
        return self.rank, self.suit

    @property
    def rank_name(self) -> str | None:
        return RANK_NAMES[self.rank - 1] if self.rank else None

    @property
    def is_joker(self) -> bool:
        return self.kind in (Kind.BIG_JOKER, Kind.SMALL_JOKER)

    @property
    def is_face_down(self) -> bool:
        return self.kind is Kind.BACK

    @property
    def is_red(self) -> bool:
        return self.suit is not None and self.suit.is_red

    @property
    def is_black(self) -> bool:
        return self.suit is not None and not self.suit.is_red

    @property
    def pretty(self) -> str:
        """The code with a suit symbol, for text people read: ``10♥``, ``BJ``."""
        if self.kind is not Kind.STANDARD:
            return {Kind.BIG_JOKER: "big joker", Kind.SMALL_JOKER: "small joker", Kind.BACK: "face-down card"}[self.kind]
        return f"{self.rank_name}{self.standard[1].symbol}"

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"


def parse_card(code: "str | Card") -> Card:
    return code if isinstance(code, Card) else Card.parse(code)


BIG_JOKER = Card(Kind.BIG_JOKER)
SMALL_JOKER = Card(Kind.SMALL_JOKER)
BACK = Card(Kind.BACK)

# One deck in a fixed order: suits S H D C, ranks A … K, then the two jokers.
STANDARD_CARDS: tuple[Card, ...] = tuple(Card(Kind.STANDARD, r, s) for s in SUITS for r in range(1, 14))
FULL_DECK: tuple[Card, ...] = STANDARD_CARDS + (BIG_JOKER, SMALL_JOKER)

# The detector's 55-class index table. The order is part of the shipped models' contract:
# never reorder it, only append.
CLASS_NAMES: tuple[str, ...] = tuple(c.code for c in FULL_DECK) + ("BACK",)
CLASS_INDEX: dict[str, int] = {name: i for i, name in enumerate(CLASS_NAMES)}


def class_index(card: "str | Card") -> int:
    return CLASS_INDEX[parse_card(card).code]


def card_for_class(index: int) -> Card:
    if not 0 <= index < len(CLASS_NAMES):
        raise InvalidCardError(Message('class index %(index)s outside 0-%(number)s', index=index, number=len(CLASS_NAMES) - 1))
    return Card.parse(CLASS_NAMES[index])
