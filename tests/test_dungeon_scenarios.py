"""The shipped scenario files replay to the final states they document, field by field."""
from __future__ import annotations

import json
import pathlib

import pytest

from companion.cli import main
from companion.messages import english, from_json
from companion.games.dungeon import ENGINE, audit
from companion.games.dungeon.scenario import load, run, setup_of

FOLDER = pathlib.Path(__file__).resolve().parents[1] / "docs" / "scenarios" / "dungeon"
FILES = sorted(FOLDER.glob("*.json"))


def test_the_seed_examples_are_shipped():
    names = {path.stem for path in FILES}
    assert {"three_then_nine_makes_27", "level_five_calls_a_treasure", "rest_area_returns_oldest",
            "full_short_game"} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_scenario_meets_its_expectations(path):
    scenario = load(path)
    assert scenario.get("expect"), "a shipped scenario states what it expects"
    result = run(scenario)
    assert result.failures == []
    assert result.error is None or "illegal" in scenario["expect"]
    assert audit(result.state) == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_scenario_replays_identically_and_conserves_cards_at_every_step(path):
    scenario = load(path)
    refused = scenario["expect"].get("illegal", {}).get("event")
    events = scenario["events"][:refused - 1] if refused else scenario["events"]
    state = ENGINE.new_game(setup_of(scenario))
    for event in events:
        state = ENGINE.apply(state, event)
        assert audit(state) == []
    assert state == run(scenario).state


def test_three_then_nine_final_state_field_by_field():
    view = ENGINE.view(run(load(FOLDER / "three_then_nine_makes_27.json")).state)
    fight = view["history"][1]
    assert (fight["card"], fight["enemy_power"], fight["multiplier"], fight["marker"]) == ("9S", 27, 3, "3D")
    assert english(from_json(fight["enemy_power_text"])) == "9♠ 9 × 3 by the 3♦ marker"
    assert view["players"][0]["trophies"] == ["9S"] and view["players"][0]["treasures"] == ["5H"]
    assert view["marker"] is None and view["exile"] == ["3D"]


def test_a_failed_expectation_is_reported(tmp_path):
    scenario = json.loads((FOLDER / "rest_area_returns_oldest.json").read_text())
    scenario["expect"]["players"][0]["hand_count"] = 6
    result = run(scenario)
    assert result.failures == ["view.players[0].hand_count: expected 6, got 5"]


def test_cli_replay_text_and_json(tmp_path, capsys):
    assert main(["dungeon", "replay", str(FOLDER / "full_short_game.json")]) == 0
    out = capsys.readouterr().out
    assert "Ann is the last player left and wins." in out and "Bob (out)" in out
    assert main(["dungeon", "replay", str(FOLDER / "three_then_nine_makes_27.json"), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["expectations_failed"] == [] and data["view"]["history"][1]["enemy_power"] == 27
    broken = tmp_path / "broken.json"
    scenario = json.loads((FOLDER / "rest_area_returns_oldest.json").read_text())
    scenario["expect"]["dungeon_count"] = 1
    broken.write_text(json.dumps(scenario))
    assert main(["dungeon", "replay", str(broken)]) == 1
    assert "EXPECTATION FAILED: view.dungeon_count: expected 1, got 26" in capsys.readouterr().out


def test_cli_replay_bad_files_give_one_clean_error(tmp_path, capsys):
    missing = tmp_path / "missing.json"
    assert main(["dungeon", "replay", str(missing)]) == 2
    assert capsys.readouterr().err.strip() == f"companion: error: {missing}: no such file"
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["dungeon", "replay", str(bad)]) == 2
    assert capsys.readouterr().err.strip() == f"companion: error: {bad}: not JSON (a key in double quotes was expected at line 1, character 2)"
    illegal = tmp_path / "illegal.json"
    illegal.write_text(json.dumps({"players": ["Ann", "Bob"], "events": [{"type": "resolve"}]}))
    assert main(["dungeon", "replay", str(illegal)]) == 2
    assert "event 1 (resolve)" in capsys.readouterr().err


def test_the_documented_example_scenario_runs():
    text = (FOLDER.parents[1] / "dungeon.md").read_text(encoding="utf-8")
    block = text.split("```json\n{\n  \"name\"", 1)[1].split("```", 1)[0]
    scenario = json.loads("{\n  \"name\"" + block)
    result = run(scenario)
    assert result.failures == [] and result.error is None
