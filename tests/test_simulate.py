"""The simulator: reproducible for a seed whatever the process count, one common report, the CLI."""
from __future__ import annotations

import json

import pytest

from companion.cli import main
from companion.simulate import chosen as chosen_sim
from companion.simulate.runner import aggregate, game_seed, seats_for_game, simulate

FAST = {"max_turns": 120}


def test_game_seeds_depend_only_on_run_seed_and_game_number():
    assert game_seed(7, 3) == game_seed(7, 3)
    assert len({game_seed(7, n) for n in range(50)} | {game_seed(8, 0)}) == 51
    assert 0 <= game_seed(2**70, 5) < 2**63


def test_seats_rotate_through_strategies():
    assert seats_for_game(["a", "b"], 3, 0) == ["a", "b", "a"]
    assert seats_for_game(["a", "b"], 3, 1) == ["b", "a", "b"]


def test_same_seed_same_report_with_one_or_two_processes():
    one = simulate("chosen", games=6, seed=11, options=FAST, processes=1)
    two = simulate("chosen", games=6, seed=11, options=FAST, processes=2)
    assert one == two
    assert simulate("chosen", games=6, seed=12, options=FAST, processes=1) != one


def test_report_fields():
    report = simulate("chosen", games=5, seed=1, players=3, options=FAST, strategies=["greedy"], processes=1)
    assert report["game"] == "chosen" and report["games"] == 5 and report["players"] == 3
    assert report["strategies"] == ["greedy"] and report["options"] == FAST
    assert len(report["win_rate_by_seat"]) == 3
    assert sum(report["end_reasons"].values()) == 5
    wins = round(sum(report["win_rate_by_seat"]) * 5)
    assert wins + report["draws"] == 5  # no teams: one winner or none per game
    assert report["win_rate_by_strategy"]["greedy"] == pytest.approx(wins / 15, abs=1e-3)
    length = report["length"]
    assert length["median"] <= length["p90"] <= length["max"] and length["mean"] <= length["max"]
    assert set(report["details"]) >= {"vault_pass_rate", "verdicts_per_game", "reshuffles_per_game"}


def test_default_players_and_strategies():
    report = simulate("chosen", games=2, seed=0, options=FAST, processes=1)
    assert report["players"] == 4 and report["strategies"] == list(chosen_sim.STRATEGIES)
    assert {"cautious", "greedy"} <= set(chosen_sim.STRATEGIES)


def test_bot_games_are_real_games():
    record = chosen_sim.play_one(game_seed(3, 0), 4, {}, ["greedy", "cautious", "greedy", "cautious"])
    assert record["end"] == "target_reached"
    winner = record["winners"][0]
    assert record["scores"][winner] >= 4 and sum(record["scores"]) == record["chips_scored"]
    assert record["verdicts"] == record["passed"] + record["shot_radiation_on_chosen"] + record["shot_not_enough_medicine"]


def test_turn_limit_ends_as_a_draw():
    record = chosen_sim.play_one(5, 4, {"max_turns": 3}, ["greedy"] * 4)
    assert record == {**record, "winners": [], "turns": 3, "end": "turn_limit"}


def test_rule_options_reach_the_engine():
    report = simulate("chosen", games=3, seed=2, players=5, options={"second_deck": "never", **FAST}, processes=1)
    assert report["details"]["decks"] == [1]
    report = simulate("chosen", games=3, seed=2, players=5, options=FAST, processes=1)
    assert report["details"]["decks"] == [2]


def test_aggregate_counts_team_wins_for_every_member():
    records = [{"winners": [0, 2], "turns": 10, "end": "target_reached", "seats": ["a", "b", "a", "b"]},
               {"winners": [], "turns": 30, "end": "turn_limit", "seats": ["b", "a", "b", "a"]}]
    report = aggregate("chosen", 0, 4, {}, ["a", "b"], records, {})
    assert report["win_rate_by_seat"] == [0.5, 0.0, 0.5, 0.0]
    assert report["win_rate_by_strategy"] == {"a": 0.5, "b": 0.0}
    assert report["draws"] == 1 and report["end_reasons"] == {"target_reached": 1, "turn_limit": 1}
    assert report["length"] == {"mean": 20.0, "median": 20.0, "p90": 30, "max": 30}


@pytest.mark.parametrize("kwargs,message", [
    ({"game": "poker"}, "unknown game"),
    ({"games": 0}, "at least 1"),
    ({"strategies": ["reckless"]}, "unknown chosen strategy"),
    ({"processes": 0}, "processes"),
    ({"players": 9}, "2-8 players"),
    ({"options": {"colour": "red"}}, "unknown option"),
    ({"options": {"max_turns": 0}}, "max_turns"),
])
def test_bad_parameters(kwargs, message):
    params = {"game": "chosen", "games": 2, "seed": 0, **kwargs}
    with pytest.raises(ValueError, match=message):
        simulate(**params)


def test_cli_json(capsys):
    assert main(["simulate", "chosen", "--games", "4", "--seed", "5", "--players", "3", "--option", "max_turns=100",
                 "--strategy", "cautious", "--strategy", "greedy", "--processes", "1", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 4 and report["players"] == 3 and report["options"] == {"max_turns": 100}
    assert report["strategies"] == ["cautious", "greedy"]
    assert report == simulate("chosen", 4, 5, 3, {"max_turns": 100}, ["cautious", "greedy"], processes=2)


def test_cli_text_and_errors(capsys):
    assert main(["simulate", "chosen", "--games", "2", "--option", "max_turns=60", "--processes", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("chosen: 2 games, seed 0, 4 players") and "win rate by strategy" in out
    assert main(["simulate", "chosen", "--games", "2", "--option", "oops"]) == 2
    assert "name=value" in capsys.readouterr().err
    assert main(["simulate", "chosen", "--games", "2", "--option", "target_chips=abc"]) == 2
    assert "target_chips" in capsys.readouterr().err


def test_team_games_give_every_member_the_win():
    report = simulate("chosen", games=6, seed=4, players=4, options={"teams": 2, **FAST}, processes=1)
    rates = report["win_rate_by_seat"]
    assert rates[0] == rates[2] and rates[1] == rates[3]  # seats 0, 2 and 1, 3 are team-mates
    assert round((rates[0] + rates[1]) * 6) + report["draws"] == 6
    with pytest.raises(ValueError, match="teams"):
        simulate("chosen", games=1, seed=0, players=4, options={"teams": 3})
