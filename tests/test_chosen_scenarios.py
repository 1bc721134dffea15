"""Every shipped scenario file is a test: replayed through the engine, its expectations must hold."""
from __future__ import annotations

import json
import pathlib

import pytest

from companion.cli import main
from companion.games.chosen.scenario import load, run

SCENARIOS = sorted((pathlib.Path(__file__).resolve().parent.parent / "docs" / "scenarios" / "chosen").glob("*.json"))


def test_the_seed_examples_are_shipped():
    names = {path.stem for path in SCENARIOS}
    assert {"vault_pass_one_radiated_one_medicine", "vault_fails_radiation_cancels_medicine"} <= names


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario(path):
    result = run(load(path))
    assert result.ok, result.failures


def test_a_wrong_expectation_is_reported():
    scenario = load(next(p for p in SCENARIOS if p.stem == "vault_pass_one_radiated_one_medicine"))
    scenario["expect"] = {"players": [{"score": 99}, {}], "log_contains": ["Bob scores"]}
    result = run(scenario)
    assert result.failures == ["view.players[0].score: expected 99, got 2", "log has no line containing 'Bob scores'"]


def test_an_unexpected_refusal_is_reported():
    scenario = load(next(p for p in SCENARIOS if p.stem == "vault_pass_one_radiated_one_medicine"))
    scenario["events"].insert(1, {"type": "chip", "onto": "Bob", "card": "5H"})  # a second chip this turn
    result = run(scenario)
    assert not result.ok and "already put a chip" in result.error and result.applied == 1


def test_replay_command_text_and_json(capsys):
    path = next(p for p in SCENARIOS if p.stem == "vault_pass_one_radiated_one_medicine")
    assert main(["chosen", "replay", str(path)]) == 0
    text = capsys.readouterr().out
    assert "Ann scores 2" in text and "Ann: score 2" in text
    assert main(["chosen", "replay", str(path), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["view"]["players"][0]["score"] == 2 and data["expectations_failed"] == []
    assert "hand" not in data["view"]["players"][0]


def test_replay_command_referee_view_shows_hidden_faces(capsys):
    path = next(p for p in SCENARIOS if p.stem == "illegal_chip_on_self_after_send")
    assert main(["chosen", "replay", str(path), "--format", "json", "--referee"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["view"]["mat"][0]["chips"][0]["face"] == "3H"


def test_replay_command_failing_expectation_exits_1(tmp_path, capsys):
    scenario = load(next(p for p in SCENARIOS if p.stem == "vault_pass_one_radiated_one_medicine"))
    scenario["expect"] = {"phase": "over"}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(scenario))
    assert main(["chosen", "replay", str(path)]) == 1
    assert "EXPECTATION FAILED" in capsys.readouterr().out


@pytest.mark.parametrize("content,message", [(None, "no such file"),
                                             ("{", "not JSON (a key in double quotes was expected at line 1, character 2)"),
                                             ("[]", "a scenario needs 'setup' and a list of 'events'")])
def test_replay_command_bad_files(tmp_path, capsys, content, message):
    path = tmp_path / "s.json"
    if content is not None:
        path.write_text(content)
    assert main(["chosen", "replay", str(path)]) == 2
    assert capsys.readouterr().err.strip() == f"companion: error: {path}: {message}"
