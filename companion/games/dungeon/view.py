"""The JSON view of a Guilds and Dungeon state: what the phones and the CLI show."""
from __future__ import annotations

from typing import Any

from companion.games.dungeon import rules
from companion.games.dungeon.queries import enemy_power, still_to_commit
from companion.games.dungeon.rules import GUILD_NAMES, MERCENARY, kind, level
from companion.messages import CardName, Message, jsonable
from companion.games.dungeon.state import DungeonState, thaw


def _marker(state: DungeonState) -> dict[str, Any] | None:
    if not state.marker:
        return None
    factor = level(state.marker)
    return {"card": state.marker, "level": factor, "multiplier": factor,
            "text": Message("The %(card)s marker waits: the next enemy's level is multiplied by %(factor)s.",
                            card=CardName(state.marker), factor=factor).to_json()}


def battlefield(state: DungeonState) -> dict[str, Any] | None:
    enc = state.encounter.thawed() if state.encounter is not None else None
    if enc is None:
        return None
    names = [p.name for p in state.players]
    commits = [{"player": c["player"], "name": names[c["player"]], "card": c["card"], "face_down": c["card"] is None,
                "side": c["side"], "round": c["round"],
                "power": level(c["card"]) if c["card"] and kind(c["card"]) == MERCENARY else (None if c["card"] is None else 0)}
               for c in enc["commits"]]
    out = {
        "revealed": None if enc["card_gone"] or enc["primary_destroyed"] else enc["card"],
        "revealed_by": enc["revealer"], "kind": enc["kind"], "friends": enc["friends"],
        "extra_prizes": enc["extra_prizes"], "commits": commits,
        "players_total": sum(c["power"] or 0 for c in commits if c["side"] == "players"),
        "round": enc["round"], "negotiable": enc["negotiable"], "passed": enc["passed"],
        "to_commit": [names[q] for q in still_to_commit(state.phase, enc, [p.out for p in state.players])],
        "contenders": enc["contenders"] if enc["kind"] in (rules.TREASURE, rules.SCROLL) else None,
        "trap": enc["trap"] and {"card": enc["trap"]["card"], "calls": {str(k): v for k, v in enc["trap"]["calls"].items()},
                                 "drawn": enc["trap"]["drawn"], "from_friend": enc["trap"]["from_friend"]},
        "hand_trap": enc["hand_trap"] and {"player": enc["hand_trap"]["player"], "trap": enc["hand_trap"]["trap"],
                                           "card": enc["hand_trap"]["card"], "placed": enc["hand_trap"]["placed"],
                                           "calls": {str(k): v for k, v in enc["hand_trap"]["calls"].items()}},
    }
    if enc["kind"] == MERCENARY:
        power, text = enemy_power(enc, state.options["friend_multiplied"], names)
        card = enc["card"]
        how = (Message("the %(card)s fights at %(power)s: it was multiplied by the %(marker)s marker", card=CardName(card),
                       power=level(card) * enc["multiplier"], marker=CardName(enc["multiplied_by"])) if enc["multiplied_by"]
               else Message("the %(card)s fights at its printed level %(level)s", card=CardName(card), level=level(card)))
        multiplier = {"value": enc["multiplier"], "marker": enc["multiplied_by"], "text": how.to_json()}
        out.update({"enemy_power": power, "enemy_power_text": text.to_json(), "multiplier": multiplier})
    return out


def view(state: DungeonState, referee: bool = False) -> dict[str, Any]:
    """The table's view. Hands are secret: only the referee's view (``referee=True``) lists the cards the
    companion knows to be in each hand; everyone else sees hand sizes."""
    options = dict(state.options)
    trophy_level = options["trophy_min_level"]
    players = []
    for index, p in enumerate(state.players):
        high = [c for c in p.trophies if level(c) >= trophy_level]
        players.append({
            "seat": index, "name": p.name, "guild": p.guild,
            "guild_name": GUILD_NAMES[p.guild].to_json() if p.guild in GUILD_NAMES else None,
            "hand_count": p.hand_count, **({"hand_known": list(p.known)} if referee else {}),
            "rest_area": list(p.rest),
            "treasures": list(p.treasures), "trophies": list(p.trophies), "out": p.out,
            "progress": {"treasures": len(p.treasures), "high_trophies": len(high),
                         "high_trophies_to_win": options["trophies_to_win"],
                         "cards_above_out": p.hand_count - options["out_at_hand_size"]},
        })
    rulings = [{"id": rid, "ruling": text, "option": option,
                "value": options[option] if option else None} for rid, text, option in rules.RULINGS]
    return {
        "game": "dungeon",
        "phase": state.phase,
        "turn": state.turn,
        "to_reveal": state.players[state.turn].name if state.phase == "reveal" else None,
        "players": players,
        "dungeon_count": state.dungeon_count,
        "dungeon_order_known": state.dungeon is not None and len(state.dungeon) == state.dungeon_count,
        "dungeon_known_top": len(state.dungeon or []),  # how many top cards the referee knows (not which)
        "marker": _marker(state),
        "battlefield": battlefield(state),
        "exile": list(state.exile),
        "encounters": state.encounters,
        "unseen_count": len(state.unseen),
        "result": None if state.result is None else {"winners": list(state.result["winners"]),
                                                     "winner_names": [state.players[i].name for i in state.result["winners"]],
                                                     "reason": state.result["reason"], "text": jsonable(state.result["text"])},
        "options": options,
        "rulings": rulings,
        "history": [jsonable(thaw(entry)) for entry in state.history],
        "log": [jsonable(line) for line in state.log],
    }
