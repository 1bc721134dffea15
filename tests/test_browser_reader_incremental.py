"""The phone's own reader reads a camera's frames incrementally (reader_core.js makeIncrementalReader in
reader_worker.js: only what changed since the frame read before) and gives what the server's incremental
reader (companion.vision.incremental.IncrementalReader) gives on the same frames: frame after frame the
same index boxes (each corner within 2 px), codes and turns, the same face-down boxes, and the same work
(whether the frame changed, the detector passes run, the indices classified and kept).

The frames: a run of consecutive frames of each shipped demo recording where a hand lays or moves cards
and the table lies still between (so the run holds frames where nothing changed, frames where a part of
the table changed and the 8th frame's full recheck), read with the closer look a mat's scale starts
(the index size the server answers on that mat, as tests/test_browser_reader.py reads them)."""
from __future__ import annotations

import pytest

from helpers.reader import browser_reader, disagreements, python_reading
from helpers.web import running_server
from test_browser_reader import DEMO_FRAMES

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# (game, the first frame of the run): each run holds still frames and frames where a hand moved cards
RUNS = {"dungeon": 50, "chosen": 40, "kingdoms": 100}
RUN_FRAMES = 17   # two full rechecks (the 8th and 16th frame) and the frames between


def test_the_page_reads_only_what_changed_as_the_server_does(tmp_path):
    from companion.table.demos import demo_dir
    from companion.vision import Detector
    from companion.vision.incremental import IncrementalReader

    from helpers.video import video_frames

    detector = Detector.load(tile="auto")
    index_sizes = {game: index_px for game, _, index_px in DEMO_FRAMES}
    problems, works = {}, []
    with running_server(tmp_path / "data", CAMERA_DETECTION=False) as (base, app):
        with browser_reader(base) as reader:
            for game, start in RUNS.items():
                index_px = index_sizes[game]
                frames = video_frames(demo_dir(game) / "recording.mp4")[start:start + RUN_FRAMES]
                server = IncrementalReader(detector).expecting_index_px(index_px)
                reader.reset()
                for number, frame in enumerate(frames, start):
                    python = python_reading(server, frame)
                    work = server.last_work
                    browser = reader.read(frame, index_px, whole=False)
                    expected = {"changed": work.changed, "passes": work.passes, "classified": work.classified, "kept": work.kept}
                    works.append(expected)
                    differ = disagreements(python, browser)
                    if browser["work"] != expected:
                        differ.append(f"work: the server {expected}, the page {browser['work']}")
                    if differ:
                        problems[f"{game}@{number}"] = differ
            assert reader.errors == []
    assert problems == {}
    full = max(w["passes"] for w in works)
    # the runs went through every path: nothing changed, a part changed, the whole frame read again
    assert any(not w["changed"] for w in works), "no frame of the runs was still"
    assert any(w["changed"] and 0 < w["passes"] < full for w in works), "no frame re-read only a part"
    assert any(w["kept"] > 0 for w in works), "no index kept its reading"
    assert sum(w["passes"] == full for w in works) >= len(RUNS) * 2
