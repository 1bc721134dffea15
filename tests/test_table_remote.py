"""A table computer (``companion table run --source … --post-to URL --table ID --pin PIN``): it reads its
own camera with the full local detector and a real server's table reaches the recording's truth; it
retries network errors with a doubling back-off and stops with the server's message on a refusal."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from companion.synthetic.recording import replay_truth
from companion.table.demos import demo_dir, demo_truth
from companion.table.remote import BACKOFF_START_SECONDS, NetworkTrouble, PostRefused, ServerTable, post_frames
from helpers.web import request, running_server


def table_run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", "table", "run", *args], capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_a_table_computer_brings_a_servers_table_to_the_recordings_truth(tmp_path):
    game = "chosen"
    truth = demo_truth(game)
    # the server reads no frame itself (CAMERA_DETECTION off): everything it knows comes from the posts
    with running_server(tmp_path, CAMERA_DETECTION=False) as (base, app):
        _, table = request(base, "POST", "/api/tables", {"game": game, **truth["setup"]})
        done = table_run("--source", str(demo_dir(game)), "--post-to", base, "--table", table["id"].lower(),
                         "--pin", table["pin"], "--check-truth", "--json")
        assert done.returncode == 0, done.stderr[-2000:]
        report = json.loads(done.stdout)
        assert report["truth_matched"] is True and report["retries"] == 0
        assert 0 < report["stills"] < report["posted"] / 3   # stills only when the server asked
        status, state = request(base, "GET", f"/api/tables/{table['id']}")
        assert {k: v for k, v in state.items() if k not in ("session", "log")} == \
            {k: v for k, v in replay_truth(truth).items() if k not in ("session", "log")}
        _, camera = request(base, "GET", f"/api/tables/{table['id']}/camera")
        assert camera["feed"]["reader"]["kind"] == "table-computer"
        assert camera["feed"]["camera_events"] == len(truth["events"])
        assert {entry.source for entry in app.extensions["registry"].get(table["id"]).journal} == {"camera"}


def test_a_refused_table_computer_stops_with_the_servers_message(tmp_path):
    with running_server(tmp_path, CAMERA_DETECTION=False) as (base, _):
        _, table = request(base, "POST", "/api/tables", {"game": "chosen", "players": ["Ann", "Bo"], "seed": 5})
        done = table_run("--source", str(demo_dir("chosen")), "--post-to", base, "--table", table["id"], "--pin", "000000",
                         "--max-frames", "3")
        assert done.returncode == 1
        assert "the server refused the readings (403)" in done.stderr and "PIN" in done.stderr
    assert table_run("--source", "0", "--post-to", "ftp://x", "--table", "ABCDEF", "--pin", "1").returncode == 2
    missing = table_run("--source", str(demo_dir("chosen")), "--post-to", "http://127.0.0.1:9", "--pin", "1")
    assert missing.returncode == 2 and "--table" in missing.stderr


class FlakyServer(ServerTable):
    """A server that drops the line twice, then answers, then refuses (another reader took over)."""

    def __init__(self, answers):
        super().__init__("http://127.0.0.1:1", "ABCDEF", pin="123456")
        self.answers, self.bodies = list(answers), []

    def post_readings(self, body):
        self.bodies.append(body)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


class StillDetector:
    """Reads nothing (an empty table): the posting loop is under test, not the eyes."""

    def read(self, frame):
        from companion.vision.detector import FrameReading
        from companion.vision.detections import Detections

        return FrameReading(Detections.empty(), [], [])


def test_network_errors_are_retried_with_a_doubling_back_off_and_a_refusal_stops(tmp_path):
    ok = (200, {"seq": 0, "cards": [], "events": [], "index_px": None, "want_frame": False}, {})
    server = FlakyServer([NetworkTrouble("reset"), NetworkTrouble("reset"), ok, (429, {"error": "too fast"}, {"Retry-After": "2"}),
                          ok, (409, {"error": "another reader took over this table's camera"}, {})])
    slept = []
    frames = [(k / 6, np.zeros((720, 960, 3), np.uint8)) for k in range(10)]
    reader = {"kind": "table-computer", "backend": "onnxruntime", "models": "0" * 64, "deck": None}
    with pytest.raises(PostRefused, match=r"\(409\): another reader took over"):
        post_frames(frames, StillDetector(), server, reader, feed="f", max_rate=0, sleep=slept.append, log=lambda text: None)
    assert slept == [BACKOFF_START_SECONDS, 2 * BACKOFF_START_SECONDS, 2.0]   # back-off doubled, then Retry-After
    assert [b["frame"]["seq"] for b in server.bodies] == [0, 1, 2, 3, 4, 5]   # each try a newer frame, seq growing
    assert "mat_frame" in server.bodies[0] and "mat_frame" not in server.bodies[3]   # a still until told otherwise
