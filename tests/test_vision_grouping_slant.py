"""Grouping on a table seen at a slant: the index size where each reading lies (``IndexScale``), and the
joker, whose facing the classifier knows to a half turn only (``HALF_TURN_AMBIGUOUS_CODES``).

The readings below are the shipped reader's on frame 312 of the Kingdoms recording of seed 81
(``companion demo render --game kingdoms --seed 81``): two small jokers in one column at the mat's far
edge, where an index is about 18.5 px against 26.5 px at the mat's middle, and two of the four indices
read at the wrong half turn. Before this grouping the pipeline took the two cards' upper indices for one
card, placed the lower joker, read it moved off the grid, removed and placed it again.
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision import grouping
from companion.vision.detections import IndexScale
from companion.vision.grouping import IndexReading, group_cards

UPPER = (IndexReading((617, 91, 624, 120), 0.9, "SJ", 0.83, 0),      # the upper joker's top-left index
         IndexReading((665, 143, 673, 177), 0.9, "SJ", 0.80, 0))     # its bottom-right index, read upright (wrong)
LOWER = (IndexReading((622, 185, 630, 220), 0.9, "SJ", 0.86, 180),   # the lower joker's top-left, read turned (wrong)
         IndexReading((672, 239, 681, 274), 0.9, "SJ", 0.80, 180))   # its bottom-right index
FAR_EDGE_PX = 18.5


def _cards(readings, index_px):
    found = group_cards(list(readings), index_px=index_px)
    return sorted((code, tuple(np.round(centre).astype(int))) for code, centre in zip(found.codes, found.centers))


def _near(centre, expected, tolerance=12):
    return abs(centre[0] - expected[0]) <= tolerance and abs(centre[1] - expected[1]) <= tolerance


def test_two_jokers_in_a_column_read_at_the_wrong_half_turn_are_two_cards():
    upper_centre = (UPPER[0].center + UPPER[1].center) / 2
    lower_centre = (LOWER[0].center + LOWER[1].center) / 2
    cards = _cards(UPPER + LOWER, FAR_EDGE_PX)
    assert [code for code, _ in cards] == ["SJ", "SJ"], cards
    centres = sorted((centre for _, centre in cards), key=lambda c: c[1])
    assert _near(centres[0], upper_centre) and _near(centres[1], lower_centre), (centres, upper_centre, lower_centre)


def test_the_jokers_facing_taken_as_read_joins_the_two_cards_upper_indices(monkeypatch):
    """The scenario above fails without the half-turn rule: the test is of the rule, not of the geometry."""
    monkeypatch.setattr(grouping, "HALF_TURN_AMBIGUOUS_CODES", frozenset())
    cards = _cards(UPPER + LOWER, FAR_EDGE_PX)
    joined_uppers = (UPPER[0].center + LOWER[0].center) / 2
    assert any(_near(centre, joined_uppers) for _, centre in cards), cards


def test_a_lone_index_at_the_far_edge_places_its_card_by_its_own_size_not_the_middles():
    """A card seen by one index lies CORNER_SPAN / 2 index sizes from it: 42 px with the 18.5-px indices
    where it lies, 60 px with the middle's 26.5 (a card's centre 23 px off, a fifth of a Kingdoms cell)."""
    true_centre = (UPPER[0].center + UPPER[1].center) / 2
    centre = (480.0, 400.0)
    far_row_y = float(true_centre[1])
    shrink = (FAR_EDGE_PX / 26.5) ** (2 / 3)     # the perspective's denominator there, 1 at the centre
    h32 = (1 - shrink) / (centre[1] - far_row_y)
    scale = IndexScale(26.5, centre, (0.0, h32, 1 - h32 * centre[1]))
    assert scale.at((640.0, far_row_y)) == pytest.approx(FAR_EDGE_PX, rel=1e-6)
    [(_, by_the_middle)] = _cards([UPPER[0]], 26.5)
    [(_, where_it_lies)] = _cards([UPPER[0]], scale)
    assert _near(where_it_lies, true_centre, tolerance=8), (where_it_lies, true_centre)
    assert not _near(by_the_middle, true_centre, tolerance=15), (by_the_middle, true_centre)


def _local_index_px(matrix, point, index_mm=18.0):
    """The index size at a pixel by finite differences of the homography: the mat's area one pixel covers."""
    x, y = point
    a, b, c = cv2.perspectiveTransform(np.array([[[x, y]], [[x + 1e-3, y]], [[x, y + 1e-3]]], np.float64), matrix)[:, 0]
    (ux, uy), (vx, vy) = b - a, c - a
    area = abs(ux * vy - uy * vx) / 1e-6
    return index_mm / float(np.sqrt(area))


def test_the_index_scale_follows_the_homography_across_the_frame():
    # a 600 x 450 mm mat filmed at a slant: its far edge 40 % narrower than its near one
    image = np.float32([[300, 80], [660, 80], [900, 660], [60, 660]])
    mat = np.float32([[0, 0], [600, 0], [600, 450], [0, 450]])
    matrix = cv2.getPerspectiveTransform(image, mat).astype(np.float64)
    centre = (480.0, 400.0)
    scale = IndexScale.through(matrix, centre, _local_index_px(matrix, centre))
    for point in [(480.0, 100.0), (320.0, 200.0), (880.0, 640.0), (100.0, 600.0), centre]:
        assert scale.at(point) == pytest.approx(_local_index_px(matrix, point), rel=1e-3), point
    assert scale.at((480.0, 100.0)) < 0.75 * scale.at((480.0, 640.0))   # the far edge's cards are smaller


def test_an_index_scale_is_one_size_everywhere_from_a_number_and_refuses_nonsense():
    assert IndexScale.of(None) is None
    flat = IndexScale.of(20.0)
    assert flat.at((0.0, 0.0)) == flat.at((5000.0, -300.0)) == 20.0
    assert IndexScale.of(flat) is flat
    for bad in (0.0, -3.0, float("nan"), float("inf")):
        with pytest.raises(ValueError):
            IndexScale(bad)
    with pytest.raises(ValueError):
        IndexScale(20.0, (10.0, 10.0), (0.1, 0.0, -1.0))   # the perspective vanishes at the centre
