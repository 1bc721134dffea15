"""The Guilds and Dungeon bots play legal games through the real engine; the report is reproducible."""
from __future__ import annotations

import json

import pytest

from companion.games.dungeon import ENGINE, audit
from companion.simulate import dungeon as sim
from companion.simulate.runner import simulate


def test_strategies_are_documented():
    assert {"cautious", "greedy"} <= set(sim.STRATEGIES)
    assert all(isinstance(text, str) and len(text) > 20 for text in sim.STRATEGIES.values())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_play_one_is_reproducible_and_json_ready(players):
    seats = ["cautious", "greedy", "greedy", "cautious"][:players]
    record = sim.play_one(12345, players, {}, seats)
    assert record == sim.play_one(12345, players, {}, seats)
    json.dumps(record)
    assert record["end"] in {"last_player", "trophies", "dungeon_empty", "all_out"}
    assert all(0 <= w < players for w in record["winners"])
    assert len(record["hand_strength"]) == players and len(record["guilds"]) == players
    for fight in record["fights"]:
        assert fight["power"] >= 0 and isinstance(fight["could_win"], bool) and isinstance(fight["won"], bool)
        if fight["won"]:
            assert fight["players_total"] >= fight["power"]


def test_bots_only_play_legal_events_and_cards_are_conserved(monkeypatch):
    applied = []
    original = ENGINE.apply

    def checked(state, event):
        after = original(state, event)
        assert audit(after) == []
        applied.append(event["type"])
        return after

    monkeypatch.setattr(sim.ENGINE, "apply", checked)
    for seed in range(4):
        sim.play_one(seed, 3, {"friend_calls_friend": True}, ["greedy", "cautious", "greedy"])
    assert {"reveal", "commit", "resolve", "choose_guild"} <= set(applied)


@pytest.mark.parametrize("options", [{}, {"ties_go_to_enemy": True}])
def test_fight_records_carry_the_engine_verdicts(options):
    fights = [f for seed in range(5) for f in sim.play_one(seed, 3, options, ["greedy"] * 3)["fights"]]
    assert fights and any(f["marker"] for f in fights)
    for f in fights:
        if f["card"]:
            assert f["power"] >= f["printed"] * f["multiplier"]  # after doubling, friends added
        beaten = f["players_total"] > f["power_at_verdict"] if options else f["players_total"] >= f["power_at_verdict"]
        assert f["won"] == beaten


def test_summarize_reports_the_designer_questions():
    records = [sim.play_one(seed, 3, {}, ["cautious", "greedy", "greedy"]) for seed in range(6)]
    summary = sim.summarize(records)
    fights = sum(len(r["fights"]) for r in records)
    assert summary["fights"] == fights
    assert sum(summary["enemy_power"]["histogram"].values()) == fights
    assert 0 <= summary["table_cannot_win_share"] <= 1
    assert set(summary["win_rate_by_guild"]) <= {"S", "D", "C", "H"}
    assert sum(summary["seats_by_guild"].values()) == 18
    hopeless_won = [f for r in records for f in r["fights"] if not f["could_win"] and f["won"]]
    assert hopeless_won == []  # a fight the hands could not cover is never won


def test_simulate_report_does_not_depend_on_process_count():
    one = simulate("dungeon", games=8, seed=3, options={}, processes=1)
    two = simulate("dungeon", games=8, seed=3, options={}, processes=2)
    assert one == two and one["games"] == 8 and one["players"] == 3
    assert one["details"]["fights"] > 0


def test_bad_simulation_setups_fail_early():
    with pytest.raises(ValueError, match="2 to 4"):
        sim.check_setup(5, {})
    with pytest.raises(ValueError, match="unknown option"):
        sim.check_setup(3, {"nope": 1})
