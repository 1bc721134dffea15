"""The detector's closer look: overlapping windows for frames whose indices are small.

A scripted stand-in network "sees" a white square only when it is at least ``VISIBLE_PX`` pixels
at its 416 px input, which is the behaviour that makes tiling necessary: small indices vanish when
a large frame is fitted into the network whole.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.vision.detector import Detector, parse_tile, tile_starts
from companion.vision.models import CLASSIFIER_CLASSES, DETECTOR_CLASSES, Model, ModelsManifest, ModelSpec

INPUT = 416
VISIBLE_PX = 12


class SquareSeer(Model):
    """A detector network that boxes every bright square of at least VISIBLE_PX at its input."""

    backend = "scripted"
    batchable = False

    def __init__(self):
        self.input_shape = (1, 3, INPUT, INPUT)
        self.calls = 0

    def run(self, batch: np.ndarray) -> np.ndarray:
        self.calls += 1
        bright = (batch[0].mean(0) > 0.9).astype(np.uint8)
        count, _, stats, _ = cv2.connectedComponentsWithStats(bright)
        rows = [[x + w / 2, y + h / 2, w, h, 0.9, 0.0] for x, y, w, h, _ in stats[1:count]
                if w >= VISIBLE_PX and h >= VISIBLE_PX]
        rows += [[0, 0, 1, 1, 0.0, 0.0]]  # decode needs at least one anchor
        return np.array(rows, np.float32).T[None]


class NoClassifier(Model):
    backend = "scripted"
    batchable = True
    input_shape = (1, 3, 64, 64)

    def run(self, batch: np.ndarray) -> np.ndarray:
        return np.tile(np.eye(len(CLASSIFIER_CLASSES), dtype=np.float32)[-1], (len(batch), 1))


def make_detector(tile) -> Detector:
    manifest = ModelsManifest(Path("."), ModelSpec(Path("detector.onnx"), INPUT, DETECTOR_CLASSES),
                              ModelSpec(Path("classifier.onnx"), 64, CLASSIFIER_CLASSES), 0.1, {})
    return Detector(manifest, SquareSeer(), NoClassifier(), conf=0.25, iou=0.5, back_conf=0.25, tile=tile)


def table_frame() -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    """A 1600×1200 frame: one large square (seen whole-frame) and small ones, one across window seams."""
    frame = np.full((1200, 1600, 3), 40, np.uint8)
    squares = [(100, 100, 70)] + [(x, y, 24) for x in (300, 590, 790, 1010, 1390) for y in (260, 590, 905)]
    for x, y, side in squares:
        frame[y:y + side, x:x + side] = 255
    return frame, squares


def test_small_indices_vanish_when_the_whole_frame_is_fitted_in():
    frame, squares = table_frame()
    found = make_detector("off").detect_boxes(frame)
    assert len(found) == 1, "only the large square survives the 1600 -> 416 shrink"


@pytest.mark.parametrize("tile", ["auto", 600])
def test_a_closer_look_finds_every_small_index_exactly_once(tile):
    frame, squares = table_frame()
    detector = make_detector(tile)
    found = detector.detect_boxes(frame)
    assert len(found) == len(squares)
    for x, y, side in squares:
        centres = (found.boxes[:, :2] + found.boxes[:, 2:]) / 2
        distance = np.hypot(*(centres - (x + side / 2, y + side / 2)).T).min()
        assert distance < 3, f"square at {(x, y)} not found whole"
    assert detector.detector_model.calls > 1


def test_auto_sizes_windows_from_the_indices_the_first_pass_found():
    frame, _ = table_frame()
    detector = make_detector("auto")
    whole = detector._detect_window(frame, 0, 0)
    size = detector.window_size(frame.shape[:2], whole)
    # the large square is 70 px in the frame: windows that show it at 40 px at the input
    assert abs(size - INPUT * 70 / 40) < 16  # within the rounding of a 4x shrink


def test_auto_windows_never_magnify_the_frame_beyond_its_own_pixels():
    frame = np.full((900, 900, 3), 40, np.uint8)
    for x in (100, 400, 700):
        frame[400:430, x:x + 30] = 255  # 30 px in the frame, 14 px at the input: small, but only 30 px of detail
    detector = make_detector("auto")
    size = detector.window_size(frame.shape[:2], detector._detect_window(frame, 0, 0))
    # sized for 40 px indices they would be 312 px windows, stretched 1.33x to the input: no new detail, only blur
    assert size == INPUT


def test_a_detector_told_the_index_size_looks_closer_even_when_the_whole_frame_found_nothing():
    frame = np.full((1200, 1600, 3), 40, np.uint8)
    squares = [(x, y) for x in (200, 700, 1300) for y in (300, 800)]
    for x, y in squares:
        frame[y:y + 24, x:x + 24] = 255  # 6 px at the input: the whole-frame pass sees none of them
    plain = make_detector("auto")
    assert len(plain.detect_boxes(frame)) == 0 and plain.detector_model.calls == 1
    told = plain.expecting_index_px(24)
    assert told.index_px == 24 and plain.index_px is None, "telling returns a new detector"
    assert told.detector_model is plain.detector_model, "sharing the loaded networks"
    assert len(told.detect_boxes(frame)) == len(squares)
    with pytest.raises(ValueError):
        plain.expecting_index_px(0)


def test_auto_does_not_tile_when_nothing_was_found_or_the_indices_are_already_large():
    detector = make_detector("auto")
    empty = np.full((1200, 1600, 3), 40, np.uint8)
    assert detector.detect_boxes(empty).boxes.shape == (0, 4)
    assert detector.detector_model.calls == 1
    close_up = np.full((640, 640, 3), 40, np.uint8)
    close_up[200:260, 200:260] = 255  # 60 px in a 640 frame: 39 px at the input, already readable
    assert detector.window_size(close_up.shape[:2], detector._detect_window(close_up, 0, 0)) is None


@given(length=st.integers(1, 5000), size=st.integers(64, 2000))
def test_windows_cover_the_frame_with_a_quarter_overlap(length, size):
    starts = tile_starts(length, size)
    assert starts[0] == 0 and starts == sorted(starts)
    assert min(starts[-1] + size, length) == length if length > size else starts == [0]
    for a, b in zip(starts, starts[1:]):
        assert b - a <= size - size // 4


@pytest.mark.parametrize("value, expected", [(None, None), ("off", None), ("auto", "auto"), ("640", 640), (512, 512)])
def test_tile_values(value, expected):
    assert parse_tile(value) == expected


@pytest.mark.parametrize("value", ["big", "12", 0, -5])
def test_bad_tile_values_are_refused(value):
    with pytest.raises(ValueError, match="tile"):
        parse_tile(value)


class SidewaysReader(Model):
    """Reads every crop as 9S: 0.5 sure when its bright bar stands upright, 0.9 when the bar lies
    on its side (a classifier confidently wrong at a quarter-turn)."""

    backend = "scripted"
    batchable = True
    input_shape = (1, 3, 64, 64)

    def __init__(self):
        self.seen = 0

    def run(self, batch: np.ndarray) -> np.ndarray:
        self.seen += len(batch)
        rows = np.full((len(batch), len(CLASSIFIER_CLASSES)), 0.001, np.float32)
        for row, crop in zip(rows, batch):
            ys, xs = np.nonzero(crop.mean(0) > 0.9)
            row[CLASSIFIER_CLASSES.index("9S")] = 0.9 if np.ptp(xs) > np.ptp(ys) else 0.5
        return rows


def test_a_tall_index_box_is_read_only_upright_or_upside_down():
    manifest = ModelsManifest(Path("."), ModelSpec(Path("detector.onnx"), INPUT, DETECTOR_CLASSES),
                              ModelSpec(Path("classifier.onnx"), 64, CLASSIFIER_CLASSES), 0.1, {})
    reader = SidewaysReader()
    detector = Detector(manifest, SquareSeer(), reader, conf=0.25, iou=0.5, back_conf=0.25)
    frame = np.full((200, 200, 3), 40, np.uint8)
    frame[45:85, 58:62] = 255  # a tall bright bar in a tall box
    (code, confidence, turn), = detector.classify_boxes(frame, np.array([[50, 40, 70, 90]], np.float32))
    assert (code, turn) == ("9S", 0) and confidence == pytest.approx(0.5)
    assert reader.seen == 2, "two turns tried, not four"
    (_, confidence, turn), = detector.classify_boxes(frame, np.array([[40, 40, 80, 84]], np.float32))
    assert turn in (90, 270) and confidence == pytest.approx(0.9), "a squarish box is tried at all four turns"


def test_a_photo_is_read_at_the_photo_thresholds_and_a_mat_or_a_learned_deck_at_their_own():
    from companion.vision.detector import DECK_INDEX_CONF, PHOTO_BACK_CONF, PHOTO_INDEX_CONF

    manifest = ModelsManifest(Path("."), ModelSpec(Path("detector.onnx"), INPUT, DETECTOR_CLASSES),
                              ModelSpec(Path("classifier.onnx"), 64, CLASSIFIER_CLASSES), 0.1, {},
                              {"conf": 0.6, "back_conf": 0.4, "iou": 0.5})
    detector = Detector(manifest, SquareSeer(), NoClassifier())
    assert (detector.conf, detector.back_conf) == (0.6, 0.4)
    assert detector.thresholds() == (PHOTO_INDEX_CONF, PHOTO_BACK_CONF)
    assert detector.expecting_index_px(30).thresholds() == (0.6, 0.4)     # a mat: models.json's
    embedding = NoClassifier()
    embedding.has_embedding = True                                      # with_deck asks for one
    deck = type("Deck", (), {"back": None})()
    with_deck = Detector(manifest, SquareSeer(), embedding).with_deck(deck)
    assert with_deck.thresholds() == (DECK_INDEX_CONF, 0.4)             # a learned deck: its own (no learned back: 0.4)
    # a caller's own thresholds stand for a photo's
    told = Detector(manifest, SquareSeer(), NoClassifier(), conf=0.5)
    assert told.thresholds() == (0.5, PHOTO_BACK_CONF)
    # and the boxes kept follow them: a box scored 0.9 is kept at any of these, none at 0.95
    frame = np.zeros((400, 400, 3), np.uint8)
    frame[100:160, 100:130] = 255
    assert len(Detector(manifest, SquareSeer(), NoClassifier()).detect_boxes(frame).boxes) == 1
    assert len(Detector(manifest, SquareSeer(), NoClassifier(), conf=0.95).detect_boxes(frame).boxes) == 0
