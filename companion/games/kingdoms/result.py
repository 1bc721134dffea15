"""Kingdoms' account of its scores for the result page: each round's castles (row, column, rank, total and
the reasons, as the scoring gave them when the round was scored), the castles left in each supply, and
the totals after each round. Read from the state's scored rounds, never rescored.
"""
from __future__ import annotations

from typing import Any

from companion.games.base import ranking
from companion.games.kingdoms.scoring import BoardScore
from companion.messages import Message


# ``state`` is a KingdomsState (engine.py, which imports this module: not imported back).
def totals_by_round(state: Any) -> dict[str, list[int]]:
    """Each player's total after each scored round, from 0 at the start."""
    series: dict[str, list[int]] = {}
    for name in state.seating.names:
        running = [0]
        for scored in state.results:
            running.append(running[-1] + scored.score.totals[name])
        series[name] = running
    return series


def result(state: Any, board_now: BoardScore | None) -> dict[str, Any]:
    """``board_now``: the grid of the round being played scored as it stands (None between rounds)."""
    names = state.seating.names
    series = totals_by_round(state)
    totals = {name: series[name][-1] for name in names}
    finished = state.finished
    winners: list[str] = []
    if finished:
        best = max(totals.values())
        winners = [name for name in names if totals[name] == best]
    rounds = [{"round": scored.number, "totals": scored.score.totals, "rows": [list(row) for row in scored.rows],
               "castles": [{**castle.to_json(), "label": _label(castle.label),
                            "explanation": [line.to_json() for line in castle.explain_lines()]}
                           for castle in scored.score.castles]}
              for scored in state.results]
    provisional = None
    if not finished and state.board and board_now is not None:
        provisional = {"round": state.round, "filled": len(state.board), "totals": board_now.totals}
    ended = Message("After %(rounds)s rounds the highest total wins.", rounds=state.options.rounds) if finished else None
    tie_break = Message("Equal totals share the win.") if len(winners) > 1 else None
    return {
        "game": "kingdoms",
        "finished": finished,
        "winners": winners,
        "unit": "points",
        "ranking": ranking(totals, winners),
        "ended": ended.to_json() if ended else None,
        "tie_break": tie_break.to_json() if tie_break else None,
        "charts": [{"measure": "points", "axis": "round", "at": list(range(len(state.results) + 1)), "scores": series}],
        "details": {
            "rounds": rounds,
            "rounds_in_game": state.options.rounds,
            "rules": state.options.rules,
            "supplies": {player.name: player.supply_json() for player in state.players},
            "provisional": provisional,
        },
    }


def _label(label: Any) -> Any:
    """A castle's card as the table had it: its code, or the message naming it (a piece seen face down)."""
    code = getattr(label, "code", None)
    if code is not None:
        return code
    return label.to_json() if isinstance(label, Message) else str(label)
