"""The real-photo check: its scorer's error taxonomy on small hand-made cases, and the real material it reads."""
from __future__ import annotations

import numpy as np
import pytest

from companion.vision.detections import Detections
from companion.vision.evaluation import (LabelledBox, error_taxonomy, group_truth, rank_only, score_codes, score_image,
                                         summarise, whole_cards)
from conftest import SHARED
from vision_models.checks import real_check


def _cards(entries):
    """Detections from (code, centre, half-size) entries; the box is the centre ± half-size."""
    boxes = [(x - r, y - r, x + r, y + r) for _, (x, y), r in entries]
    return Detections(np.array(boxes, np.float32).reshape(-1, 4), np.full(len(entries), 0.9, np.float32),
                      tuple(code for code, _, _ in entries), np.array([c for _, c, _ in entries], np.float32).reshape(-1, 2))


def _index(code, x, y, size=20):
    return LabelledBox(code, (x - size / 4, y - size / 2, x + size / 4, y + size / 2))


def _consistent(scores):
    """The taxonomy's two sums: every labelled card is right, misread or missed; every false reading is sorted once."""
    errors, overall = error_taxonomy(scores), summarise(scores)["overall"]
    assert errors["cards"] == errors["right"] + errors["misread"] + errors["missed_faces"] + errors["missed_backs"]
    assert overall["fp"] == errors["counted_twice"] + errors["misread"] + errors["phantom_faces"] + errors["phantom_backs"]
    assert overall["tp"] == errors["right"]
    return errors


def test_one_card_read_at_both_corners_but_not_joined_is_counted_twice():
    truth = group_truth([_index("7H", 100, 100), _index("7H", 160, 190)])   # one card's two labelled corners
    assert len(truth) == 1
    predicted = _cards([("7H", (100, 100), 10), ("7H", (160, 190), 10)])  # two lone readings
    errors = _consistent([score_image("p", truth, predicted)])
    assert errors == {"cards": 1, "right": 1, "counted_twice": 1, "missed_faces": 0, "missed_backs": 0,
                      "misread": 0, "phantom_faces": 0, "phantom_backs": 0}


def test_misread_missed_and_phantoms_by_place():
    truth = group_truth([_index("7H", 100, 100), _index("QS", 400, 100), _index("2C", 700, 100),
                         LabelledBox("BACK", (100, 400, 200, 540)), LabelledBox("BACK", (400, 400, 500, 540))])
    predicted = _cards([("7H", (100, 100), 10),
                        ("QC", (400, 100), 10),       # at the QS: a misread
                        ("9D", (1000, 600), 10),      # nowhere near a card: a phantom face
                        ("7H", (1000, 100), 10),      # a code the photo holds, read again far away: counted twice
                        ("BACK", (150, 470), 60),     # the first back, found
                        ("BACK", (900, 900), 60)])    # a phantom back; the second back and the 2C are missed
    score = score_image("p", truth, predicted)
    assert score.confusions == [("QS", "QC")]
    errors = _consistent([score])
    assert errors == {"cards": 5, "right": 2, "counted_twice": 1, "missed_faces": 1, "missed_backs": 1,
                      "misread": 1, "phantom_faces": 1, "phantom_backs": 1}


def test_a_code_the_photo_holds_read_elsewhere_while_its_card_is_missed_is_a_phantom_not_counted_twice():
    truth = group_truth([_index("5D", 100, 100)])
    predicted = _cards([("5D", (900, 900), 10)])
    errors = _consistent([score_image("p", truth, predicted)])
    assert (errors["counted_twice"], errors["phantom_faces"], errors["missed_faces"]) == (0, 1, 1)


def test_codes_without_places():
    # AS there once, read twice; 2H read as 2D (same rank: paired first); 3C missing and 9S read: a misread too
    score = score_codes("p", ["AS", "2H", "3C"], ["AS", "AS", "2D", "9S"])
    assert sorted(score.confusions) == [("2H", "2D"), ("3C", "9S")]
    errors = _consistent([score])
    assert (errors["right"], errors["counted_twice"], errors["misread"], errors["phantom_faces"]) == (1, 1, 2, 0)
    # a wrong code with nothing missing is a phantom; a missing card with nothing read is missed
    errors = _consistent([score_codes("p", ["KD"], ["KD", "4S"]), score_codes("q", ["KD", "QH"], ["KD"])])
    assert (errors["phantom_faces"], errors["missed_faces"], errors["misread"]) == (1, 1, 0)
    # a back never stands in for a face
    errors = _consistent([score_codes("p", ["KD"], ["BACK"])])
    assert (errors["missed_faces"], errors["phantom_backs"], errors["misread"]) == (1, 1, 0)


def test_whole_card_labels_hold_the_readings_inside_them():
    truth = whole_cards([LabelledBox("8S", (100, 100, 260, 330)), LabelledBox("8C", (600, 100, 760, 330))])
    inside = _cards([("8S", (180, 215), 10)])
    assert score_image("p", truth, inside).true_positives == ["8S"]
    # a lone index whose centre was put on the wrong side still belongs to the card its other centre lies on
    outside = Detections(np.array([[110, 110, 130, 140]], np.float32), np.array([0.9], np.float32), ("8C",),
                         np.array([[400, 500]], np.float32), np.array([[680, 200]], np.float32))
    score = score_image("p", truth, outside)
    assert score.true_positives == ["8C"] and score.misses == ["8S"]


def test_rank_only_labels_compare_ranks():
    assert [rank_only(c) for c in ("10H", "QS", "AC", "BACK")] == ["10", "Q", "A", "BACK"]
    truth = whole_cards([LabelledBox("10", (100, 100, 260, 330)), LabelledBox("BACK", (400, 100, 560, 330))])
    predicted = _cards([("10C", (180, 215), 10), ("BACK", (480, 215), 70), ("10D", (180, 215), 10)])
    score = score_image("p", truth, predicted, read_as=rank_only)
    errors = _consistent([score])
    assert (errors["right"], errors["counted_twice"]) == (2, 1)
    assert "10" in summarise([score])["per_class"]


def test_the_kentdoan_labels_come_from_the_readme_table(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("| photo | cards |\n|---|---|\n| Cards_1.jpg | 2S 8S AS AD |\n| Cards_6.jpg | 4S 7H |\n")
    assert real_check.kentdoan_labels(readme) == {"Cards_1.jpg": ("2S", "8S", "AS", "AD"), "Cards_6.jpg": ("4S", "7H")}
    readme.write_text("nothing here\n")
    with pytest.raises(ValueError, match="no table"):
        real_check.kentdoan_labels(readme)


def test_missing_material_is_an_error_not_a_skip(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing"):
        real_check.photos_of(["feliksh-scan"], tmp_path)
    with pytest.raises(ValueError, match="unknown source"):
        real_check.photos_of(["nowhere"], tmp_path)


# -- the real material (../shared beside the checkout; its absence fails, as the data tests do) ------------

def test_every_real_source_is_found_with_its_labels():
    photos = real_check.photos_of(list(real_check.SOURCES), SHARED / "datasets")
    counts = {}
    for photo in photos:
        counts[photo.source] = counts.get(photo.source, 0) + 1
    assert counts == {"cardcounterml": 457, "rf100-test": 128, "rf100-valid": 193, "kentdoan-play": 7,
                      "camdowless-single": 40, "piercebriney-iphone": 42, "piercebriney-pi-camera": 41,
                      "feliksh-scan": 1, "webcam-strips": 30}
    scan = next(p for p in photos if p.source == "feliksh-scan")
    assert len(set(scan.codes)) == 52
    strips = [p for p in photos if p.source == "webcam-strips"]
    assert all(code in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "BACK") for code in strips[0].names)


def test_rf100_labels_are_renumbered_as_the_label_files_number_them():
    names = real_check._rf100_names(SHARED / "datasets" / "real" / "poker-cards-rf100" / "data.yaml")
    assert names[:3] == ("10H", "10S", "10C") and names[19] is None and names[20] == "10D" and names[21] == "6D"
    assert len([n for n in names if n]) == 52 == len(set(n for n in names if n))
