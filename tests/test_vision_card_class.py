"""Issue 28 item 1 (b): whole face-up cards boxed by the detector, their corners read again at full resolution.

The check's own steps on made-up readings: which card boxes are read again, where a crop's indices land in the
photo, and that a card the index path missed is reported once the crop's indices join the photo's."""
from __future__ import annotations

import json

import numpy as np
import pytest

from companion.vision.grouping import IndexReading
from vision_models.checks import card_class_check as cc
from vision_models.checks.real_check import cards_of


def test_only_card_boxes_holding_no_reported_card_are_read_again():
    boxes = np.array([[0, 0, 100, 140], [200, 0, 300, 140], [400, 0, 500, 140]], np.float32)
    centers = np.array([[50, 70], [510, 70]], np.float32)     # the first card found, the third's centre outside it
    assert cc.unfound_card_boxes(boxes, centers) == [1, 2]
    assert cc.unfound_card_boxes(boxes, np.zeros((0, 2), np.float32)) == [0, 1, 2]


def test_a_crop_grows_around_its_card_and_stays_inside_the_photo():
    assert cc.crop_box((100, 100, 200, 240), (480, 640)) == (90, 86, 210, 254)
    assert cc.crop_box((0, 0, 100, 140), (130, 90)) == (0, 0, 90, 130)


def _card_indices(code: str, left: float, top: float) -> list[IndexReading]:
    # a card 100 x 140 px at (left, top) read from its two corner indices, upright
    return [IndexReading((left + 4, top + 4, left + 20, top + 34), 0.9, code, 0.95, 0),
            IndexReading((left + 80, top + 106, left + 96, top + 136), 0.9, code, 0.95, 180)]


def test_a_card_the_index_path_missed_is_reported_from_its_crop_and_found_ones_are_not_doubled():
    found = _card_indices("7C", 0, 0)
    # the crop of the second card (cut at 190, 0) found its indices in the crop's own pixels
    crop = [IndexReading((i.box[0] - 190, i.box[1], i.box[2] - 190, i.box[3]), i.detection_confidence, i.code,
                         i.class_confidence, i.rotation) for i in _card_indices("3D", 200, 0)]
    reading = {"indices": found, "backs": [], "shape": (480, 640), "shape_check": None, "ms": 10.0,
               "card_boxes": np.array([[0, 0, 100, 140], [200, 0, 300, 140]], np.float32),
               "card_scores": np.array([0.9, 0.6], np.float32),
               "crop_indices": {1: cc.shifted(crop, 190, 0)}, "card_ms": 5.0}
    assert sorted(cards_of(reading).codes) == ["7C"]
    both = cc.with_card_path(reading, 0.5)
    assert sorted(cards_of(both).codes) == ["3D", "7C"] and both["ms"] == 15.0
    # a card box less sure than the threshold is not read again
    assert sorted(cards_of(cc.with_card_path(reading, 0.7)).codes) == ["7C"]


def test_the_check_refuses_weights_without_a_card_class(tmp_path, capsys):
    (tmp_path / "models.json").write_text(json.dumps({"detector": {"classes": ["index", "back"]}}))
    assert cc.main(["--weights", str(tmp_path), "--source", "kentdoan-play"]) == 1
    assert "no card class" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cc.main(["--weights", str(tmp_path), "--card-conf", "0.1"])


def test_a_detector_may_box_whole_cards_too_but_no_other_class(request, tmp_path):
    import shutil

    from companion.vision.models import ModelsManifest
    from helpers.dummy_weights import dummy_weights_dir

    folder = tmp_path / "weights"
    shutil.copytree(dummy_weights_dir(request), folder)
    raw = json.loads((folder / "models.json").read_text())
    raw["detector"]["classes"] = ["index", "back", "card"]
    (folder / "models.json").write_text(json.dumps(raw))
    assert ModelsManifest.load(folder).detector.classes == ("index", "back", "card")
    raw["detector"]["classes"] = ["index", "back", "chip"]
    (folder / "models.json").write_text(json.dumps(raw))
    with pytest.raises(ValueError, match="detector classes must be"):
        ModelsManifest.load(folder)
