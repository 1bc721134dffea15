"""Corrections at any time before the end: ``set_hand_size`` moves cards between a miscounted hand and the
top of the draw pile.
"""
from __future__ import annotations

from companion.games.base import IllegalEvent
from companion.games.chosen import operations as ops
from companion.games.chosen.game import _player, _Table
from companion.games.chosen.state import State
from companion.messages import Message


def _set_hand_size(state: State, event: ops.SetHandSize) -> State:
    player = _player(state, event.player, "player")
    size = event.size
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise IllegalEvent(Message('size must be a whole number of at least 0, got %(size)s', size=repr(size)))
    table = _Table(state)
    hand = table.hands[player]
    before = len(hand)
    if size > before:
        if table.draw_cards(player, size - before) < size - before:
            raise IllegalEvent(Message('there are not enough cards left to give %(player)s %(size)s', player=state.names[player], size=size))
    elif size < before:
        # The extra cards go back on top of the draw pile; which ones is unknown unless the hand is.
        back: list[str | None] = hand[size:] if None not in hand else [None] * (before - size)
        kept: list[str | None] = hand[:size] if None not in hand else [None] * size
        table.hands[player] = kept
        table.draw = back + table.draw
    table.log.append(Message("Referee corrects %(player)s's hand from %(before)s to %(size)s cards.",
                             player=state.names[player], before=before, size=size))
    return table.freeze()

