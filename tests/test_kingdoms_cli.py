"""``companion kingdoms score``: JSON and text output, partial boards, and every kind of bad file."""
from __future__ import annotations

import json
import pathlib

import pytest

from companion.cli import main

GOLDEN = json.loads((pathlib.Path(__file__).parent / "kingdoms_boards" / "seed_example.json").read_text())


def write(tmp_path, name, data):
    path = tmp_path / name
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def golden_file(tmp_path, key="board_face_up", name="golden.json"):
    return write(tmp_path, name, {"players": GOLDEN["players"], "board": GOLDEN[key]})


@pytest.mark.parametrize("key", ["board_face_up", "board_as_the_camera_sees_it"])
def test_json_output_matches_the_golden_example(tmp_path, capsys, key):
    path = golden_file(tmp_path, key)
    assert main(["kingdoms", "score", path, "--format", "json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert result == {"file": path, "totals": GOLDEN["totals"], "castles": GOLDEN["castles"], "warnings": []}


def test_text_output_draws_the_board_and_explains(tmp_path, capsys):
    assert main(["kingdoms", "score", golden_file(tmp_path), "--format", "text"]) == 0
    out = capsys.readouterr().out
    assert "A♥   10♠   10♥" in out
    assert "total (0 + 7) × 4 = 28" in out
    assert "cancelled by the dragon at (2,3)" in out and "behind the mountain at (4,4)" in out
    assert "totals: black 50, red 53" in out


def test_knizia_rules_flag_changes_the_scores(tmp_path, capsys):
    path = golden_file(tmp_path)
    assert main(["kingdoms", "score", path, "--rules", "knizia"]) == 0
    knizia = json.loads(capsys.readouterr().out)
    assert knizia["totals"] != GOLDEN["totals"]
    king = next(c for c in knizia["castles"] if c["cell"] == [2, 4])
    # Row 2 holds the dragon: 6H, 4H, 4D are 0 there; column 4 (rows 1-3) has no dragon or gold mine: 2 + 3.
    assert (king["row"], king["column"], king["total"]) == (0, 5, 20)


def test_partial_boards_and_backs_are_scored_with_a_warning(tmp_path, capsys):
    board = [row[:] for row in GOLDEN["board_as_the_camera_sees_it"][:2]]
    board[0][0] = None
    assert main(["kingdoms", "score", write(tmp_path, "p.json", {"players": GOLDEN["players"], "board": board})]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["warnings"] == ["the board is not full: 11 of 30 cells hold a card; scored as it stands"]
    assert {c["owner"] for c in result["castles"]} == {"black", "red"}


def test_bad_files_give_one_error_line_each_and_the_good_ones_are_still_scored(tmp_path, capsys):
    good = golden_file(tmp_path)
    bad = [
        (write(tmp_path, "nojson.json", "{nope"), "not JSON"),
        (write(tmp_path, "list.json", [1, 2]), "JSON object"),
        (write(tmp_path, "noboard.json", {"players": GOLDEN["players"]}), "missing \"board\""),
        (write(tmp_path, "noplayers.json", {"board": [["AH"]]}), "missing \"players\""),
        (write(tmp_path, "shape.json", {"players": GOLDEN["players"], "board": [["AH"], ["2H", "3H"]]}), "same length"),
        (write(tmp_path, "card.json", {"players": GOLDEN["players"], "board": [["QQ"]]}), "unknown"),
        (write(tmp_path, "club.json", {"players": GOLDEN["players"], "board": [["4C"]]}), "not a Kingdoms card"),
        (write(tmp_path, "wide.json", {"players": GOLDEN["players"], "board": [["AH"] + [None] * 5 + ["2H"]]}), "7 column"),
        (write(tmp_path, "back.json", {"players": GOLDEN["players"], "board": [["BACK", "AH"]]}), "dragon"),
        (write(tmp_path, "seats.json", {"players": {"solo": ["H", "D"]}, "board": [["AH"]]}), "2 to 4"),
        (str(tmp_path / "missing.json"), "no such file"),
        (str(tmp_path), "a folder, not a file"),
        (write(tmp_path, "latin1.json", "{\"players\": \"caf\xe9\"}".encode("latin-1")), "not a UTF-8 text file"),
    ]
    assert main(["kingdoms", "score", bad[0][0], good, *[path for path, _ in bad[1:]], good]) == 2
    captured = capsys.readouterr()
    assert [json.loads(line)["totals"] for line in captured.out.splitlines()] == [GOLDEN["totals"]] * 2
    errors = captured.err.splitlines()
    assert len(errors) == len(bad)
    for line, (path, message) in zip(errors, bad):
        assert line.startswith(f"companion: error: {path}: ") and message in line


def test_options_in_the_file_and_flags(tmp_path, capsys):
    board = [["10H", "7C", "4H"]]
    path = write(tmp_path, "w.json", {"players": GOLDEN["players"], "board": board, "options": {"rules": "knizia", "wizard": "7C"}})
    assert main(["kingdoms", "score", path]) == 0
    assert json.loads(capsys.readouterr().out)["castles"] == [
        {"owner": "red", "cell": [1, 1], "rank": 2, "row": 4, "column": 0, "total": 8}]
    assert main(["kingdoms", "score", path, "--rules", "poker"]) == 2
    assert "knizia" in capsys.readouterr().err
    three = write(tmp_path, "d.json", {"players": GOLDEN["players"], "board": [["10H", "10H", "10H"]]})
    assert main(["kingdoms", "score", three]) == 2
    assert "3 copies" in capsys.readouterr().err
    assert main(["kingdoms", "score", three, "--decks", "3"]) == 0      # three decks hold three 10♥; red owns four 10s
    assert len(json.loads(capsys.readouterr().out)["castles"]) == 3


def test_usage_errors(capsys):
    assert main(["kingdoms"]) == 2
    with pytest.raises(SystemExit):
        main(["kingdoms", "score"])
    with pytest.raises(SystemExit):
        main(["kingdoms", "score", "x.json", "--rules", "chess"])


SCENARIOS = sorted((pathlib.Path(__file__).parent / "kingdoms_boards" / "scenarios").glob("*.json"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_files_replay_as_expected(path, capsys):
    assert main(["kingdoms", "replay", str(path), "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["expectations_failed"] == []


def test_replay_reports_failed_expectations_and_bad_files(tmp_path, capsys):
    scenario = json.loads(SCENARIOS[0].read_text())
    scenario["expect"] = {"round_scores": [{"black": 51, "red": 53}]} if "round_scores" in scenario["expect"] \
        else {"scores": {"totals": {"red": 999}}}
    wrong = write(tmp_path, "wrong.json", scenario)
    assert main(["kingdoms", "replay", wrong]) == 1
    assert "EXPECTATION FAILED" in capsys.readouterr().out
    refused = write(tmp_path, "refused.json", {"setup": {"players": ["a", "b"]}, "events": [{"type": "place", "cell": [6, 6], "card": "3C"}]})
    assert main(["kingdoms", "replay", refused]) == 1
    assert "event 1 was refused" in capsys.readouterr().out
    bad_setup = write(tmp_path, "setup.json", {"setup": {"players": ["a"]}, "events": []})
    assert main(["kingdoms", "replay", bad_setup, write(tmp_path, "x.json", "[")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert "2 to 4" in err[0] and "not JSON" in err[1]
