"""Guilds and Dungeon's account of its scores for the result page: each player's treasures and spoils (the
enemies taken as trophies), what ended the game and how a tie was broken, every encounter's verdict, and
the treasures and high trophies after each encounter (each history entry's ``standing``, written by the
engine as the encounter ended). Read from the state, never recomputed.

The game names only its winners; the others are ranked by treasures (the empty dungeon's measure), which
is each player's score here.
"""
from __future__ import annotations

from typing import Any

from companion.games.base import ranking
from companion.games.dungeon.rules import GUILD_NAMES, power
from companion.games.dungeon.state import DungeonState, thaw
from companion.messages import jsonable


def by_encounter(state: DungeonState, measure: str) -> dict[str, list[int]]:
    """Each player's ``measure`` (``treasures``, ``high_trophies``) after each finished encounter, from 0."""
    series: dict[str, list[int]] = {p.name: [0] for p in state.players}
    for entry in state.history:
        standing = entry.get("standing")
        if standing is None:   # an encounter that ended before the engine wrote standings: the last known
            for values in series.values():
                values.append(values[-1])
            continue
        for seat, player in enumerate(state.players):
            series[player.name].append(standing[seat][measure])
    return series


def result(state: DungeonState) -> dict[str, Any]:
    names = [p.name for p in state.players]
    finished = state.phase == "over"
    ended = state.result
    winners = [names[i] for i in ended["winners"]] if ended else []
    scores = {p.name: len(p.treasures) for p in state.players}
    level = state.options["trophy_min_level"]
    players = [{"player": p.name, "guild": p.guild, "guild_name": GUILD_NAMES[p.guild].to_json() if p.guild in GUILD_NAMES else None,
                "treasures": list(p.treasures), "trophies": list(p.trophies),
                "high_trophies": sum(power(c) >= level for c in p.trophies), "hand_count": p.hand_count, "out": p.out}
               for p in state.players]
    encounters = []
    for entry in state.history:
        plain = thaw(entry)
        winner = plain.get("winner")
        encounters.append({"encounter": plain["encounter"], "card": plain["card"], "kind": plain["kind"],
                           "revealer": names[plain["revealer"]], "winner": None if winner is None else names[winner],
                           "outcome": jsonable(plain.get("outcome"))})
    x = list(range(len(state.history) + 1))
    return {
        "game": "dungeon",
        "finished": finished,
        "winners": winners,
        "unit": "treasures",
        "ranking": ranking(scores, winners),
        "ended": jsonable(ended["text"]) if ended else None,
        "tie_break": jsonable(ended.get("tie_break")) if ended else None,
        "charts": [{"measure": "treasures", "axis": "encounter", "at": x, "scores": by_encounter(state, "treasures")},
                   {"measure": "high_trophies", "axis": "encounter", "at": x, "scores": by_encounter(state, "high_trophies")}],
        "details": {
            "reason": ended["reason"] if ended else None,
            "players": players,
            "encounters": encounters,
            "trophy_min_level": level,
            "trophies_to_win": state.options["trophies_to_win"],
            "dungeon_left": state.dungeon_count,
            "exiled": len(state.exile),
        },
    }
