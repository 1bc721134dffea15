"""Questions about a Guilds and Dungeon encounter that the rules, the view and the engine all ask."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from companion.games.dungeon.rules import MERCENARY, power
from companion.messages import CardName, Message


def enemy_power(enc: Mapping[str, Any], friend_multiplied: bool, names: list[str]) -> tuple[int, Message]:
    """The enemy side's power in a fight and how it is made up (for the table to read)."""
    parts: list[Message] = []
    total = 0
    if enc["kind"] == MERCENARY and not enc["primary_destroyed"]:
        strength = power(enc["card"]) * enc["multiplier"]
        total += strength
        if enc["multiplied_by"]:
            parts.append(Message("%(card)s %(level)s × %(multiplier)s by the %(marker)s marker", card=CardName(enc["card"]),
                                 level=power(enc["card"]), multiplier=enc["multiplier"], marker=CardName(enc["multiplied_by"])))
        else:
            parts.append(Message("%(card)s %(level)s", card=CardName(enc["card"]), level=power(enc["card"])))
    for friend in enc["friends"]:
        factor = enc["multiplier"] if friend_multiplied else 1
        total += power(friend) * factor
        if factor > 1:
            parts.append(Message("friend %(card)s %(level)s × %(multiplier)s", card=CardName(friend), level=power(friend), multiplier=factor))
        else:
            parts.append(Message("friend %(card)s %(level)s", card=CardName(friend), level=power(friend)))
    for c in enc["commits"]:
        if c["side"] == "enemy":
            total += power(c["card"])
            parts.append(Message("%(player)s's switched %(card)s %(level)s", player=names[c["player"]], card=CardName(c["card"]),
                                 level=power(c["card"])))
    if not parts:
        return total, Message("no enemy left")
    if len(parts) == 1:
        return total, parts[0]
    return total, Message(" + ".join(f"%(part{i})s" for i in range(len(parts))), **{f"part{i}": part for i, part in enumerate(parts)})


def still_to_commit(phase: str, enc: Mapping[str, Any], out: Sequence[bool]) -> list[int]:
    """Seats that still have to commit (or pass) before the encounter can be resolved; ``out[seat]``
    says whether a player is out of the game."""
    active = [i for i, gone in enumerate(out) if not gone]
    if phase == "prize":
        return [q for q in enc["contenders"] if [q, enc["round"]] not in enc["entered"]]
    if phase == "fight":
        return [q for q in active if q not in enc["passed"] and [q, 1] not in enc["entered"]]
    return []


def encounter_ready(phase: str, enc: Mapping[str, Any] | None, out: Sequence[bool]) -> bool:
    """Whether ``resolve`` would be allowed: a contest or fight where everybody committed (or passed),
    every committed card is turned up and no trap played from hand is still open."""
    if phase not in ("prize", "fight") or enc is None:
        return False
    if enc.get("hand_trap") or any(c["card"] is None for c in enc["commits"]):
        return False
    return not still_to_commit(phase, enc, out)
