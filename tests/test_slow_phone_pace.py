"""A phone that reads slowly posts fewer, further-apart readings: the server's pipeline must still reach
the recording's truth from them. The readings are the server's own reader's (``companion.vision``, as the
page's are: tests/test_browser_reader_parity.py), posted as a phone posts them
(tests/helpers/pacing.read_on_the_server), so these run without a browser and at any machine's speed.

Both paces failed before their fixes (2026-12-03): the Chosen held a second a frame and read every 0.7 s
(the in-browser test's pace when the page reads in 0.7 s; CI's run of it) settled a passing hand's backs as
chips, because a still posted with the same readings counted as a new look; read at the recording's own
pace every 0.5 s or so, its chosen and chips carried to the vault came as removals and placements,
because the frame that first settled their new place also ended their absence and the removal came first.
"""
from __future__ import annotations

import pytest

from helpers.pacing import held_plan, own_pace_plan, read_on_the_server
from helpers.web import comparable

pytestmark = pytest.mark.slow

RECORDING_FPS = 6          # the demo recordings' frame rate
FINAL_SECONDS = 4.0        # the table as it was left: longer than the tracker's 2 s removal



@pytest.fixture(scope="module")
def detector():
    from companion.vision import Detector

    return Detector.load(tile="auto")


@pytest.mark.parametrize("pace", ["held 1 s, read every 0.7 s", "own pace, read about every 0.5 s"])
def test_a_slow_phones_readings_of_the_chosen_reach_its_truth(tmp_path, detector, pace):
    from companion.synthetic.recording import replay_truth
    from companion.table.demos import demo_dir, demo_truth

    from helpers.video import video_frames

    frames = video_frames(demo_dir("chosen") / "recording.mp4")
    plan = held_plan(len(frames), 0.7, 1.0, FINAL_SECONDS) if pace.startswith("held") else \
        own_pace_plan(len(frames), RECORDING_FPS, 0.5, FINAL_SECONDS, seed=1)
    answer = read_on_the_server("chosen", frames, plan, detector, tmp_path)
    assert comparable(answer["state"]) == comparable(replay_truth(demo_truth("chosen")))
