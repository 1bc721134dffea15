"""What each poker card is in The Chosen, and the deck(s) the game is played with."""
from __future__ import annotations

from collections import Counter
from functools import lru_cache

from companion.cards import STANDARD_CARDS, Card, InvalidCardError, Kind
from companion.messages import Message

MEDICINE = "medicine"
RADIATION = "radiation"
CHOSEN = "chosen"

# One deck without the Kings, in the card model's fixed order: 20 medicine, 20 radiation, 10 chosen.
ONE_DECK: tuple[str, ...] = tuple(card.code for card in STANDARD_CARDS if card.rank != 13) + ("BJ", "SJ")


@lru_cache(maxsize=256)
def role(code: str) -> str:
    """``medicine`` (red A-10), ``radiation`` (black A-10) or ``chosen`` (J, Q, jokers)."""
    card = Card.parse(code)
    if card.is_joker:
        return CHOSEN
    if card.kind is not Kind.STANDARD:
        raise InvalidCardError(Message('%(code)s is not a card of The Chosen (a face-down card has no role until it is turned)', code=repr(code)))
    if card.rank == 13:
        raise InvalidCardError(Message('%(code)s is a King: Kings are taken out of the deck in The Chosen', code=card.code))
    if card.standard[0] >= 11:
        return CHOSEN
    return MEDICINE if card.is_red else RADIATION


def table_role(code: str) -> str:
    """What a card seen on the table is in this game: :func:`role`, or ``other`` for a card the game
    gives none (a King, a face-down back); a code that is no card at all still raises."""
    card = Card.parse(code)
    try:
        return role(card.code)
    except InvalidCardError:
        return "other"


def normalise(code: object) -> str:
    """The canonical code of a card of this game; InvalidCardError for anything else."""
    if not isinstance(code, str):
        raise InvalidCardError(Message('a card code must be text, got %(code)s', code=repr(code)))
    return _normalise(code)


@lru_cache(maxsize=512)
def _normalise(code: str) -> str:
    card = Card.parse(code)
    role(card.code)
    return card.code


def deck_for(decks: int) -> tuple[str, ...]:
    return ONE_DECK * decks


def composition(decks: int) -> Counter[str]:
    """A fresh (mutable) count of each card in ``decks`` decks."""
    return Counter(deck_for(decks))
