"""The phone's own reader (issue 23) beside the server's: reading time per 960×720 frame in headless
Chromium (onnxruntime-web, WASM with SIMD and two threads, the page cross-origin isolated) and in the
server's Python reader (companion.vision.Detector, onnxruntime, 2 threads), the same int8 networks
and the same frames of the three demo recordings, taking turns frame by frame so a load that comes
and goes on the machine weighs on both alike. Two readings of each frame: the whole frame alone, and
with the closer look a mat's scale starts (the whole frame and six windows of 416 px). The browser's
figure is the worker's own reading time (from the frame's pixels to the readings), the server's the
wall time of ``Detector.read`` before grouping. One browser row with the f32 networks beside.

    python benchmarks/run.py browser
"""
from __future__ import annotations

import pathlib
import statistics
import sys
import tempfile
import time

import cv2

# The browser driver is the tests' (tests/helpers/reader.py): one way to start the page's reader.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

GAMES = ("dungeon", "chosen", "kingdoms")
INDEX_PX = 14.0   # the demo mats' corner index at 960×720, about what the server answers (INDEX_MM × scale)


def _frames(count: int) -> list:
    from companion.table.demos import demo_dir

    frames = []
    for game in GAMES:
        capture = cv2.VideoCapture(str(demo_dir(game) / "recording.mp4"))
        total = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
        wanted = {round((k + 1) * total / (count + 1)) for k in range(count)}
        for number in range(total):
            ok, frame = capture.read()
            if not ok:
                break
            if number in wanted:
                frames.append(frame)
        capture.release()
    return frames


def run(quick: bool) -> list[dict]:
    from helpers.reader import browser_reader
    from helpers.web import running_server

    from companion.vision import Detector

    frames = _frames(1 if quick else 4)
    detector = Detector.load(tile="auto")
    rows = []
    with running_server(pathlib.Path(tempfile.mkdtemp(prefix="bench-browser-")), CAMERA_DETECTION=False) as (base, _app):
        for precision in ("int8", "f32"):
            with browser_reader(base, precision) as reader:
                threads = reader.ready["threads"]
                for index_px in (None, INDEX_PX):
                    reader.read(frames[0], index_px)            # the first run compiles the kernels
                    told = detector.expecting_index_px(index_px) if index_px else detector
                    told.read(frames[0])
                    browser, server = [], []
                    for frame in frames:
                        browser.append(reader.read(frame, index_px)["ms"])
                        if precision == "int8":
                            began = time.perf_counter()
                            told.read(frame)
                            server.append((time.perf_counter() - began) * 1000)
                    look = "whole frame" if index_px is None else "closer look (whole frame + 6 windows)"
                    rows.append({"name": f"browser {precision}, {look}", "median": statistics.median(browser), "unit": "ms/frame",
                                 "note": f"headless Chromium, WASM, {threads} threads, {len(frames)} demo frames 960×720"})
                    if server:
                        rows.append({"name": f"server int8, {look}", "median": statistics.median(server), "unit": "ms/frame",
                                     "note": "companion.vision.Detector.read, onnxruntime, 2 threads, the same frames"})
                        rows.append({"name": f"browser ÷ server, {look}", "median": statistics.median(browser) / statistics.median(server),
                                     "unit": "×", "note": "medians of the two rows above"})
    return rows
