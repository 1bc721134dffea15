"""The working copy of a Chosen state that one event changes (frozen only if the event is legal), and the
moves every phase shares: taking a card from a hand, drawing (reshuffling the discard pile), starting a turn.
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from typing import Any

from companion.games.base import IllegalEvent
from companion.games.chosen.pieces import composition
from companion.games.chosen.state import State, Turn
from companion.messages import Message



class _Table:
    """A mutable working copy of a state: an event is applied to a copy and frozen only if legal."""

    def __init__(self, state: State):
        self.state = state
        self.draw = list(state.draw)
        self.hands = [list(h) for h in state.hands]
        self.areas = [list(a) for a in state.areas]
        self.mat = list(state.mat)
        self.discard = list(state.discard)
        self.scored = [list(s) for s in state.scored]
        self.score = list(state.score)
        self.turn = state.turn
        self.phase = state.phase
        self.pending = list(state.pending)
        self.verdicts = list(state.verdicts)
        self.winners = state.winners
        self.next_id = state.next_id
        self.reshuffles = state.reshuffles
        self.log = list(state.log)
        # Cards taken from hands by the event being applied, not yet placed: they still count as known.
        self.taken: Counter[str] = Counter()

    def freeze(self) -> State:
        return replace(self.state, draw=tuple(self.draw), hands=tuple(tuple(h) for h in self.hands),
                       areas=tuple(tuple(a) for a in self.areas), mat=tuple(self.mat), discard=tuple(self.discard),
                       scored=tuple(tuple(s) for s in self.scored), score=tuple(self.score), turn=self.turn,
                       phase=self.phase, pending=tuple(self.pending), verdicts=tuple(self.verdicts),
                       winners=self.winners, next_id=self.next_id, reshuffles=self.reshuffles, log=tuple(self.log))

    # --- what the companion knows -------------------------------------------------------------
    def known_counts(self) -> Counter[str]:
        counts = Counter(c for c in self.draw if c)
        counts.update(c for h in self.hands for c in h if c)
        counts.update(chip.face for a in self.areas for chip in a if chip.face)
        for chosen in self.mat + self.pending:
            counts[chosen.card] += 1
            counts.update(chip.face for chip in chosen.chips if chip.face)
            counts.update(chosen.medicine)
            counts.update(chosen.radiation)
        counts.update(c for c in self.discard if c)
        counts.update(c for s in self.scored for c in s)
        return counts

    def name(self, player: int) -> str:
        return self.state.names[player]

    # --- moving cards -------------------------------------------------------------------------
    def take_from_hand(self, player: int, code: str) -> None:
        hand = self.hands[player]
        if code in hand:
            hand.remove(code)
            self.taken[code] += 1
            return
        if None in hand and self.known_counts()[code] + self.taken[code] < composition(self.state.decks)[code]:
            hand.remove(None)
            self.taken[code] += 1
            return
        raise IllegalEvent(Message('%(player)s does not hold %(code)s', player=self.name(player), code=code))

    def draw_cards(self, player: int, count: int) -> int:
        drawn = 0
        for _ in range(count):
            if not self.draw and not self.reshuffle():
                break
            self.hands[player].append(self.draw.pop(0))
            drawn += 1
        return drawn

    def reshuffle(self) -> bool:
        if not self.discard:
            return False
        cards = self.discard
        self.discard = []
        self.reshuffles += 1
        if self.state.seed is None:
            # A live table: the new order is unknown, so the companion forgets the faces.
            self.draw = [None] * len(cards)
        else:
            random.Random(f"chosen:{self.state.seed or 0}:reshuffle:{self.reshuffles}").shuffle(cards)
            self.draw = cards
        self.log.append(Message("The draw pile ran out: the discard pile (%(count)s cards) is shuffled into a new draw pile.",
                                count=len(cards)))
        return True

    def start_turn(self, number: int, player: int) -> None:
        self.turn = Turn(number=number, player=player)
        self.phase = "turn"
        need = max(0, self.state.hand_target - len(self.hands[player]))
        drawn = self.draw_cards(player, need)
        short = Message(" (only %(drawn)s left)", drawn=drawn) if drawn < need else ""
        self.log.append(Message("Turn %(number)s: %(player)s draws %(drawn)s%(short)s, holding %(count)s.", number=number,
                                player=self.name(player), drawn=drawn, short=short, count=len(self.hands[player])))


def _player(state: State, value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise IllegalEvent(Message('%(what)s must be a player name or seat number, got %(value)s', what=what, value=repr(value)))
    if isinstance(value, int) and 0 <= value < state.players:
        return value
    if isinstance(value, str) and value in state.names:
        return state.names.index(value)
    raise IllegalEvent(Message("%(what)s %(value)s is not a player: players are %(players)s (seats 0-%(number)s)",
                               what=what, value=repr(value), players=list(state.names), number=state.players - 1))

