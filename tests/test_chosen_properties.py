"""Random event sequences, legal or not, through The Chosen: cards are conserved, refusals change
nothing, and replaying the accepted events rebuilds the same state."""
from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games import replay
from companion.games.base import IllegalEvent
from companion.games.chosen import CHOSEN, ENGINE, MEDICINE, role
from companion.games.chosen.pieces import ONE_DECK

CODES = list(ONE_DECK) + ["BACK"]


def random_event(data, state) -> dict:
    """Mostly plausible events built from the state, sometimes nonsense, so both paths get exercised."""
    me = state.turn.player
    hand = [c for c in state.hands[me] if c and role(c) != "back"] or CODES
    kind = data.draw(st.sampled_from(["chip", "chip", "send", "send", "play", "play", "play", "end_turn", "end_turn",
                                      "reveal", "set_hand_size"]))
    if kind == "chip":
        card = data.draw(st.one_of(st.sampled_from(hand), st.sampled_from(hand), st.none(), st.sampled_from(CODES)))
        onto = data.draw(st.one_of(st.just(me), st.integers(0, state.players)))
        return {"type": "chip", "onto": onto, "card": card}
    if kind == "send":
        chips = len(state.areas[me])
        chosen = [c for c in hand if role(c) == CHOSEN] if hand is not CODES else []
        medicine = [c for c in hand if role(c) == MEDICINE] if hand is not CODES else []
        return {"type": "send", "card": data.draw(st.sampled_from(chosen or hand)),
                "medicine": data.draw(st.lists(st.sampled_from(medicine or hand), max_size=2)),
                "discard": data.draw(st.lists(st.integers(0, chips), max_size=chips, unique=True))}
    if kind == "play":
        ids = [c.id for c in state.mat] * 3 + [99]
        return {"type": "play", "card": data.draw(st.sampled_from(hand)), "chosen": data.draw(st.sampled_from(ids))}
    if kind == "reveal":
        unseen = sum(c.face is None for c in state.pending[0].chips) if state.pending else 1
        return {"type": "reveal", "faces": data.draw(st.lists(st.sampled_from(CODES[:-1]), min_size=unseen, max_size=unseen))}
    if kind == "set_hand_size":
        return {"type": "set_hand_size", "player": data.draw(st.integers(0, state.players - 1)),
                "size": data.draw(st.integers(0, 16))}
    return {"type": "end_turn"}


def run_random_game(data, setup, steps):
    state = ENGINE.new_game(setup)
    ENGINE.check_conservation(state)
    accepted = []
    for _ in range(steps):
        event = random_event(data, state)
        before = copy.deepcopy(state)
        try:
            after = ENGINE.apply(state, event)
        except IllegalEvent:
            assert state == before, "a refused event changed the state"
            continue
        ENGINE.check_conservation(after)
        accepted.append(event)
        state = after
        if state.phase == "over":
            break
    assert replay(ENGINE, setup, accepted) == state
    return state, accepted


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), players=st.integers(2, 8), seed=st.integers(0, 2**31),
       move_new=st.booleans(), strict=st.booleans())
def test_seeded_games_conserve_cards_and_replay(data, players, seed, move_new, strict):
    setup = {"players": [f"P{i}" for i in range(players)], "seed": seed,
             "options": {"move_sent_this_turn": move_new, "step_order": "strict" if strict else "free",
                         "must_carry_chip": data.draw(st.booleans()), "target_chips": 2}}
    run_random_game(data, setup, steps=200)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), players=st.integers(2, 6))
def test_live_tables_conserve_cards_and_replay(data, players):
    setup = {"players": [f"P{i}" for i in range(players)], "seed": None, "options": {"target_chips": 2}}
    state, _ = run_random_game(data, setup, steps=120)
    # the public view never names a card the companion only saw face down
    public = ENGINE.view(state)
    for player in public["players"]:
        assert all(set(chip) == {"placed_by", "turn"} for chip in player["chips"])
    assert "hand" not in public["players"][0] and "draw" not in public


class RecordingEngine:
    """The real engine, remembering every accepted event and checking conservation after it."""

    def __init__(self):
        self.events = []

    def __getattr__(self, name):
        return getattr(ENGINE, name)

    def apply(self, state, event):
        after = ENGINE.apply(state, event)
        ENGINE.check_conservation(after)
        self.events.append(event)
        return after


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.integers(2, 8))
def test_bot_games_conserve_cards_through_reshuffles_and_replay(seed, players):
    import companion.simulate.chosen as bots

    recorder = RecordingEngine()
    original = bots.ENGINE
    bots.ENGINE = recorder
    try:
        record = bots.play_one(seed, players, {"max_turns": 150}, ["greedy", "cautious"] * 4)
    finally:
        bots.ENGINE = original
    setup = bots._setup(players, {}, seed)
    final = replay(ENGINE, setup, recorder.events)
    assert list(final.score) == record["scores"] and final.reshuffles == record["reshuffles"]
    assert list(final.winners) == record["winners"]
