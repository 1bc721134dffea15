"""What the companion knows of the cards: every card of the deck is in exactly one place (a slot), known or not."""
from __future__ import annotations

from collections import Counter

from companion.games.chosen.game import _Table
from companion.games.chosen.pieces import composition
from companion.games.chosen.state import State


def card_slots(state: State) -> tuple[int, Counter[str]]:
    """How many card slots the state holds and how many of each face it knows (for the invariant)."""
    table = _Table(state)
    slots = len(table.draw) + sum(map(len, table.hands)) + sum(map(len, table.areas)) + len(table.discard) \
        + sum(map(len, table.scored))
    for chosen in table.mat + table.pending:
        slots += 1 + len(chosen.chips) + len(chosen.medicine) + len(chosen.radiation)
    return slots, table.known_counts()

def check_conservation(state: State) -> None:
    """Raises AssertionError unless every card of the deck is in exactly one place."""
    slots, known = card_slots(state)
    deck = composition(state.decks)
    assert slots == sum(deck.values()), f"{slots} card slots for a {sum(deck.values())}-card deck"
    extra = known - deck
    assert not extra, f"more copies known than the deck has: {dict(extra)}"



def audit(state: State) -> list[str]:
    """Conservation problems: empty when every card of the deck is in exactly one place."""
    try:
        check_conservation(state)
    except AssertionError as problem:
        return [str(problem)]
    return []
