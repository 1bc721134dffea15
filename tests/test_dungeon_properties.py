"""Property tests: random legal event sequences conserve every card, replay to the same state, and every
refused event leaves the state exactly as it was."""
from __future__ import annotations

import contextlib
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games import replay, undo
from companion.games.base import IllegalEvent
from companion.games.dungeon import ENGINE as E
from companion.games.dungeon import audit
from companion.games.dungeon.rules import PLAY_DECK, kind
from companion.games.dungeon.state import DungeonState

OPTION_VALUES = {
    "ties_go_to_enemy": st.booleans(), "marker_cleared_by_non_enemy": st.booleans(),
    "low_enemy_multiplied": st.booleans(), "marker_is_trophy": st.booleans(),
    "low_enemy_marks_after_loss": st.booleans(), "friend_multiplied": st.booleans(),
    "friend_calls_friend": st.booleans(), "low_friend_becomes_marker": st.booleans(),
    "trap_miss_card_exiled": st.booleans(), "scroll_can_destroy_enemy": st.booleans(),
    "heart_guild_ability": st.sampled_from(["none", "treasure_ties"]),
    "thief_swap_card": st.sampled_from(["exiled", "dungeon_bottom"]),
    "hand_trap_card": st.sampled_from(["exiled", "back_to_hand"]),
    "rest_area_size": st.integers(1, 3), "hand_size": st.integers(4, 9),
}
options_strategy = st.fixed_dictionaries({}, optional=OPTION_VALUES)


def _names_for(state: DungeonState, p: int, rng: random.Random, k: int = 2) -> list[str]:
    """Cards that may be in seat ``p``'s hand: the known ones and a few unseen ones."""
    unseen = sorted(state.unseen)
    mercenaries = [c for c in unseen if kind(c) == "mercenary"]
    return (list(state.players[p].known) + rng.sample(unseen, min(k, len(unseen)))
            + rng.sample(mercenaries, min(2, len(mercenaries))))


def candidates(state: DungeonState, rng: random.Random) -> list[dict]:
    """Plausible events for this state; many are illegal, the engine decides."""
    n = len(state.players)
    seats = list(range(n))
    unseen = sorted(state.unseen)
    events: list[dict] = []
    phase = state.phase
    if phase == "guilds":
        for p in seats:
            for guild in "SDCH":
                events.append({"type": "choose_guild", "player": p, "guild": guild})
            suit = rng.choice("SDCH")
            held = [c for c in _names_for(state, p, rng) if c.endswith(suit)]
            events.append({"type": "redeal_suit", "player": p, "suit": suit,
                           **({"cards": held} if held and rng.random() < 0.5 else {"count": 1})})
            known = list(state.players[p].known)
            events.append({"type": "redeal_four", "player": p, **({"cards": known[:4]} if len(known) >= 4 else {})})
    if phase == "redeal_four":
        for p in seats:
            known = list(state.players[p].known)
            events.append({"type": "redeal_four", "player": p, **({"cards": known[:4]} if len(known) >= 4 else {})})
    if phase in ("reveal", "friend"):
        events.append({"type": "reveal"})
        events += [{"type": "reveal", "card": c} for c in rng.sample(unseen, min(3, len(unseen)))]
    if phase == "trap":
        for p in seats:
            events.append({"type": "trap_call", "player": p, "call": rng.choice(["odd", "even"])})
            q = (p + 1) % n
            while state.players[q].out and q != p:
                q = (q + 1) % n
            events += [{"type": "trap_draw", "player": p, "card": c} for c in _names_for(state, q, rng)]
            events.append({"type": "trap_draw", "player": p})
    if phase in ("prize", "fight"):
        events.append({"type": "resolve"})
        events.append({"type": "trap_reveal"})
        for p in seats:
            names = _names_for(state, p, rng, 3)
            events += [{"type": "commit", "player": p, "card": c} for c in names]
            events += [{"type": "commit", "player": p}, {"type": "pass", "player": p},
                       {"type": "assign", "player": p}, {"type": "mage_switch", "player": p},
                       {"type": "trap_call", "player": p, "call": rng.choice(["odd", "even"])},
                       {"type": "trap_card", "player": p}]
            events += [{"type": "turn_up", "player": p, "card": c} for c in names]
            events += [{"type": "trap_reveal", "card": c} for c in names]
            events += [{"type": "trap_card", "player": p, "card": c} for c in names]
            for card in names:
                if kind(card) == "scroll":
                    for target in seats + ["enemy"]:
                        events.append({"type": "play_scroll", "player": p, "card": card, "target": target})
                elif kind(card) == "trap":
                    events.append({"type": "play_trap", "player": p, "card": card})
                elif card.endswith("C"):
                    events.append({"type": "thief_swap", "player": p, "card": card})
    if phase != "over" and n > 1 and rng.random() < 0.15:
        a, b = rng.sample(seats, 2)
        a_gives = _names_for(state, a, rng, 1)[:1] if rng.random() < 0.5 else rng.randint(0, 1)
        b_gives = _names_for(state, b, rng, 1)[:1] if rng.random() < 0.5 else rng.randint(0, 1)
        events.append({"type": "trade", "a": a, "b": b, "a_gives": a_gives, "b_gives": b_gives})
    if phase != "over" and rng.random() < 0.05:
        p = rng.choice(seats)
        events.append({"type": "correct_hand_size", "player": p,
                       "count": max(0, state.players[p].hand_count + rng.choice([-1, 1]))})
    return events


def play_random(setup: dict, seed: int, steps: int) -> tuple[DungeonState, list[dict], int]:
    rng = random.Random(seed)
    state = E.new_game(setup)
    assert audit(state) == []
    log: list[dict] = []
    refusals = 0
    for _ in range(steps):
        if state.phase == "over":
            break
        options = candidates(state, rng)
        rng.shuffle(options)
        current, snapshot = state, DungeonState.frozen(state.thawed())  # a deep, independent copy
        for event in options:
            try:
                after = E.apply(state, event)
            except IllegalEvent:
                refusals += 1
                continue
            log.append(event)
            state = after
            break
        else:
            raise AssertionError(f"no legal event among {len(options)} in phase {state.phase}")
        assert current == snapshot  # the refused events before the legal one changed nothing
        problems = audit(state)
        assert problems == [], (log[-1], problems)
    return state, log, refusals


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), mode=st.sampled_from(["seeded", "hidden", "partial"]),
       options=options_strategy)
def test_random_legal_sequences_conserve_cards_and_replay(seed, players, mode, options):
    setup = {"players": ["Ann", "Bob", "Cid", "Dee"][:players], "options": options,
             "seed": seed if mode == "seeded" else None}
    if mode == "partial":  # the referee knows the dungeon's top few cards and one card of each hand
        deck = list(PLAY_DECK)
        random.Random(seed).shuffle(deck)
        setup["deal"] = {"hands": [[deck[i]] for i in range(players)], "dungeon": deck[players:players + 5]}
    state, log, _ = play_random(setup, seed, 90)
    assert replay(E, setup, log) == state
    if log:
        previous, kept = undo(E, setup, log)
        assert previous == replay(E, setup, log[:-1])
    # The view is JSON-ready at the end of any sequence.
    import json
    json.dumps(E.view(state))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), hidden=st.booleans())
def test_refused_events_leave_the_state_unchanged(seed, hidden):
    setup = {"players": ["Ann", "Bob", "Cid"], "seed": None if hidden else seed}
    state, _, _ = play_random(setup, seed, 30)
    rng = random.Random(seed + 1)
    before_view = E.view(state)
    before = DungeonState.frozen(state.thawed())
    for event in candidates(state, rng):
        with contextlib.suppress(IllegalEvent):
            E.apply(state, event)
        # refused or not, the state given to apply never changes (an accepted event makes a new one)
        assert state == before and E.view(state) == before_view
