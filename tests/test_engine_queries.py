"""The engines' queries (the Engine protocol beyond new_game/apply/view): callers ask instead of guessing."""
import dataclasses

import pytest

from companion.games import GAMES, IllegalEvent, get_engine
from companion.games.base import Engine
from companion.synthetic.scenarios import build_scenario
from companion.table.bindings import KingdomsBinding
from companion.table.events import TableEvent

QUERIES = [name for name in dir(Engine) if not name.startswith("_")]


@pytest.mark.parametrize("game", GAMES)
def test_every_engine_answers_every_query_of_the_protocol(game):
    engine = get_engine(game)
    missing = [name for name in QUERIES + ["name", "option_help"] if not hasattr(engine, name)]
    assert missing == []
    assert set(engine.option_help) == set(engine.option_defaults())   # every option has its help
    assert all(isinstance(text, str) and text and "\n" not in text for text in engine.option_help.values())


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", [2, 3, 4])   # every game seats two to four
def test_option_defaults_are_what_a_new_table_of_that_size_starts_with(game, players):
    engine = get_engine(game)
    state = engine.new_game({"players": [f"P{k}" for k in range(players)]})
    assert engine.option_defaults(players) == engine.view(state)["options"]


@pytest.mark.parametrize("game", GAMES)
def test_a_recorded_game_audits_clean_and_round_complete_says_when_resolve_or_score_is_allowed(game):
    engine = get_engine(game)
    scenario = build_scenario(game, 3)
    setup = dict(scenario.setup)
    if game == "kingdoms":
        setup["options"] = {"auto_score": False}   # the full grid then waits to be scored
    state = engine.new_game(setup)
    closing = {"kingdoms": {"type": "score_round"}, "dungeon": {"type": "resolve"}, "chosen": None}[game]
    for event in scenario.setup_events + scenario.events:
        assert engine.audit(state) == []
        assert isinstance(engine.awaiting(state), list)
        if closing is not None:
            try:
                engine.apply(state, closing)
                allowed = True
            except IllegalEvent:
                allowed = False
            assert engine.round_complete(state) == allowed, (event, engine.view(state).get("phase"))
        state = engine.apply(state, event)
    assert engine.audit(state) == []


def test_dungeon_awaits_the_players_still_to_commit():
    engine = get_engine("dungeon")
    scenario = build_scenario("dungeon", 1)
    state = engine.new_game(scenario.setup)
    for event in scenario.setup_events:
        state = engine.apply(state, event)
    assert engine.awaiting(state) == []
    commits = 0
    for event in scenario.events:
        state = engine.apply(state, event)
        if event["type"] == "reveal":
            assert sorted(engine.awaiting(state)) == ["Ann", "Bob", "Cy"]
        if event["type"] == "commit":
            commits += 1
            assert event["player"] not in engine.awaiting(state) and len(engine.awaiting(state)) == 3 - commits
            assert not engine.round_complete(state)  # committed face down: nothing is turned up yet
        if event["type"] == "resolve":
            commits = 0


def test_chosen_awaits_the_player_whose_turn_it_is():
    engine = get_engine("chosen")
    state = engine.new_game({"players": ["Ann", "Bob"]})
    assert engine.awaiting(state) == ["Ann"] and not engine.round_complete(state)
    state = engine.apply(state, {"type": "chip", "onto": "Bob"})
    state = engine.apply(state, {"type": "end_turn"})
    assert engine.awaiting(state) == ["Bob"]


def test_kingdoms_referee_view_hides_nothing_and_awaits_the_player_to_act():
    engine = get_engine("kingdoms")
    state = engine.new_game({"players": [{"name": "Red", "suits": ["H", "D"]}, {"name": "Black", "suits": ["S", "C"]}]})
    assert engine.referee_view(state) == engine.view(state)
    assert engine.awaiting(state) == ["Red"]


def test_the_camera_leaves_a_full_grid_to_the_referee_when_auto_score_is_off():
    """The phone and the camera behave alike: without auto_score a full grid waits for score_round."""
    scenario = build_scenario("kingdoms", 2)
    setup = {**scenario.setup, "options": {"auto_score": False}}
    binding = KingdomsBinding(setup)
    engine = binding.engine
    for track, event in enumerate(scenario.events, start=1):
        cell = event["cell"]
        binding.handle(TableEvent("placed", event["card"], f"{cell[0]},{cell[1]}", float(track), track, (0.0, 0.0)))
    assert len(binding.state.tiles) == 30 and binding.state.round == 1
    assert engine.round_complete(binding.state) and engine.awaiting(binding.state) == []
    assert all(e["type"] != "score_round" for e in binding.events)
    # the referee scores on the phone (the session replays the binding); the cleared cards change nothing
    binding.state = engine.apply(binding.state, {"type": "score_round"})
    outcome = binding.handle(TableEvent("removed", scenario.events[0]["card"], "6,6", 99.0, 1, (0.0, 0.0)))
    assert outcome.questions == [] and outcome.engine_events == [] and binding.state.round == 2


def test_with_auto_score_on_the_engine_scores_the_30th_card_itself():
    scenario = build_scenario("kingdoms", 2)
    binding = KingdomsBinding(scenario.setup)
    for track, event in enumerate(scenario.events, start=1):
        cell = event["cell"]
        binding.handle(TableEvent("placed", event["card"], f"{cell[0]},{cell[1]}", float(track), track, (0.0, 0.0)))
    assert binding.state.round == 2 and all(e["type"] == "place" for e in binding.events)
    assert dataclasses.replace(binding.state).results  # the round's result is recorded
