"""A new game: the players (and teams), the options, the deck or decks, and the deal (seeded, explicit, or
unknown at a live table); the first turn starts with its draw.
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Any, Mapping

from companion.cards import InvalidCardError
from companion.games.base import InvalidSetup
from companion.games.chosen.game import _Table
from companion.games.chosen.pieces import composition, deck_for, normalise
from companion.games.chosen.rules import parse_options
from companion.games.chosen.state import MAX_PLAYERS, MIN_PLAYERS, State, Turn
from companion.messages import Message


def new_game(setup: Mapping[str, Any]) -> State:
    """The initial state from a setup (players, options, seed or deal); raises InvalidSetup."""
    if not isinstance(setup, Mapping):
        raise InvalidSetup(Message("a setup must be a mapping with 'players'"))
    unknown = set(setup) - {"players", "options", "seed", "deal"}
    if unknown:
        raise InvalidSetup(Message('unknown setup field(s): %(unknown)s', unknown=list(sorted(unknown))))
    players = setup.get("players")
    if not isinstance(players, (list, tuple)) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        got = f"{len(players)} players" if isinstance(players, (list, tuple)) else repr(players)
        raise InvalidSetup(Message("The Chosen needs %(min_players)s-%(max_players)s players, got %(got)s",
                                   min_players=MIN_PLAYERS, max_players=MAX_PLAYERS, got=got))
    names, teams = [], []
    for seat, player in enumerate(players):
        if isinstance(player, str):
            player = {"name": player}
        if not isinstance(player, Mapping) or not isinstance(player.get("name"), str) or not player["name"].strip():
            raise InvalidSetup(Message("player %(seat)s needs a non-empty 'name'", seat=seat))
        team = player.get("team")
        if team is not None and (not isinstance(team, str) or not team.strip()):
            raise InvalidSetup(Message('player %(name)s: a team must be a non-empty name', name=repr(player['name'])))
        names.append(player["name"].strip())
        teams.append(team.strip() if team else f"player:{player['name'].strip()}")
    if len(set(names)) != len(names):
        raise InvalidSetup(Message("player names must be different"))
    options = parse_options(setup.get("options"))
    decks = 2 if options.second_deck == "always" or (options.second_deck == "auto" and len(names) > 4) else 1
    seed = setup.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InvalidSetup(Message('seed must be a whole number or null, got %(seed)s', seed=repr(seed)))
    count = len(names)
    if count * count > len(deck_for(decks)):
        raise InvalidSetup(Message("%(count)s players are dealt %(number)s cards but %(decks)s deck(s) hold %(count2)s: use option "
                                   "second_deck='auto' or 'always'",
                                   count=count, number=count * count, decks=decks, count2=len(deck_for(decks))))
    hands, draw = _deal(setup.get("deal"), seed, decks, count)
    state = State(names=tuple(names), teams=tuple(teams), options=options, decks=decks,
                  seed=seed if seed is not None or setup.get("deal") is None else 0,
                  draw=tuple(draw), hands=tuple(tuple(h) for h in hands),
                  areas=tuple(() for _ in names), mat=(), discard=(), scored=tuple(() for _ in names),
                  score=tuple(0 for _ in names), turn=Turn(number=0, player=0), phase="turn")
    table = _Table(state)
    table.log.append(Message("The Chosen: %(count)s players (%(player)s), %(count2)s cards; each is dealt %(count)s, hands refill to "
                             "%(number)s.",
                             count=count, player=list(names), count2=len(deck_for(decks)), number=count + 1))
    table.start_turn(1, 0)
    return table.freeze()

def _deal(deal: Any, seed: int | None, decks: int, count: int) -> tuple[list[list[Any]], list[Any]]:
    cards: list[str | None] = list(deck_for(decks))
    if deal is None:
        if seed is None:  # a live table: nobody knows the order
            cards = [None] * len(cards)
        else:
            random.Random(seed).shuffle(cards)
        hands: list[list[str | None]] = [[] for _ in range(count)]
        for _ in range(count):
            for seat in range(count):
                hands[seat].append(cards.pop(0))
        return hands, cards
    if not isinstance(deal, Mapping) or set(deal) - {"hands", "draw"}:
        raise InvalidSetup(Message("deal must be a mapping with 'hands' (one list of cards per player) and optional 'draw' (top first)"))
    try:
        dealt = [[normalise(c) for c in hand] for hand in deal.get("hands", [])]
        top = [normalise(c) for c in deal.get("draw", [])]
    except (InvalidCardError, TypeError) as error:
        raise InvalidSetup(Message('bad card in deal: %(error)s', error=error)) from None
    if len(dealt) != count or any(len(h) != count for h in dealt):
        raise InvalidSetup(Message('deal needs %(count)s hands of %(count)s cards each', count=count))
    rest = composition(decks)
    rest.subtract(Counter(c for h in dealt for c in h) + Counter(top))
    over = sorted(code for code, n in rest.items() if n < 0)
    if over:
        raise InvalidSetup(Message('deal uses more copies than the deck has of: %(over)s', over=list(over)))
    remaining = [code for code, copies in sorted(rest.items()) for _ in range(copies)]
    random.Random(seed or 0).shuffle(remaining)
    return dealt, top + remaining

