"""The phone's own reader (web_ui/static/reader_worker.js + reader_core.js, onnxruntime-web in headless
Chromium) and the server's (companion.vision.Detector) read the same frames alike: the same index boxes
(each corner within 2 px), codes and turns, the same face-down boxes.

The frames: real photos (cardcounterml, CC BY 4.0; the rf100 poker cards of ../shared/datasets/real),
the whole-frame pass alone, and frames of the three shipped demo recordings read with the closer look
a mat's scale starts (the index size the server answers). Both readers get the same pixels (raw RGB
handed to the worker), so what is compared is the reading, not two JPEG decoders."""
from __future__ import annotations

import cv2
import pytest

from conftest import REAL_DATASET, SHARED
from helpers.reader import browser_reader, disagreements, python_reading
from helpers.web import running_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

RF100 = SHARED / "datasets" / "real" / "poker-cards-rf100" / "valid" / "images"
PHOTOS_EACH = 4
# (game, frame numbers, the index size the server answers on that mat at 960×720: INDEX_MM × its scale)
DEMO_FRAMES = [("dungeon", (60, 200), 14.7), ("chosen", (150,), 13.0), ("kingdoms", (250,), 15.5)]


def photos() -> list[tuple[str, object, None]]:
    found = []
    for folder in (REAL_DATASET / "images", RF100):
        paths = sorted(folder.glob("*.jpg"))
        assert len(paths) >= PHOTOS_EACH, f"{folder} holds too few photos: the parity test reads real photos from it"
        found += [(path.name, cv2.imread(str(path)), None) for path in paths[:: len(paths) // PHOTOS_EACH][:PHOTOS_EACH]]
    return found


def demo_frames() -> list[tuple[str, object, float]]:
    from companion.table.demos import demo_dir

    found = []
    for game, numbers, index_px in DEMO_FRAMES:
        capture = cv2.VideoCapture(str(demo_dir(game) / "recording.mp4"))
        for number in range(max(numbers) + 1):
            ok, frame = capture.read()
            assert ok, f"{game}'s recording has no frame {number}"
            if number in numbers:
                found.append((f"{game}@{number}", frame, index_px))
        capture.release()
    return found


def test_the_browser_reads_what_the_server_reads(tmp_path):
    from companion.vision import Detector

    detector = Detector.load(tile="auto")   # as the server's own frames are read (companion.session.camera.load_detector)
    frames = photos() + demo_frames()
    with running_server(tmp_path / "data", CAMERA_DETECTION=False) as (base, app):
        with browser_reader(base) as reader:
            assert reader.ready["isolated"], "the page is cross-origin isolated (WebAssembly threads)"
            assert reader.ready["precision"] == "int8" and reader.ready["backend"] == "wasm"
            problems, read = {}, 0
            for name, frame, index_px in frames:
                python = python_reading(detector, frame, index_px)
                browser = reader.read(frame, index_px)
                read += len(python["indices"]) + len(python["backs"])
                if differ := disagreements(python, browser):
                    problems[name] = differ
            assert reader.errors == []
    print(f"{len(frames)} frames, {read} boxes read by both")
    assert read >= 5 * len(frames), "the frames hold cards enough to compare"
    assert problems == {}
