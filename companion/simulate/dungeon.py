"""Self-play bots for Guilds and Dungeon, played through the real engine.

Bots see their own hand and the public table only (the engine knows every card in a seeded game, but a
bot's choices use only its own ``hand_known`` and what is face up). Random choices (odd/even calls, which
card a trap draws) come from the game's own seeded generator, so a game is reproducible from its seed.
"""
from __future__ import annotations

import random
import statistics
from collections import Counter

from companion.games.base import IllegalEvent
from companion.games.dungeon import ENGINE
from companion.games.dungeon.rules import MERCENARY, SCROLL, TRAP, TREASURE, kind, level, parse_options, suit

DEFAULT_PLAYERS = 3
STRATEGIES: dict[str, str] = {
    "cautious": "saves strong cards: in a fight commits the smallest mercenary that covers its share of the enemy "
                "(the smallest of all when the fight looks lost), enters contests with its weakest card, never "
                "spends scrolls, never betrays the table",
    "greedy": "plays to take: commits its strongest mercenary to fights (to be top contributor and take the trophy) "
              "and contests, adds its strongest on ties, destroys the leading rival's card with a scroll when that "
              "wins a contest, and as a Mage switches to the enemy's side when that makes the table lose",
}
MAX_EVENTS = 4000


def check_setup(players: int, options: dict) -> None:
    if not 2 <= players <= 4:
        raise ValueError(f"Guilds and Dungeon is played by 2 to 4 players, got {players}")
    parse_options(options)


def _mercenaries(hand: list[str]) -> list[str]:
    return sorted((c for c in hand if kind(c) == MERCENARY), key=level)


def hand_strength(hand: list[str]) -> int:
    """Sum of mercenary levels: the fighting power a starting hand brings."""
    return sum(level(c) for c in hand if kind(c) == MERCENARY)


class _Bot:
    def __init__(self, seat: int, strategy: str, rng: random.Random) -> None:
        self.seat, self.strategy, self.rng = seat, strategy, rng

    def greedy(self) -> bool:
        return self.strategy == "greedy"

    def guild(self, hand: list[str]) -> str:
        counts = Counter(suit(c) for c in hand if suit(c))
        top = max(counts.values()) if counts else 0
        tied = [s for s in ("S", "D", "C", "H") if counts[s] == top] or ["S"]
        # Among tied suits, the one whose mercenaries fight best.
        return max(tied, key=lambda s: sum(level(c) for c in hand if suit(c) == s and kind(c) == MERCENARY))

    def redeal_four(self, hand: list[str]) -> list[str]:
        return sorted(hand, key=lambda c: (kind(c) != TREASURE, level(c) or 0))[:4]

    def fight_card(self, hand: list[str], enemy: int, players: int, guild: str, enemy_blue: bool) -> str | None:
        mercs = _mercenaries(hand)
        if not mercs:
            return None
        if self.greedy():
            if guild == "D" and enemy_blue:
                blue = [c for c in mercs if suit(c) == "D"]
                if blue:
                    return blue[-1]
            if guild == "S":
                black = [c for c in mercs if suit(c) == "S"]
                if black and level(black[-1]) == level(mercs[-1]):
                    return black[-1]
            return mercs[-1]
        share = -(-enemy // players)
        covering = [c for c in mercs if level(c) >= share]
        return covering[0] if covering else mercs[0]

    def contest_card(self, hand: list[str], prize: str, guild: str) -> str | None:
        entries = [c for c in hand if kind(c) != TREASURE]
        if not entries:
            return None
        if guild == "C" and kind(prize) == TREASURE:
            match = [c for c in entries if kind(c) == MERCENARY and suit(c) == "C" and level(c) == level(prize)]
            if match:
                return match[0]
        mercs = _mercenaries(entries)
        if self.greedy():
            return mercs[-1] if mercs else entries[0]
        bluffs = [c for c in entries if kind(c) == TRAP]
        return mercs[0] if mercs else (bluffs or entries)[0]


def _public_hand(view: dict, seat: int) -> list[str]:
    return list(view["players"][seat]["hand_known"])


def _table(state) -> dict:
    """The parts of ``ENGINE.view`` the bots read, without the log and history (they grow every turn)."""
    return {"phase": state.phase, "options": state.options, "battlefield": ENGINE.battlefield(state),
            "players": [{"seat": i, "guild": p.guild, "hand_known": p.known, "out": p.out}
                        for i, p in enumerate(state.players)]}


def play_one(game_seed: int, players: int, options: dict, seats: list[str]) -> dict:
    rng = random.Random(game_seed ^ 0x5EED)
    names = [f"P{i}" for i in range(players)]
    state = ENGINE.new_game({"players": names, "options": dict(options), "seed": game_seed})
    bots = [_Bot(i, seats[i], rng) for i in range(players)]
    encounters: list[dict] = []
    events = 0
    starting: list[int] | None = None
    current: dict | None = None

    def apply(event: dict) -> None:
        nonlocal state, events
        state = ENGINE.apply(state, event)
        events += 1

    while state.phase != "over" and events < MAX_EVENTS:
        view = _table(state)
        phase = view["phase"]
        hands = [_public_hand(view, i) for i in range(players)]
        active = [p["seat"] for p in view["players"] if not p["out"]]
        if phase == "guilds":
            try:
                p = next(p["seat"] for p in view["players"] if not p["guild"])
                apply({"type": "choose_guild", "player": p, "guild": bots[p].guild(hands[p])})
            except IllegalEvent:
                apply({"type": "redeal_four", "player": 0, "cards": bots[0].redeal_four(hands[0])})
            continue
        if phase == "redeal_four":
            done = set(state.guild_round["redealt"])
            p = next(i for i in range(players) if i not in done)
            apply({"type": "redeal_four", "player": p, "cards": bots[p].redeal_four(hands[p])})
            continue
        if starting is None:
            starting = [hand_strength(h) for h in hands]
        if phase in ("reveal", "friend"):
            apply({"type": "reveal"})
            continue
        bf = view["battlefield"]
        if phase == "trap":
            trap = bf["trap"]
            calls = trap["calls"]
            waiting = [p for p in active if str(p) not in calls]
            if waiting:
                apply({"type": "trap_call", "player": waiting[0], "call": rng.choice(("odd", "even"))})
            else:
                p = next(p for p in active if p not in trap["drawn"])
                hand = sorted(hands[_left_neighbour(active, p)])
                apply({"type": "trap_draw", "player": p, **({"card": rng.choice(hand)} if hand else {})})
            continue
        if phase == "prize":
            _prize_step(state, view, bf, bots, hands, apply)
            continue
        if phase == "fight":
            if current is None or current.get("revealed_at") != state.encounters:
                enemy = bf["enemy_power"]
                best = sum(max((level(c) for c in hands[p] if kind(c) == MERCENARY), default=0) for p in active)
                strict = view["options"]["ties_go_to_enemy"]
                current = {"revealed_at": state.encounters, "card": bf["revealed"], "power": enemy,
                           "printed": level(bf["revealed"]) if bf["revealed"] else None,
                           "multiplier": bf["multiplier"]["value"], "marker": bf["multiplier"]["marker"],
                           "friends": list(bf["friends"]), "extra_prize": bool(bf["extra_prizes"]),
                           "could_win": best > enemy if strict else best >= enemy}
            _fight_step(state, view, bf, bots, hands, active, apply, current, encounters)
            continue
        raise RuntimeError(f"bot has no move in phase {phase}")
    # The verdicts are the engine's own (its history), not the bots' arithmetic.
    verdicts = {entry["encounter"]: entry for entry in state.history if "won" in entry}
    for fight in encounters:
        verdict = verdicts[fight.pop("revealed_at") + 1]
        fight.update({"won": verdict["won"], "players_total": verdict["players_total"],
                      "power_at_verdict": verdict["enemy_power"]})
    result = state.result
    guilds = [p.guild for p in state.players]
    return {
        "winners": list(result["winners"]) if result else [],
        "turns": state.encounters,
        "end": result["reason"] if result else "stalled",
        "guilds": guilds,
        "hand_strength": starting or [0] * players,
        "fights": encounters,
        "treasures": [len(p.treasures) for p in state.players],
        "trophies": [len(p.trophies) for p in state.players],
    }


def _left_neighbour(active: list[int], p: int) -> int:
    """Play goes clockwise, so the player on a player's left is the next one in turn order."""
    later = [q for q in active if q > p]
    return later[0] if later else active[0]


def _prize_step(state, view, bf, bots, hands, apply) -> None:
    contenders = bf["contenders"]
    prize = bf["revealed"]
    rnd = bf["round"]
    committed = {(c["player"], c["round"]) for c in bf["commits"]}
    # Thieves swap a revealed scroll for their best yellow mercenary when they are greedy.
    if kind(prize) == SCROLL and bf["negotiable"]:
        for p in contenders:
            player = view["players"][p]
            yellow = [c for c in _mercenaries(hands[p]) if suit(c) == "C"]
            if player["guild"] == "C" and bots[p].greedy() and yellow and level(yellow[-1]) <= 6:
                apply({"type": "thief_swap", "player": p, "card": yellow[-1]})
                return
    for p in contenders:
        if (p, rnd) in committed:
            continue
        bot = bots[p]
        guild = view["players"][p]["guild"]
        if rnd == 1:
            card = bot.contest_card(hands[p], prize, guild)
        else:
            mercs = _mercenaries(hands[p])
            card = (mercs[-1] if bot.greedy() else mercs[0]) if mercs else None
        apply({"type": "commit", "player": p, "card": card} if card else {"type": "pass", "player": p})
        return
    # Everyone is in: a greedy player with a scroll removes the leader when it is not already winning.
    powers = {}
    for c in bf["commits"]:
        if c["side"] == "players" and c["player"] in contenders:
            powers[c["player"]] = powers.get(c["player"], 0) + (c["power"] or 0)
    if powers and rnd == 1:
        leader = max(powers, key=powers.get)
        for p in contenders:
            scrolls = [c for c in hands[p] if kind(c) == SCROLL]
            if bots[p].greedy() and scrolls and p != leader and powers[leader] > powers.get(p, 0) \
                    and len(hands[p]) > 4 and kind(prize) == TREASURE and level(prize) >= 6:
                apply({"type": "play_scroll", "player": p, "card": scrolls[0], "target": leader})
                return
    apply({"type": "resolve"})


def _fight_step(state, view, bf, bots, hands, active, apply, current, encounters) -> None:
    committed = {c["player"] for c in bf["commits"]}
    enemy = bf["enemy_power"]
    enemies = ([bf["revealed"]] if bf["revealed"] else []) + list(bf["friends"])
    blue = any(suit(c) == "D" for c in enemies)
    for p in active:
        if p in committed or p in bf["passed"]:
            continue
        card = bots[p].fight_card(hands[p], enemy, len(active), view["players"][p]["guild"], blue)
        apply({"type": "commit", "player": p, "card": card} if card else {"type": "pass", "player": p})
        return
    total = bf["players_total"]
    strict = view["options"]["ties_go_to_enemy"]
    for c in bf["commits"]:
        p = c["player"]
        if (c["side"] == "players" and view["players"][p]["guild"] == "D" and blue and bots[p].greedy()
                and suit(c["card"]) == "D"):
            after_total, after_enemy = total - c["power"], enemy + c["power"]
            players_win_after = after_total > after_enemy if strict else after_total >= after_enemy
            if not players_win_after:
                apply({"type": "mage_switch", "player": p})
                return
    encounters.append(current)
    apply({"type": "resolve"})


BUCKETS = ("<=5", "<=10", "<=15", "<=20", "<=26", ">=27")


def _bucket(power: int) -> str:
    for high in (5, 10, 15, 20, 26):
        if power <= high:
            return f"<={high}"
    return ">=27"


def summarize(records: list[dict]) -> dict:
    fights = [f for r in records for f in r["fights"]]
    powers = sorted(f["power"] for f in fights)
    hopeless = sum(1 for f in fights if not f["could_win"])
    huge = [f for f in fights if f["power"] >= 27]
    three_nine = [f for f in fights if f["marker"] and level(f["marker"]) == 3 and f["printed"] == 9]
    multiplied = [f for f in fights if f["multiplier"] > 1]
    guild_seats: Counter = Counter()
    guild_wins: Counter = Counter()
    rank_seats: Counter = Counter()
    rank_wins: Counter = Counter()
    strength_seats: Counter = Counter()
    strength_wins: Counter = Counter()
    for r in records:
        order = sorted(range(len(r["hand_strength"])), key=lambda s: -r["hand_strength"][s])
        for seat, guild in enumerate(r["guilds"]):
            won = seat in r["winners"]
            guild_seats[guild] += 1
            guild_wins[guild] += won
            rank = order.index(seat) + 1
            rank_seats[rank] += 1
            rank_wins[rank] += won
            band = min(r["hand_strength"][seat] // 10 * 10, 50)
            strength_seats[band] += 1
            strength_wins[band] += won

    def rate(wins: int, total: int) -> float | None:
        return round(wins / total, 4) if total else None

    return {
        "fights": len(fights),
        "fights_per_game": round(len(fights) / len(records), 3) if records else 0,
        "enemy_power": {"mean": round(statistics.fmean(powers), 2) if powers else None,
                        "median": statistics.median(powers) if powers else None,
                        "p90": powers[int(0.9 * (len(powers) - 1))] if powers else None,
                        "max": powers[-1] if powers else None,
                        "histogram": {label: count for label in BUCKETS
                                      if (count := sum(1 for p in powers if _bucket(p) == label))}},
        "table_cannot_win_share": rate(hopeless, len(fights)),
        "fights_won_share": rate(sum(1 for f in fights if f["won"]), len(fights)),
        "multiplied_fights": {"count": len(multiplied), "won_share": rate(sum(f["won"] for f in multiplied), len(multiplied))},
        "power_27_or_more": {"count": len(huge), "per_game": round(len(huge) / len(records), 4) if records else 0,
                             "games_with_one": rate(sum(1 for r in records if any(f["power"] >= 27 for f in r["fights"])), len(records)),
                             "beaten_share": rate(sum(f["won"] for f in huge), len(huge)),
                             "winnable_share": rate(sum(f["could_win"] for f in huge), len(huge))},
        "three_then_nine": {"count": len(three_nine), "beaten": sum(f["won"] for f in three_nine)},
        "win_rate_by_guild": {g: rate(guild_wins[g], guild_seats[g]) for g in sorted(guild_seats, key=str)},
        "seats_by_guild": {g: guild_seats[g] for g in sorted(guild_seats, key=str)},
        "win_rate_by_hand_strength_rank": {str(k): rate(rank_wins[k], rank_seats[k]) for k in sorted(rank_seats)},
        "win_rate_by_hand_strength_band": {f"{k}-{k + 9}" if k < 50 else "50+": rate(strength_wins[k], strength_seats[k])
                                           for k in sorted(strength_seats)},
        "mean_treasures_won": round(statistics.fmean(sum(r["treasures"]) for r in records), 3) if records else 0,
    }
