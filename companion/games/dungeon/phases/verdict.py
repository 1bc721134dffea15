"""The verdict (``resolve``): a contest's winner takes the prize; a fight is won or lost against the enemy.
"""
from __future__ import annotations


from companion.games.base import IllegalEvent
from companion.games.dungeon.queries import still_to_commit
from companion.games.dungeon.rules import (MERCENARY, TREASURE,
                                           kind, level, power, suit)
from companion.games.dungeon.rules import card_name
from companion.games.dungeon.operations import Resolve
from companion.games.dungeon.game import (_Game, _award_prize, _committed, _end_encounter, _enemy_power, _has_black,
                                           _is_low, _need_phase, _no_hand_trap)
from companion.messages import Message, Words


def _resolve(g: _Game, op: Resolve) -> None:
    _need_phase(g, "prize", "fight")
    _no_hand_trap(g)
    enc = g.enc
    if any(c["card"] is None for c in enc["commits"]):
        hidden = sorted({g.name(c["player"]) for c in enc["commits"] if c["card"] is None})
        raise IllegalEvent(Message('face-down cards must be turned up first: %(hidden)s', hidden=list(hidden)))
    if g.work["phase"] == "prize":
        _resolve_contest(g)
    else:
        _resolve_fight(g)


def _resolve_contest(g: _Game) -> None:
    enc = g.enc
    waiting = still_to_commit("prize", enc, [p["out"] for p in g.players])
    if waiting:
        raise IllegalEvent(Message('still to commit or pass: %(value)s', value=[g.name(q) for q in waiting]))
    prize = enc["card"]
    order = [q for q in g.clockwise_from(enc["revealer"]) if q in enc["contenders"]]
    if kind(prize) == TREASURE:
        for q in order:
            if g.players[q]["guild"] == "C" and any(
                    kind(c) == MERCENARY and suit(c) == "C" and level(c) == level(prize) for c in _committed(g, q)):
                g.record(winner=q, how="thief_grab", outcome=Message("%(player)s's Thieves take it", player=g.name(q)))
                g.say(Message("Thieves: %(player)s's yellow mercenary matches the treasure's level %(level)s: %(award_prize)s.",
                              player=g.name(q), level=level(prize), award_prize=_award_prize(g, q, prize)))
                enc["card_gone"] = True
                _end_encounter(g)
                return
    if not order:
        g.to_exile(prize)
        enc["card_gone"] = True
        g.say(Message('Nobody is left in the contest: %(prize)s is exiled.', prize=card_name(prize)))
        g.record(how="nobody_left", outcome=Message("exiled: nobody left in the contest"))
        _end_encounter(g)
        return
    powers = {}
    for q in order:
        cards = _committed(g, q)
        numbers = [power(c) if kind(c) == MERCENARY else 0 for c in cards]
        powers[q] = sum(numbers)
    best = max(powers.values())
    tied = [q for q in order if powers[q] == best]
    winner: int | None = None
    how: Message | str = ""
    if len(tied) == 1:
        winner = tied[0]
    else:
        swords = [q for q in tied if _has_black(g, q)]
        hearts = [q for q in tied if g.players[q]["guild"] == "H"]
        if len(swords) == 1:
            winner, how = swords[0], Message(" (Swordsmen win ties with a black mercenary)")
        elif swords:
            tied = swords
        elif g.options.heart_guild_ability == "treasure_ties" and kind(prize) == TREASURE and len(hearts) == 1:
            winner, how = hearts[0], Message(" (the Heart guild wins treasure ties)")
    summary = Words(Message("%(player)s %(power)s", player=g.name(q), power=powers[q]) for q in order)
    if winner is None:
        enc["round"] += 1
        enc["contenders"] = tied
        g.say(Message("Contest: %(summary)s. Tie at %(best)s between %(value)s: each adds a mercenary (commit) or drops out (pass).",
                      summary=summary, best=best, value=[g.name(q) for q in tied]))
        return
    enc["card_gone"] = True
    g.record(winner=winner, how="contest", powers={str(q): powers[q] for q in order},
             outcome=Message("%(player)s wins the contest%(how)s", player=g.name(winner), how=how))
    g.say(Message("Contest: %(summary)s. %(player)s wins%(how)s: %(award_prize)s.",
                  summary=summary, player=g.name(winner), how=how, award_prize=_award_prize(g, winner, prize)))
    _end_encounter(g)


def _top_contributor(g: _Game, contributions: dict[int, int]) -> tuple[int, Message | str]:
    order = g.clockwise_from(g.enc["revealer"])
    best = max(contributions.values())
    tied = [q for q in order if contributions.get(q, -1) == best]
    if len(tied) == 1:
        return tied[0], ""
    swords = [q for q in tied if _has_black(g, q)]
    if len(swords) == 1:
        return swords[0], Message(" (Swordsman with a black mercenary wins the tie)")
    pool = swords or tied
    return pool[0], Message(" (tie for most: first clockwise from %(player)s)", player=g.name(g.enc['revealer']))


def _resolve_fight(g: _Game) -> None:
    enc = g.enc
    waiting = still_to_commit("fight", enc, [p["out"] for p in g.players])
    if waiting:
        raise IllegalEvent(Message('still to commit a mercenary: %(value)s', value=[g.name(q) for q in waiting]))
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
    verdict = Message("Verdict: players %(total)s vs enemy %(enemy)s (%(how)s): ", total=total, enemy=enemy, how=text)
    switched = [c for c in enc["commits"] if c["side"] == "enemy"]
    winner: int | None = None
    how: Message | str = ""
    if won:
        winner, how = _top_contributor(g, contributions)
    g.record(winner=winner, enemy_power=enemy, enemy_power_text=text, players_total=total, won=won,
             multiplier=enc["multiplier"], marker=enc["multiplied_by"], friends=list(enc["friends"]),
             extra_prizes=list(enc["extra_prizes"]), contributions={str(q): v for q, v in contributions.items()},
             switched=[c["card"] for c in switched],
             outcome=(Message("players win; %(player)s contributed most", player=g.name(winner)) if winner is not None
                      else Message("players win")) if won else Message("enemy wins"))
    if won:
        assert winner is not None, "a won fight always has a top contributor"
        gains = []
        if others:
            g.players[winner]["trophies"].extend(others)
            gains.append(Message("trophies %(cards)s", cards=[card_name(c) for c in others]))
        for prize in enc["extra_prizes"]:
            gains.append(_award_prize(g, winner, prize))
        g.say(Message("%(verdict)sthe players win. %(player)s contributed most%(how)s%(gains)s.", verdict=verdict,
                      player=g.name(winner), how=how, gains=Message(": %(gains)s", gains=Words(gains, clauses=True)) if gains else ""))
    else:
        lost = [c for c in enc["commits"] if c["side"] == "players"]
        for c in lost:
            enc["commits"].remove(c)
        exiled = others + enc["extra_prizes"] + [c["card"] for c in lost]
        g.to_exile(*exiled)
        survivors = Message("; %(cards)s survives on the enemy's side", cards=[card_name(c["card"]) for c in switched]) if switched else ""
        g.say(Message("%(verdict)sthe enemy wins; exiled: %(cards)s%(survivors)s.", verdict=verdict,
                      cards=[card_name(c) for c in exiled] if exiled else Message("nothing"), survivors=survivors))
    for c in switched:
        c["side"] = "players"  # a switched mercenary survives and rests with its owner
    enc["card_gone"] = True
    enc["friends"], enc["extra_prizes"] = [], []
    for card in markers[:-1]:
        g.to_exile(card)
    if markers:
        g.work["marker"] = markers[-1]
        g.say(Message("The %(card)s is laid sideways as the doubling marker: the next enemy is multiplied by %(level)s.",
                      card=card_name(markers[-1]), level=level(markers[-1])))
    _end_encounter(g)
