"""Latency of the recogniser on one 1280×720 frame: detector alone and the whole two-stage path.

The frame is a synthetic table: a felt-green background with eight face-up cards (drawn here: white
card, rank and suit sign in two opposite corners, any rotation) and two face-down cards. What is
timed is exactly what ``companion detect`` times: a decoded BGR frame in, the list of cards out
(letterbox, detector, decoding, crops at their plausible quarter-turns, classifier, grouping). Each backend that is
installed is run on 2 threads; rows report the median of many repeats after a warm-up.

Where models.json names int8 copies of the models (``python -m vision_models.train.quantize``), ONNX Runtime
is timed with both: the f32 models ("onnxruntime f32") and the int8 ones ("onnxruntime int8", the default),
in the same turns.

Needs the exported models (``vision_models/weights`` or ``$COMPANION_WEIGHTS``); without them the
benchmark reports nothing and says why.
"""
from __future__ import annotations

import statistics
import sys
import time

import cv2
import numpy as np

FRAME_SHAPE = (720, 1280)
THREADS = 2
CARD_W, CARD_H = 126, 176
FACES = ("AS", "10H", "QD", "6C", "9S", "KH", "2D", "JC")
_SUIT_COLOURS = {"S": (20, 20, 20), "C": (20, 20, 20), "H": (30, 30, 200), "D": (30, 30, 200)}


def _card_image(code: str) -> np.ndarray:
    card = np.full((CARD_H, CARD_W, 3), 245, np.uint8)
    cv2.rectangle(card, (0, 0), (CARD_W - 1, CARD_H - 1), (160, 160, 160), 2)
    rank, suit = code[:-1], code[-1]
    colour = _SUIT_COLOURS[suit]
    corner = np.full((44, 26, 3), 245, np.uint8)
    cv2.putText(corner, rank, (1, 17), cv2.FONT_HERSHEY_SIMPLEX, 0.55 if len(rank) == 1 else 0.42, colour, 2, cv2.LINE_AA)
    if suit in "HD":
        cv2.fillPoly(corner, [np.array([[5, 26], [13, 40], [21, 26], [13, 21]])], colour)
    else:
        cv2.circle(corner, (13, 31), 7, colour, -1)
    card[6:50, 5:31] = corner
    card[CARD_H - 50:CARD_H - 6, CARD_W - 31:CARD_W - 5] = cv2.rotate(corner, cv2.ROTATE_180)
    cv2.putText(card, rank, (CARD_W // 2 - 20, CARD_H // 2 + 15), cv2.FONT_HERSHEY_SIMPLEX, 1.4, colour, 3, cv2.LINE_AA)
    return card


def _back_image() -> np.ndarray:
    back = np.full((CARD_H, CARD_W, 3), (40, 40, 150), np.uint8)
    for offset in range(-CARD_H, CARD_W, 12):
        cv2.line(back, (offset, 0), (offset + CARD_H, CARD_H), (90, 90, 210), 3)
    cv2.rectangle(back, (6, 6), (CARD_W - 7, CARD_H - 7), (240, 240, 240), 3)
    return back


def synthetic_table_frame(seed: int = 0) -> tuple[np.ndarray, int]:
    """A 1280×720 BGR frame with 8 face-up and 2 face-down cards; returns (frame, number of cards)."""
    rng = np.random.default_rng(seed)
    frame = np.empty((*FRAME_SHAPE, 3), np.uint8)
    frame[:] = (60, 110, 40)
    frame = cv2.add(frame, rng.integers(0, 18, frame.shape, dtype=np.uint8))
    images = [_card_image(code) for code in FACES] + [_back_image(), _back_image()]
    for n, card in enumerate(images):
        centre = (150 + (n % 5) * 245, 190 + (n // 5) * 330)
        angle = float(rng.uniform(-35, 35)) + 90 * int(rng.integers(0, 4))
        matrix = cv2.getRotationMatrix2D((CARD_W / 2, CARD_H / 2), angle, 1.0)
        matrix[:, 2] += (centre[0] - CARD_W / 2, centre[1] - CARD_H / 2)
        mask = cv2.warpAffine(np.full((CARD_H, CARD_W), 255, np.uint8), matrix, (FRAME_SHAPE[1], FRAME_SHAPE[0]))
        warped = cv2.warpAffine(card, matrix, (FRAME_SHAPE[1], FRAME_SHAPE[0]))
        frame[mask > 127] = warped[mask > 127]
    return cv2.GaussianBlur(frame, (3, 3), 0.6), len(images)


def benchmark_frame() -> tuple[np.ndarray, int, str]:
    """Two held-out real photos side by side on a 1280×720 frame (real cards, real indices), or,
    without ``../shared``, the drawn synthetic table. Returns (frame, labelled cards, description)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1].parent / "shared" / "datasets" / "cardcounterml"
    if not (root / "images").is_dir():
        frame, drawn = synthetic_table_frame()
        return frame, drawn, "drawn synthetic table"
    from companion.vision import load_image
    from companion.vision.evaluation import group_truth, list_images, read_class_names, read_labels

    names = read_class_names(root / "data.yaml")
    frame = np.full((*FRAME_SHAPE, 3), 40, np.uint8)
    cards = 0
    for n, path in enumerate(list_images(root, "holdout")[:2]):
        photo = cv2.resize(load_image(path), (640, 640))
        frame[40:680, n * 640:(n + 1) * 640] = photo
        cards += len(group_truth(read_labels(root / "labels" / (path.stem + ".txt"), names, 640, 640)))
    return frame, cards, "frame of two held-out real photos"


def _median_ms(function, repeats: int, warmup: int) -> float:
    return _interleaved_ms([function], repeats, warmup)[0]


def _interleaved_ms(functions, repeats: int, warmup: int) -> list[float]:
    """Median milliseconds of each function, timed in turns (A B A B ...) so that a load that comes
    and goes on a shared machine weighs on each alike: the ratios between them are fair."""
    for _ in range(warmup):
        for function in functions:
            function()
    timings = [[] for _ in functions]
    for _ in range(repeats):
        for function, times in zip(functions, timings):
            start = time.perf_counter()
            function()
            times.append((time.perf_counter() - start) * 1000)
    return [statistics.median(times) for times in timings]


def run(quick: bool) -> list[dict]:
    from companion.vision import Detector, available_backends
    from companion.vision.detector import plausible_turns
    from companion.vision.models import ModelsManifest, WeightsMissingError

    repeats, warmup = (5, 2) if quick else (60, 8)
    frame, drawn, source = benchmark_frame()
    loaded = {}
    try:
        manifest = ModelsManifest.load()
    except WeightsMissingError as error:
        print(f"bench_detect: skipped ({error})", file=sys.stderr)
        return []
    int8_shipped = manifest.detector.int8_path is not None and manifest.classifier.int8_path is not None
    for backend in available_backends():
        for precision in ("f32", "int8") if backend == "onnxruntime" and int8_shipped else ("f32",):
            name = f"{backend} {precision}" if backend == "onnxruntime" and int8_shipped else backend
            loaded[name] = (Detector.load(backend=backend, threads=THREADS, precision=precision),
                            Detector.load(backend=backend, threads=THREADS, tile="auto", precision=precision))
    # every backend's every row timed in one interleaved loop: side by side, under the same load
    functions, rows = [], []
    for backend, (detector, closer) in loaded.items():
        found = detector(frame)
        indices = [reading.box for reading in detector.read(frame).indices]
        classified = sum(len(plausible_turns(box)) for box in indices)
        note = (f"1280x720 {source}, {drawn} cards, {len(found)} found "
                f"({len(indices)} index crops, {classified} classified turns), {THREADS} threads, median of {repeats}, "
                f"backends timed in turns")
        size = closer.window_size(frame.shape[:2], closer._detect_window(frame, 0, 0))
        functions += [lambda d=detector: d.detect_boxes(frame), lambda d=detector: d(frame), lambda d=closer: d(frame)]
        rows += [{"name": f"{backend}: detector only", "unit": "ms/frame", "note": note},
                 {"name": f"{backend}: whole path (frame -> cards)", "unit": "ms/frame", "note": note},
                 {"name": f"{backend}: whole path, tile auto", "unit": "ms/frame", "note": f"{len(closer(frame))} found; " + (
                     f"windows of {size} px" if size else "no closer look needed")}]
    for row, median in zip(rows, _interleaved_ms(functions, repeats, warmup)):
        row["median"] = median
    return rows


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    for row in run(quick):
        print(f"{row['name']:<45} {row['median']:8.1f} {row['unit']}  {row['note']}")
    if "--save-frame" in sys.argv:
        cv2.imwrite("bench_detect_frame.png", benchmark_frame()[0])
