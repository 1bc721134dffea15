"""The phone's own reader (issue 23) beside the server's: reading time per 960×720 frame in headless
Chromium (onnxruntime-web, WASM with SIMD and two threads, the page cross-origin isolated) and in the
server's Python reader (companion.vision.Detector, onnxruntime, 2 threads), the same int8 networks
and the same frames of the three demo recordings, taking turns frame by frame so a load that comes
and goes on the machine weighs on both alike. Two readings of each frame: the whole frame alone, and
with the closer look a mat's scale starts (the whole frame and six windows of 416 px). The browser's
figure is the worker's own reading time (from the frame's pixels to the readings), the server's the
wall time of ``Detector.read`` before grouping. One browser row with the f32 networks beside.

Then a camera's frames, read incrementally by both (the page's worker, reader_core.js
makeIncrementalReader, against companion.vision.incremental.IncrementalReader, the same int8 networks):
runs of consecutive frames of each demo where a hand lays or moves cards and the table lies still between,
taking turns frame by frame. Each frame is put in a kind by the server's own work on it: nothing changed
(no network runs), a hand moved (part of the table re-read: the whole-frame pass and the windows the
change touches), the full recheck (every 8th frame); the medians per kind, the page ÷ the server, and
where the page's time goes on a frame where a hand moved (its two networks, the JavaScript around them).
The machine's load average (``os.getloadavg``) is said at the start and the end: timings on a loaded
machine are slower, the ratio side by side in one run is the figure to read.

    python benchmarks/run.py browser
"""
from __future__ import annotations

import os
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
# Runs of consecutive frames (first frame, quick's length, full length): a hand laying and moving cards, the table still between
RUNS = {"dungeon": (50, 17, 60), "chosen": (40, 17, 60), "kingdoms": (100, 17, 60)}


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
    load_before = os.getloadavg()[0]
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
                if precision == "int8":
                    rows += _incremental(reader, detector, quick)
    load = f"load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end ({os.cpu_count()} cores)"
    for row in rows:
        row["note"] = f"{row.get('note', '')}; {load}".lstrip("; ")
    return rows


def _incremental(reader, detector, quick: bool) -> list[dict]:
    """A camera's frames read incrementally by the page and by the server, side by side (see the module)."""
    from companion.table.demos import demo_dir
    from companion.vision.incremental import IncrementalReader

    from helpers.video import video_frames

    kinds: dict[str, dict[str, list]] = {kind: {"page": [], "server": [], "detect": [], "classify": []}
                                         for kind in ("still", "moved", "recheck")}
    for game, (start, short, long) in RUNS.items():
        frames = video_frames(demo_dir(game) / "recording.mp4")[start:start + (short if quick else long)]
        server = IncrementalReader(detector).expecting_index_px(INDEX_PX)
        reader.reset()
        full = None
        for frame in frames:
            page = reader.read(frame, INDEX_PX, whole=False)
            began = time.perf_counter()
            server.read(frame)
            server_ms = (time.perf_counter() - began) * 1000
            work = server.last_work
            full = work.passes if full is None else full   # the camera's first frame is read in full
            kind = "still" if not work.changed else "recheck" if work.passes == full else "moved"
            for name, value in (("page", page["ms"]), ("server", server_ms), ("detect", page["detect_ms"]), ("classify", page["classify_ms"])):
                kinds[kind][name].append(value)
    rows = []
    what = {"still": "a frame where nothing moved", "moved": "a frame where a hand moved cards",
            "recheck": "the full recheck (every 8th frame)"}
    for kind, found in kinds.items():
        if not found["page"]:
            continue
        page, server = statistics.median(found["page"]), statistics.median(found["server"])
        note = f"{len(found['page'])} frames of {len(RUNS)} demo runs, 960×720, index {INDEX_PX} px"
        rows.append({"name": f"incremental, {what[kind]}: browser int8", "median": page, "unit": "ms/frame", "note": note})
        rows.append({"name": f"incremental, {what[kind]}: server int8", "median": server, "unit": "ms/frame",
                     "note": "IncrementalReader.read, the same frames"})
        if kind != "still":
            rows.append({"name": f"incremental, {what[kind]}: browser ÷ server", "median": page / server, "unit": "×",
                         "note": "medians of the two rows above"})
            detect, classify = statistics.median(found["detect"]), statistics.median(found["classify"])
            rows.append({"name": f"incremental, {what[kind]}: browser's detector / classifier / the rest", "median": detect,
                         "unit": "ms (detector)", "note": f"classifier {classify:.0f} ms, the JavaScript around them "
                         f"{max(0.0, page - detect - classify):.0f} ms (medians)"})
    return rows
