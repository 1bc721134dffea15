"""The Chosen's account of its scores for the result page: the chips each player brought home, each
chosen's vault verdict (its chips turned, the medicine it carried, the radiation on it), and the chips
home after every turn. Read from the state alone (the verdicts the vault gave), never recomputed.
"""
from __future__ import annotations

from typing import Any

from companion.games.base import ranking
from companion.games.chosen.state import State
from companion.messages import Message


def chips_by_turn(state: State) -> dict[str, list[int]]:
    """Each player's chips home after each turn, from turn 0 (the start) to the turn now being played."""
    last = state.turn.number
    points = [[0] * (last + 1) for _ in state.names]
    for verdict in state.verdicts:
        for turn in range(verdict.turn, last + 1):
            points[verdict.owner][turn] += verdict.points
    return {name: points[seat] for seat, name in enumerate(state.names)}


def result(state: State) -> dict[str, Any]:
    names = state.names
    finished = state.phase == "over"
    winners = [names[p] for p in state.winners]
    teams = {names[p]: (None if team.startswith("player:") else team) for p, team in enumerate(state.teams)}
    scores = {names[p]: state.score[p] for p in range(state.players)}
    target = state.options.target_chips
    ended = None
    if finished:
        members = list(state.winners)
        home = sum(state.score[p] for p in members)
        ended = (Message("%(player)s brought %(count)s chips home: the target is %(target)s.", player=names[members[0]],
                         count=home, target=target * len(members)) if len(members) == 1 else
                 Message("%(players)s brought %(count)s chips home together: the target is %(target)s.",
                         players=[names[p] for p in members], count=home, target=target * len(members)))
    verdicts = [{"turn": v.turn, "owner": names[v.owner], "chosen": v.chosen, "card": v.card, "chips": list(v.faces),
                 "medicine": v.medicine, "radiation_on_chosen": v.radiation_on_chosen, "radiated_chips": v.radiated_chips,
                 "passed": v.passed, "points": v.points, "reason": Message(v.reason).to_json()} for v in state.verdicts]
    return {
        "game": "chosen",
        "finished": finished,
        "winners": winners,
        "unit": "chips",
        "ranking": ranking(scores, winners, teams if any(teams.values()) else None),
        "ended": ended.to_json() if ended else None,
        # The game ends at the verdict that reaches the target (ruling win-immediately): nothing to break.
        "tie_break": None,
        "charts": [{"measure": "chips", "axis": "turn", "at": list(range(state.turn.number + 1)), "scores": chips_by_turn(state)}],
        "details": {
            "target": target,
            "teams": sorted({team for team in teams.values() if team}),
            "verdicts": verdicts,
            "on_the_way": [{"owner": names[c.owner], "chosen": c.id, "card": c.card, "chips": len(c.chips),
                            "medicine": len(c.medicine), "radiation": len(c.radiation)} for c in state.mat + state.pending],
            "turns": state.turn.number,
        },
    }
