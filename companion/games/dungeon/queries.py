"""Questions about a Guilds and Dungeon encounter that the rules, the view and the engine all ask."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from companion.games.dungeon.rules import MERCENARY, power, pretty


def enemy_power(enc: Mapping[str, Any], friend_multiplied: bool, names: list[str]) -> tuple[int, str]:
    """The enemy side's power in a fight and how it is made up (for the table to read)."""
    parts, total = [], 0
    if enc["kind"] == MERCENARY and not enc["primary_destroyed"]:
        strength = power(enc["card"]) * enc["multiplier"]
        total += strength
        parts.append(f"{pretty(enc['card'])} {power(enc['card'])}" +
                     (f" × {enc['multiplier']} by the {pretty(enc['multiplied_by'])} marker" if enc["multiplied_by"] else ""))
    for friend in enc["friends"]:
        factor = enc["multiplier"] if friend_multiplied else 1
        total += power(friend) * factor
        parts.append(f"friend {pretty(friend)} {power(friend)}" + (f" × {factor}" if factor > 1 else ""))
    for c in enc["commits"]:
        if c["side"] == "enemy":
            total += power(c["card"])
            parts.append(f"{names[c['player']]}'s switched {pretty(c['card'])} {power(c['card'])}")
    return total, " + ".join(parts) if parts else "no enemy left"


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
