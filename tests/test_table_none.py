"""``companion table run --game none``: no game, no mat; the settled cards and their changes only.

On drawn recordings (the shipped demos, their card lists) and on real webcam photos held still
(``vision_models/checks/still_table.py``), through the live path the server takes.
"""
from __future__ import annotations

import gzip
import json
from collections import Counter

import numpy as np
import pytest

from companion.cli import main
from companion.table.demos import demo_dir
from companion.table.pipeline import build_pipeline
from companion.table.tracker import Tracker, TrackerConfig
from companion.vision.detections import Detections
from conftest import SHARED


def _last_frame_cards(game: str) -> list[str]:
    with gzip.open(demo_dir(game) / "cards.jsonl.gz", "rt") as handle:
        frames = [json.loads(line)["cards"] for line in handle if line.strip()]
    return sorted(card["code"] for card in frames[-1])


def _replayed(changes: list[dict]) -> list[str]:
    """The cards the changes leave on the table, replayed one by one by track."""
    lying: dict[int, str] = {}
    for change in changes:
        if change["type"] == "removed":
            assert lying.pop(change["track"]) == change["card"], change
        else:
            if change["type"] in ("turned", "moved"):
                assert change["track"] in lying, change
            lying[change["track"]] = change["card"]
    return sorted(lying.values())


def _run_json(capsys, *argv) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["table", "run", "--game", "none", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("game", ["chosen", "dungeon"])
def test_a_drawn_recording_gives_its_last_frames_cards_and_every_change(game, capsys):
    code, result = _run_json(capsys, "--source", str(demo_dir(game)), "--detector", "truth", "--check-truth")
    assert code == 0 and result["truth_matched"] is True
    assert result["state"]["cards"] == _last_frame_cards(game) == result["truth_cards"]
    assert result["engine_events"] == [] and result["game"] == "none" and result["units"] == "px" and result["mat"] is None
    changes = result["state"]["changes"]
    assert _replayed(changes) == result["state"]["cards"]
    assert {"placed", "turned"} <= {c["type"] for c in changes} and all(c["zone"] == "table" for c in changes)
    assert [c["time"] for c in changes] == sorted(c["time"] for c in changes)
    # the table's snapshot is the same cards, each with its place
    assert sorted(card["card"] for card in result["table"]) == result["state"]["cards"]


def test_the_chosen_recordings_vault_run_is_moves_without_zones(capsys):
    """Chips carried step by step to the vault: moved on the one-zone table, as far as they went."""
    code, result = _run_json(capsys, "--source", str(demo_dir("chosen")), "--detector", "truth")
    moved = [c for c in result["state"]["changes"] if c["type"] == "moved"]
    assert code == 0 and len(moved) >= 6 and {c["card"] for c in moved} == {"BACK", "BJ"}
    # a face turned down is said with its face: no game, nothing hidden
    turned = [c for c in result["state"]["changes"] if c["type"] == "turned" and c["card"] == "BACK"]
    assert turned and all(c.get("previous_card") not in (None, "BACK") for c in turned)


def test_text_output_lists_the_changes_then_the_cards(capsys):
    capsys.readouterr()
    assert main(["table", "run", "--game", "none", "--source", str(demo_dir("dungeon")), "--detector", "truth", "--check-truth"]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0].endswith("positions in pixels")   # the unit in words, as the Chinese output says it
    assert any(line.strip().endswith("placed") for line in lines)
    assert "turned to" in text and "on the table at the end (11):" in text
    assert "truth: the cards match the recording's last frame" in text
    assert "engine events" not in text


def test_live_on_a_simulated_clock_drops_frames_and_still_reaches_the_last_frame(capsys):
    code, result = _run_json(capsys, "--source", str(demo_dir("dungeon")), "--detector", "truth", "--live", "--frame-cost", "0.3",
                             "--check-truth")
    assert code == 0 and result["truth_matched"] is True
    assert result["live"]["frames_dropped"] > result["live"]["frames_read"] // 2


@pytest.mark.slow
def test_the_neural_detector_live_on_a_drawn_recording_with_its_mat(capsys):
    """The shipped networks, the server's live path (incremental reading, 2-core work model), a mat named by
    its layout: positions in mm, and the recording's last frame read, each card once, at most one misread more."""
    code, result = _run_json(capsys, "--source", str(demo_dir("chosen")), "--layout", "chosen-2p", "--live",
                             "--frame-cost", "work", "--check-truth")
    assert result["units"] == "mm" and result["mat"]["layout"] == "chosen-2p"
    read, expected = Counter(result["state"]["cards"]), Counter(result["truth_cards"])
    assert read & expected == expected, result["state"]["cards"]
    assert sum((read - expected).values()) <= 1
    assert _replayed(result["state"]["changes"]) == result["state"]["cards"]


def test_bad_input_is_one_clear_line(capsys, tmp_path):
    source = str(demo_dir("dungeon"))
    assert main(["table", "run", "--game", "none", "--source", source, "--players", "Ann,Bob"]) == 2
    assert "no players and no setup" in capsys.readouterr().err
    assert main(["table", "run", "--game", "none", "--source", source, "--decks", "0"]) == 2
    assert "--decks must be" in capsys.readouterr().err
    assert main(["table", "run", "--game", "dungeon", "--source", source, "--decks", "2", "--detector", "truth"]) == 2
    assert "--decks goes with --game none" in capsys.readouterr().err
    folder = tmp_path / "frames"
    folder.mkdir()
    import cv2

    for k in range(3):
        cv2.imwrite(str(folder / f"{k}.png"), np.zeros((48, 64, 3), np.uint8))
    assert main(["table", "run", "--game", "none", "--source", str(folder), "--detector", "truth"]) == 2
    assert "cards.jsonl" in capsys.readouterr().err


class Cards:
    """A detector answering from a script: per call, (code, (x, y)) cards; the last entry repeats."""

    def __init__(self, frames):
        self.frames, self.calls = frames, 0

    def __call__(self, frame):
        cards = self.frames[min(self.calls, len(self.frames) - 1)]
        self.calls += 1
        if not cards:
            return Detections.empty()
        boxes = [(x - 30, y - 40, x + 30, y + 40) for _, (x, y) in cards]
        return Detections(np.array(boxes, np.float32), np.full(len(cards), 0.9, np.float32), tuple(c for c, _ in cards))


def _events(frames, fps=10.0):
    pipeline = build_pipeline("none", Cards(frames), {})
    image = np.zeros((480, 640, 3), np.uint8)
    pipeline.run(((n / fps, image) for n in range(len(frames))), flush_seconds=pipeline.end_hold_seconds)
    return [(e.type, e.card) for r in pipeline.history for e in r.table_events]


def test_a_card_slid_across_the_one_zone_table_is_moved_and_a_card_that_shakes_is_not():
    still = [[("7H", (100, 100)), ("KS", (300, 100))]] * 10
    slide = [[("7H", (100 + 12 * k, 100)), ("KS", (300 + (k % 2) * 8, 100))] for k in range(1, 16)]
    rest = [[("7H", (100 + 12 * 15, 100)), ("KS", (300, 100))]] * 10
    assert _events(still + slide + rest) == [("placed", "7H"), ("placed", "KS"), ("moved", "7H")]


def test_a_card_picked_up_and_laid_elsewhere_is_moved_on_the_one_zone_table():
    before = [[("7H", (100, 100)), ("KS", (400, 100))]] * 10
    carried = [[("KS", (400, 100))]] * 4
    after = [[("7H", (250, 350)), ("KS", (400, 100))]] * 10
    assert _events(before + carried + after) == [("placed", "7H"), ("placed", "KS"), ("moved", "7H")]


def test_moves_within_a_zone_are_the_no_game_tables_only():
    """A game's zones say where a card lies: a card slid within its zone changes nothing there."""
    tracker = Tracker(config=TrackerConfig(match_distance=40))
    events = []
    from companion.table.events import Observation

    for k in range(40):
        x = 100 if k < 15 else 100 + min(k - 15, 10) * 12
        events += tracker.update(k / 10, [Observation("7H", 0.9, (x, 100))])
    assert [(e.type, e.card) for e in events] == [("placed", "7H")]


# ---------------------------------------------------------------------------------- real photos, held still

STRIPS = SHARED / "datasets" / "real" / "backs" / "webcam-strips"


def test_a_real_webcam_photo_held_still_through_the_command_live(tmp_path, capsys):
    """A real webcam strip (green felt, faces and a back) filmed still for 3 s: written as a clip and run
    as a live camera by the command, the cards it settles (once, nothing after) are the photo's labelled ranks."""
    from vision_models.checks import still_table

    photos = {p.path.name: p for p in still_table.SOURCES["webcam-strips"](SHARED / "datasets")}
    photo = photos["2021-01-07-113307_1.jpg"]
    clip = still_table.write_clip(photo, tmp_path / "clip", frames=30, fps=10)
    code, result = _run_json(capsys, "--source", str(clip), "--fps", "10", "--live", "--frame-cost", "work")
    assert code == 0 and result["units"] == "px"
    cards = result["state"]["cards"]
    labelled = still_table.labelled_codes(photo, __import__("cv2").imread(str(photo.path)))
    assert sorted(still_table.as_labelled(c, True) for c in cards) == labelled
    # a still table settles once: one placement per card and no change after (a card read in some frames
    # only would be placed, removed and placed again, and still replay to the same cards)
    assert [c["type"] for c in result["state"]["changes"]] == ["placed"] * len(cards)
    assert _replayed(result["state"]["changes"]) == cards
