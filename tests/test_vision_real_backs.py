"""Backs labelled by eye (vision_models/checks/real_backs.json), real_check's source that scores them, the check
of every rule that drops a back (backs_check) and the recall-by-index-size check (scale_check)."""
from __future__ import annotations

import json

import pytest

from companion.vision.grouping import IndexReading
from conftest import SHARED
from vision_models.checks import backs_check, real_check, scale_check


def test_the_labels_file_parses_and_every_box_lies_inside_its_photo():
    document = json.loads(real_check.REAL_BACKS.read_text())
    assert {"what", "how", "kept_apart"} <= set(document["about"])
    photos = real_check.load_real_backs()
    assert len(photos) == 111 and sum(len(p["backs"]) for p in photos) == 145
    assert {p["split"] for p in photos} <= {"cardcounterml-train", "cardcounterml-holdout", "rf100-train", "rf100-valid",
                                           "rf100-test", "webcam-strips-train", "webcam-strips-val"}
    for photo in photos:
        width, height = photo["size"]
        assert all(0 <= x1 < x2 <= width and 0 <= y1 < y2 <= height for x1, y1, x2, y2 in photo["backs"])


@pytest.mark.parametrize("entry, message", [
    ({"path": "a.jpg", "size": [100, 80], "backs": [[10, 10, 120, 50]], "split": "rf100-test"}, "inside"),
    ({"path": "../a.jpg", "size": [100, 80], "backs": [], "split": "rf100-test"}, "relative"),
    ({"path": "a.jpg", "size": [100, 80], "backs": [[30, 10, 20, 50]], "split": "rf100-test"}, "inside"),
])
def test_a_bad_label_is_an_error(tmp_path, entry, message):
    path = tmp_path / "backs.json"
    path.write_text(json.dumps({"about": {}, "photos": [entry]}))
    with pytest.raises(ValueError, match=message):
        real_check.load_real_backs(path)
    path.write_text(json.dumps({"about": {}, "photos": [{"path": "a.jpg", "size": [9, 9], "backs": [], "split": "x"}] * 2}))
    with pytest.raises(ValueError, match="twice"):
        real_check.load_real_backs(path)


def _reading(indices, backs, shape=(600, 800), name="p.jpg"):
    return {"source": "backs-by-eye", "name": name, "shape": shape, "indices": indices, "backs": backs,
            "shape_check": None, "ms": 5.0}


def test_backs_by_eye_stand_for_the_photos_own_back_labels(tmp_path):
    # an index-labelled photo (cardcounterml's way): a 7H's two corners, and a BACK label that boxes no back
    labels = tmp_path / "p.txt"
    labels.write_text("0 0.125 0.1 0.025 0.05\n0 0.2 0.316667 0.025 0.05\n1 0.9 0.9 0.05 0.05\n")
    eye = ((300.0, 300.0, 420.0, 470.0), (500.0, 300.0, 620.0, 470.0))
    photo = real_check.Photo("backs-by-eye", tmp_path / "p.jpg", "index", label_path=labels, names=("7H", "BACK"),
                             eye_backs=eye)
    truth = real_check.truth_of(photo, 800, 600)
    assert sorted(card.code for card in truth) == ["7H", "BACK", "BACK"]
    face = [IndexReading((95, 45, 105, 75), 0.9, "7H", 0.95, 0), IndexReading((155, 175, 165, 205), 0.9, "7H", 0.95, 180)]
    # one eye back found, one missed, and a back box where none lies (the BACK label's place): a phantom
    backs = [((305.0, 305.0, 415.0, 465.0), 0.9), ((640.0, 440.0, 800.0, 600.0), 0.9)]
    summary = real_check.summary_of([real_check.score_reading(photo, _reading(face, backs))])
    assert (summary["backs"]["tp"], summary["backs"]["fp"], summary["backs"]["fn"]) == (1, 1, 1)
    assert summary["errors"]["right"] == 2   # the 7H and the back


def test_the_real_backs_are_found_in_the_shared_photos_at_their_size():
    from PIL import Image

    photos = real_check.photos_of(["backs-by-eye"], SHARED / "datasets")
    assert len(photos) == 111 and all(p.eye_backs is not None for p in photos)
    unseen = real_check.photos_of(["backs-by-eye-unseen"], SHARED / "datasets")
    assert 0 < len(unseen) < len(photos)
    for entry in real_check.load_real_backs():
        with Image.open(SHARED / "datasets" / entry["path"]) as image:
            assert list(image.size) == entry["size"], entry["path"]


def test_each_back_rule_can_be_switched_off_and_comes_back():
    from companion.vision import grouping

    before = grouping.MAX_BACK_ASPECT
    with backs_check.grouping_constants(MAX_BACK_ASPECT=9.0):
        assert grouping.MAX_BACK_ASPECT == 9.0
    assert grouping.MAX_BACK_ASPECT == before
    # a strip of back four times longer than wide (a column's covered card): the aspect rule drops it
    strip = _reading([IndexReading((10, 10, 20, 40), 0.9, "5C", 0.95, 0)], [((100.0, 100.0, 500.0, 200.0), 0.8)])
    truth = [(100.0, 100.0, 500.0, 200.0)]
    assert backs_check.scene_backs([(strip, truth)], 0.5)["tp"] == 0
    with backs_check.grouping_constants(**backs_check.RULES_OFF["aspect"]):
        assert backs_check.scene_backs([(strip, truth)], 0.5)["tp"] == 1
        assert backs_check.scene_backs([(strip, truth)], 0.85)["fn"] == 1   # below the threshold: not kept


def test_cards_are_binned_by_their_index_size_at_the_input():
    assert [scale_check.bin_of(px) for px in (0, 7.9, 8, 15, 24.9, 25, 39, 40, 400)] == [0, 0, 1, 2, 4, 5, 6, 7, 7]
    assert scale_check.bin_label(1) == "8-12" and scale_check.bin_label(7) == "40+"
    rows = [{"source": "a", "photo": "1", "found": True, "fit": 0.5, "ms": 10.0, "index_px": 20.0},     # 10 px
            {"source": "a", "photo": "1", "found": False, "fit": 0.5, "ms": 10.0, "index_px": 22.0},    # 11 px
            {"source": "b", "photo": "2", "found": True, "fit": 0.25, "ms": 30.0, "card_px": 400.0, "inside": [80.0]},
            {"source": "b", "photo": "3", "found": False, "fit": 0.25, "ms": 50.0, "card_px": 200.0, "inside": []}]
    ratios = scale_check.ratios_by_source(rows)
    assert ratios == {"b": 0.2}   # 80 / 400 from the card found; the missed one tells nothing
    assert scale_check.input_px(rows[2], ratios) == pytest.approx(20.0) and scale_check.input_px(rows[3], ratios) == 10.0
    result = scale_check.recall_by_bin({"off": rows}, ratios)["off"]
    assert result["8-12"] == {"cards": 3, "found": 1, "recall": 0.333, "median_ms": 30.0}   # photos 1 and 3: 10 and 50 ms
    assert result["20-25"]["recall"] == 1.0 and result["all"]["cards"] == 4


def test_backs_check_refuses_thresholds_it_cannot_group_at_before_reading_anything(capsys):
    for bad in ("0.5,high", "0.01", "1.2"):
        with pytest.raises(SystemExit) as stopped:
            backs_check.main(["--thresholds", bad, "--cache-dir", "/nonexistent/never-made"])
        assert stopped.value.code == 2
        assert "--thresholds" in capsys.readouterr().err
