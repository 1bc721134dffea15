"""Bots for The Chosen, playing through the real engine (every move is an engine event).

A bot sees what a player at the table sees: its own hand, the public mat and scores, and the faces
of the chips it put down itself (people remember those). It never reads another hand, the draw
pile or a chip another player put down.
"""
from __future__ import annotations

from companion.games.base import IllegalEvent
from companion.games.chosen import CHOSEN, ENGINE, MEDICINE, RADIATION, State, role

DEFAULT_PLAYERS = 4
DEFAULT_MAX_TURNS = 600  # a simulator option, not a rule: games still running then end as "turn_limit"
# Options the simulator itself reads; every other option is a rule option passed to the engine.
# teams=N seats players alternately in N teams (seat i in team i % N).
SIMULATOR_OPTIONS = ("max_turns", "teams")

STRATEGIES: dict[str, str] = {
    "cautious": "carries only chips it put down itself, stacks medicine for every radiation risk, "
                "radiates the rival closest to winning",
    "greedy": "puts a chip on itself every turn it can, sends as soon as possible carrying every chip, "
              "radiates every rival chosen it can reach",
}


def check_setup(players: int, options: dict) -> None:
    """Raises the engine's own error for a bad player count or rule option."""
    limit = options.get("max_turns", DEFAULT_MAX_TURNS)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"max_turns must be a whole number of at least 1, got {limit!r}")
    teams = options.get("teams", 0)
    if isinstance(teams, bool) or not isinstance(teams, int) or teams == 1 or not 0 <= teams <= players // 2:
        raise ValueError(f"teams must be 0 (no teams) or 2-{max(2, players // 2)} teams of at least 2 players, got {teams!r}")
    ENGINE.new_game(_setup(players, options, seed=0))


def _setup(players: int, options: dict, seed: int) -> dict:
    rules = {k: v for k, v in options.items() if k not in SIMULATOR_OPTIONS}
    teams = options.get("teams", 0)
    seats = [{"name": f"P{seat}", **({"team": f"T{seat % teams}"} if teams else {})} for seat in range(players)]
    return {"players": seats, "options": rules, "seed": seed}


def _pick(hand: list[str], kinds: tuple[str, ...]) -> str | None:
    for kind in kinds:
        for code in hand:
            if role(code) == kind:
                return code
    return None


def _rival(state: State, seat: int) -> int:
    """The opponent closest to winning: most points, then most chips waiting in their area."""
    rivals = [p for p in range(state.players) if state.teams[p] != state.teams[seat]]
    return max(rivals, key=lambda p: (state.score[p], len(state.areas[p]), -((p - seat) % state.players)))


def _turn(state: State, seat: int, strategy: str) -> State:
    """Plays one whole turn for ``seat`` and returns the state after ``end_turn``."""
    cautious = strategy == "cautious"
    hand = list(state.hands[seat])
    has_chosen = any(role(c) == CHOSEN for c in hand)
    own_chips = state.areas[seat]
    safe_known = [i for i, chip in enumerate(own_chips) if chip.placed_by == seat and role(chip.face) != RADIATION]
    # Decide whether to send this turn before deciding where the chip goes (a chip on yourself forbids sending).
    if cautious:
        will_send = has_chosen and len(safe_known) >= 2
    else:
        will_send = has_chosen and len(own_chips) >= 1
    has_rivals = any(state.teams[p] != state.teams[seat] for p in range(state.players))

    # Step 2: one chip.
    if hand:
        if will_send and has_rivals:
            rival = _rival(state, seat)
            card = _pick(hand, (RADIATION, CHOSEN, MEDICINE))
            state = ENGINE.apply(state, {"type": "chip", "onto": rival, "card": card})
        elif not will_send:
            # A safe face on yourself; keep medicine for the chosen and one chosen to send.
            spare_chosen = [c for c in hand if role(c) == CHOSEN][1:]
            card = spare_chosen[0] if spare_chosen else _pick(hand, (MEDICINE, CHOSEN) if cautious else (MEDICINE, CHOSEN, RADIATION))
            if card is not None:
                state = ENGINE.apply(state, {"type": "chip", "onto": seat, "card": card})
            elif has_rivals:
                state = ENGINE.apply(state, {"type": "chip", "onto": _rival(state, seat), "card": hand[0]})

    # Step 3: send.
    hand = list(state.hands[seat])
    chips = state.areas[seat]
    chosen_card = _pick(hand, (CHOSEN,))
    if will_send and chosen_card and chips and state.turn.chip_onto != seat:
        if cautious:
            discard = [i for i, chip in enumerate(chips) if chip.placed_by != seat or role(chip.face) == RADIATION]
        else:
            discard = []
        if len(discard) == len(chips):
            discard = discard[1:]  # the rules want at least one chip carried
        carried = [chip for i, chip in enumerate(chips) if i not in discard]
        risky = sum(1 for chip in carried if chip.placed_by != seat or role(chip.face) == RADIATION)
        medicine = [c for c in hand if role(c) == MEDICINE]
        stack = medicine[: risky + (1 if cautious else 0)] if cautious else medicine[: max(risky, 1)]
        state = ENGINE.apply(state, {"type": "send", "card": chosen_card, "medicine": stack, "discard": discard})

    # Step 4: cards onto chosen.
    for chosen in list(state.mat):
        hand = list(state.hands[seat])
        current = next((c for c in state.mat if c.id == chosen.id), None)
        if current is None:
            continue
        if state.teams[current.owner] == state.teams[seat]:
            # Cure my (or my team-mate's) chosen; own chosen take any number of cards.
            while current.radiation and MEDICINE in map(role, hand):
                card = _pick(hand, (MEDICINE,))
                try:
                    state = ENGINE.apply(state, {"type": "play", "card": card, "chosen": current.id})
                except IllegalEvent:
                    break  # a team-mate's chosen: one card per turn
                hand.remove(card)
                current = next(c for c in state.mat if c.id == current.id)
        else:
            target_owner = _rival(state, seat) if cautious else current.owner
            card = _pick(hand, (RADIATION,))
            if card and current.owner == target_owner:
                state = ENGINE.apply(state, {"type": "play", "card": card, "chosen": current.id})
    return ENGINE.apply(state, {"type": "end_turn"})


def play_one(game_seed: int, players: int, options: dict, seats: list[str]) -> dict:
    """One self-play game; the record the runner aggregates."""
    max_turns = int(options.get("max_turns", DEFAULT_MAX_TURNS))
    state = ENGINE.new_game(_setup(players, options, seed=game_seed))
    while state.phase == "turn" and state.turn.number <= max_turns:
        state = _turn(state, state.turn.player, seats[state.turn.player])
    ended = state.phase == "over"
    verdicts = state.verdicts
    return {
        "winners": list(state.winners),
        "turns": state.turn.number if ended else max_turns,
        "end": "target_reached" if ended else "turn_limit",
        "scores": list(state.score),
        "verdicts": len(verdicts),
        "passed": sum(v.passed for v in verdicts),
        "shot_radiation_on_chosen": sum(v.reason == "radiation on the chosen" for v in verdicts),
        "shot_not_enough_medicine": sum(v.reason == "not enough medicine" for v in verdicts),
        "chips_scored": sum(v.points for v in verdicts),
        "reshuffles": state.reshuffles,
        "decks": state.decks,
    }


def summarize(records: list[dict]) -> dict:
    games = len(records) or 1
    verdicts = sum(r["verdicts"] for r in records)
    passed = sum(r["passed"] for r in records)
    return {
        "verdicts_per_game": round(verdicts / games, 3),
        "vault_pass_rate": round(passed / verdicts, 4) if verdicts else None,
        "shot_radiation_on_chosen": sum(r["shot_radiation_on_chosen"] for r in records),
        "shot_not_enough_medicine": sum(r["shot_not_enough_medicine"] for r in records),
        "chips_per_passing_chosen": round(sum(r["chips_scored"] for r in records) / passed, 3) if passed else None,
        "reshuffles_per_game": round(sum(r["reshuffles"] for r in records) / games, 3),
        "decks": sorted({r["decks"] for r in records}),
    }
