"""Knowledge of unseen cards: every face-down card must keep a possible identity (``check_facedown_cards``),
and every card of the deck is in exactly one place, known or unseen (``audit``).
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from companion.games.base import IllegalEvent
from companion.games.dungeon.rules import (GUILD_CARDS, MERCENARY, PLAY_DECK, TREASURE,
                                           kind, level)
from companion.games.dungeon.state import DungeonState
from companion.games.dungeon.game import _Game
from companion.messages import Message


def _facedown_needs(g: _Game, p: int) -> list[Any]:
    """What each of ``p``'s face-down cards must turn out to be, as tests on a card code."""
    enc = g.enc
    if not enc:
        return []
    needs = []
    for c in enc["commits"]:
        if c["player"] == p and c["card"] is None:
            if g.work["phase"] == "fight" or c["round"] > 1:
                needs.append(lambda code: kind(code) == MERCENARY)
            else:
                needs.append(lambda code: kind(code) != TREASURE)
    trap = enc.get("hand_trap")
    if trap and trap["player"] == p and trap["placed"] and trap["card"] is None:
        needs.append(lambda code: level(code) is not None)
    return needs


def _check_facedown_cards(g: _Game) -> None:
    """Refuses an event that leaves some face-down card no possible identity (e.g. naming the last mercenary
    a player could have committed face down as something else)."""
    for p in range(len(g.players)):
        needs = _facedown_needs(g, p)
        if not needs:
            continue
        capacity = g.unknown_part(p)
        unseen = sorted(g.work["unseen"]) if capacity > 0 else []
        if not _identities_fit(needs, g.players[p]["known"], unseen, capacity):
            raise IllegalEvent(Message("this would leave %(player)s's face-down card with no possible identity", player=g.name(p)))


def _identities_fit(needs: list[Any], known: list[str], unseen: list[str], capacity: int) -> bool:
    """Whether each face-down card (a test in ``needs``) can be a different known card of the hand,
    or one of at most ``capacity`` unseen cards."""

    def fits(index: int, used: frozenset[str], from_unseen: int) -> bool:
        if index == len(needs):
            return True
        test = needs[index]
        for card in known:
            if card not in used and test(card) and fits(index + 1, used | {card}, from_unseen):
                return True
        if from_unseen < capacity and sum(1 for c in unseen if test(c)) > from_unseen:
            return fits(index + 1, used, from_unseen + 1)
        return False

    return fits(0, frozenset(), 0)


def audit(state: DungeonState) -> list[str]:
    """Conservation problems (empty when every card is in exactly one place)."""
    g = _Game(state)
    w = g.work
    located: list[str] = list(GUILD_CARDS)
    problems = []
    for p, player in enumerate(w["players"]):
        located += player["known"] + player["rest"] + player["treasures"] + player["trophies"]
        if g.unknown_part(p) < 0:
            problems.append(f"{player['name']}: more known cards than cards")
        if player["hand_count"] < 0:
            problems.append(f"{player['name']}: negative hand")
    located += w["exile"] + ([w["marker"]] if w["marker"] else []) + g.battlefield_cards()
    if w["dungeon"] is not None:
        located += w["dungeon"]
        if len(w["dungeon"]) > w["dungeon_count"]:
            problems.append("more known dungeon cards than dungeon cards")
    repeated = [c for c, k in Counter(located + sorted(w["unseen"])).items() if k > 1]
    if repeated:
        problems.append(f"in two places: {repeated}")
    everything = set(located) | w["unseen"]
    if everything != set(PLAY_DECK) | set(GUILD_CARDS):
        problems.append(f"missing: {sorted(set(PLAY_DECK) - everything)}; extra: {sorted(everything - set(PLAY_DECK) - set(GUILD_CARDS))}")
    hidden = (w["dungeon_count"] - len(w["dungeon"] or [])) + sum(g.unknown_part(p) for p in range(len(w["players"])))
    if hidden != len(w["unseen"]):
        problems.append(f"{len(w['unseen'])} unseen cards but {hidden} unknown places")
    return problems
