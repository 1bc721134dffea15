"""The JSON view of a Chosen state: what every player may see, and (``referee=True``) what only the referee may."""
from __future__ import annotations

from typing import Any

from companion.games.chosen.rules import options_dict, rulings_view
from companion.games.chosen.state import VAULT, ZONES, Chip, Chosen, State


def view(state: State, referee: bool = False) -> dict[str, Any]:
    names = state.names

    def chips(chips_: tuple[Chip, ...]) -> list[dict[str, Any]]:
        return [{"placed_by": names[c.placed_by], "turn": c.turn, **({"face": c.face} if referee else {})} for c in chips_]

    def chosen_view(c: Chosen) -> dict[str, Any]:
        return {"id": c.id, "owner": names[c.owner], "card": c.card,
                "zone": ZONES[c.zone] if c.zone < VAULT else "vault", "sent_turn": c.sent_turn,
                "chips": chips(c.chips), "medicine": list(c.medicine), "radiation": list(c.radiation)}

    teams: dict[str, list[int]] = {}
    for seat, team in enumerate(state.teams):
        teams.setdefault(team, []).append(seat)
    team_view = [{"team": t, "members": [names[p] for p in m], "score": sum(state.score[p] for p in m),
                  "target": state.options.target_chips * len(m)}
                 for t, m in teams.items() if not t.startswith("player:")]
    result = {
        "game": "chosen",
        "phase": state.phase,
        "players": [{"name": names[p], "team": None if state.teams[p].startswith("player:") else state.teams[p],
                     "hand_size": len(state.hands[p]), "chips": chips(state.areas[p]), "score": state.score[p],
                     **({"hand": list(state.hands[p])} if referee else {})} for p in range(state.players)],
        "teams": team_view,
        "turn": {"number": state.turn.number, "player": names[state.turn.player],
                 "chip_placed_on": None if state.turn.chip_onto is None else names[state.turn.chip_onto],
                 "chosen_sent": state.turn.sends, "played_on": list(state.turn.played_on)},
        "hand_target": state.hand_target,
        "decks": state.decks,
        "draw_pile": len(state.draw),
        "discard_pile": len(state.discard),
        "mat": [chosen_view(c) for c in state.mat],
        # what lies at the vault door now: chosen waiting for a verdict (chip faces hidden as on the mat)
        "vault": [chosen_view(c) for c in state.pending],
        "awaiting_reveal": None if state.phase != "reveal" else {
            "chosen": state.pending[0].id, "owner": names[state.pending[0].owner],
            "unseen_chips": sum(ch.face is None for ch in state.pending[0].chips)},
        "verdicts": [{"turn": v.turn, "owner": names[v.owner], "chosen": v.chosen, "card": v.card,
                      "chips": list(v.faces), "medicine": v.medicine, "radiation_on_chosen": v.radiation_on_chosen,
                      "radiated_chips": v.radiated_chips, "passed": v.passed, "points": v.points, "reason": v.reason}
                     for v in state.verdicts],
        "winners": [names[p] for p in state.winners],
        "options": options_dict(state.options),
        "rulings": rulings_view(state.options),
        "log": [line.to_json() for line in state.log],
    }
    if referee:
        result["draw"] = list(state.draw)
        result["discard"] = list(state.discard)
        result["pending"] = [chosen_view(c) for c in state.pending]
        result["seed"] = state.seed
    return result

