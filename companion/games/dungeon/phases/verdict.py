"""The verdict (``resolve``): a contest's winner takes the prize; a fight is won or lost against the enemy.
"""
from __future__ import annotations


from companion.games.base import IllegalEvent
from companion.games.dungeon.queries import still_to_commit
from companion.games.dungeon.rules import (MERCENARY, TREASURE,
                                           kind, level, power, pretty, suit)
from companion.games.dungeon.operations import Resolve
from companion.games.dungeon.game import (_Game, _award_prize, _committed, _end_encounter, _enemy_power, _has_black,
                                           _is_low, _need_phase, _no_hand_trap)


def _resolve(g: _Game, op: Resolve) -> None:
    _need_phase(g, "prize", "fight")
    _no_hand_trap(g)
    enc = g.enc
    if any(c["card"] is None for c in enc["commits"]):
        hidden = sorted({g.name(c["player"]) for c in enc["commits"] if c["card"] is None})
        raise IllegalEvent(f"face-down cards must be turned up first: {', '.join(hidden)}")
    if g.work["phase"] == "prize":
        _resolve_contest(g)
    else:
        _resolve_fight(g)


def _resolve_contest(g: _Game) -> None:
    enc = g.enc
    waiting = still_to_commit("prize", enc, [p["out"] for p in g.players])
    if waiting:
        raise IllegalEvent(f"still to commit or pass: {', '.join(g.name(q) for q in waiting)}")
    prize = enc["card"]
    order = [q for q in g.clockwise_from(enc["revealer"]) if q in enc["contenders"]]
    if kind(prize) == TREASURE:
        for q in order:
            if g.players[q]["guild"] == "C" and any(
                    kind(c) == MERCENARY and suit(c) == "C" and level(c) == level(prize) for c in _committed(g, q)):
                g.record(winner=q, how="thief_grab", outcome=f"{g.name(q)}'s Thieves take it")
                g.say(f"Thieves: {g.name(q)}'s yellow mercenary matches the treasure's level {level(prize)}: "
                      f"{_award_prize(g, q, prize)}.")
                enc["card_gone"] = True
                _end_encounter(g)
                return
    if not order:
        g.to_exile(prize)
        enc["card_gone"] = True
        g.say(f"Nobody is left in the contest: {pretty(prize)} is exiled.")
        g.record(how="nobody_left", outcome="exiled: nobody left in the contest")
        _end_encounter(g)
        return
    powers = {}
    for q in order:
        cards = _committed(g, q)
        numbers = [power(c) if kind(c) == MERCENARY else 0 for c in cards]
        powers[q] = sum(numbers)
    best = max(powers.values())
    tied = [q for q in order if powers[q] == best]
    winner, how = None, ""
    if len(tied) == 1:
        winner = tied[0]
    else:
        swords = [q for q in tied if _has_black(g, q)]
        hearts = [q for q in tied if g.players[q]["guild"] == "H"]
        if len(swords) == 1:
            winner, how = swords[0], " (Swordsmen win ties with a black mercenary)"
        elif swords:
            tied = swords
        elif g.options.heart_guild_ability == "treasure_ties" and kind(prize) == TREASURE and len(hearts) == 1:
            winner, how = hearts[0], " (the Heart guild wins treasure ties)"
    summary = ", ".join(f"{g.name(q)} {powers[q]}" for q in order)
    if winner is None:
        enc["round"] += 1
        enc["contenders"] = tied
        g.say(f"Contest: {summary}. Tie at {best} between {', '.join(g.name(q) for q in tied)}: each adds a "
              "mercenary (commit) or drops out (pass).")
        return
    enc["card_gone"] = True
    g.record(winner=winner, how="contest", powers={str(q): powers[q] for q in order},
             outcome=f"{g.name(winner)} wins the contest{how}")
    g.say(f"Contest: {summary}. {g.name(winner)} wins{how}: {_award_prize(g, winner, prize)}.")
    _end_encounter(g)


def _top_contributor(g: _Game, contributions: dict[int, int]) -> tuple[int, str]:
    order = g.clockwise_from(g.enc["revealer"])
    best = max(contributions.values())
    tied = [q for q in order if contributions.get(q, -1) == best]
    if len(tied) == 1:
        return tied[0], ""
    swords = [q for q in tied if _has_black(g, q)]
    if len(swords) == 1:
        return swords[0], " (Swordsman with a black mercenary wins the tie)"
    pool = swords or tied
    return pool[0], f" (tie for most: first clockwise from {g.name(g.enc['revealer'])})"


def _resolve_fight(g: _Game) -> None:
    enc = g.enc
    waiting = still_to_commit("fight", enc, [p["out"] for p in g.players])
    if waiting:
        raise IllegalEvent(f"still to commit a mercenary: {', '.join(g.name(q) for q in waiting)}")
    enemy, text = _enemy_power(g)
    contributions = {q: sum(power(c) for c in _committed(g, q)) for q in g.active()}
    total = sum(contributions.values())
    won = total > enemy if g.options.ties_go_to_enemy else total >= enemy
    enemies = ([] if enc["primary_destroyed"] else [("primary", enc["card"])]) + [("friend", f) for f in enc["friends"]]
    markers = []
    for role, card in enemies:
        if not _is_low(card):
            continue
        if role == "friend" and not g.options.low_friend_becomes_marker:
            continue
        if won and g.options.marker_is_trophy:
            continue
        if not won and not g.options.low_enemy_marks_after_loss:
            continue
        markers.append(card)
    others = [card for _, card in enemies if card not in markers]
    verdict = f"Verdict: players {total} vs enemy {enemy} ({text}): "
    switched = [c for c in enc["commits"] if c["side"] == "enemy"]
    winner, how = _top_contributor(g, contributions) if won else (None, "")
    g.record(winner=winner, enemy_power=enemy, enemy_power_text=text, players_total=total, won=won,
             multiplier=enc["multiplier"], marker=enc["multiplied_by"], friends=list(enc["friends"]),
             extra_prizes=list(enc["extra_prizes"]), contributions={str(q): v for q, v in contributions.items()},
             switched=[c["card"] for c in switched],
             outcome=("players win" + (f"; {g.name(winner)} contributed most" if winner is not None else ""))
             if won else "enemy wins")
    if won:
        assert winner is not None, "a won fight always has a top contributor"
        gains = []
        if others:
            g.players[winner]["trophies"].extend(others)
            gains.append("trophies " + ", ".join(pretty(c) for c in others))
        for prize in enc["extra_prizes"]:
            gains.append(_award_prize(g, winner, prize))
        g.say(verdict + f"the players win. {g.name(winner)} contributed most{how}" +
              (": " + "; ".join(gains) if gains else "") + ".")
    else:
        lost = [c for c in enc["commits"] if c["side"] == "players"]
        for c in lost:
            enc["commits"].remove(c)
        exiled = others + enc["extra_prizes"] + [c["card"] for c in lost]
        g.to_exile(*exiled)
        g.say(verdict + "the enemy wins; exiled: " + (", ".join(pretty(c) for c in exiled) or "nothing") +
              (f"; {', '.join(pretty(c['card']) for c in switched)} survives on the enemy's side" if switched else "") + ".")
    for c in switched:
        c["side"] = "players"  # a switched mercenary survives and rests with its owner
    enc["card_gone"] = True
    enc["friends"], enc["extra_prizes"] = [], []
    for card in markers[:-1]:
        g.to_exile(card)
    if markers:
        g.work["marker"] = markers[-1]
        g.say(f"The {pretty(markers[-1])} is laid sideways as the doubling marker: the next enemy is multiplied "
              f"by {level(markers[-1])}.")
    _end_encounter(g)
