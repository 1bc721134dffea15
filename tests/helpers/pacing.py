"""Playing a demo recording to a reader slower than the recording: which frames are played, how long
each is held, and what a reader that reads one frame every ``read_s`` seconds sees of them.

A reader that reads a frame in ``read_s`` seconds sees a held frame about ``hold_s / read_s`` times;
the first of them is a new look, the others read the same pixels again. The tracker's timers are in
seconds (a card settles in 0.6 s, one gone is removed after 2 s), so the table's clock must run at
about the recording's own pace, or not much slower: a hand that carries a card across the mat in one second of the
recording must not take two on the table, or the card is removed and placed anew instead of moved
(the Chosen recording read at twice its own pace while the phone's posts did not yet say when a hand
was over the table, 2026-12-02). So the frames played are every
``every``-th, ``every`` the recording's frames in one hold."""
from __future__ import annotations

import math
import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Pace:
    every: int          # every this-many-th frame of the recording is played ...
    hold_s: float       # ... each held this long
    final_s: float      # the last one held this much longer (the table as it was left)

    @classmethod
    def for_reader(cls, read_s: float, fps: float, final_s: float, margin: float = 1.4) -> "Pace":
        """The pace for a reader taking ``read_s`` a frame: each frame held ``margin`` readings (so no
        frame goes unread however the reader's clock falls), the frames ``every`` apart so that the
        table's clock runs at the recording's pace."""
        every = max(1, math.ceil(margin * read_s * fps))
        return cls(every, every / fps, final_s)

    def picks(self, frame_count: int) -> list[int]:
        """The recording's frames played, in order (its last one always)."""
        picked = list(range(0, frame_count, self.every))
        if picked[-1] != frame_count - 1:
            picked.append(frame_count - 1)
        return picked

    def readings(self, frame_count: int, read_s: float) -> list[tuple[float, int]]:
        """(time, frame index) of each reading by a reader that reads one frame every ``read_s``
        seconds from the moment the first is shown: what it sees at each."""
        picked = self.picks(frame_count)
        end = len(picked) * self.hold_s + self.final_s
        out, k = [], 0
        while k * read_s < end:
            time = k * read_s
            out.append((round(time, 4), picked[min(len(picked) - 1, int(time / self.hold_s))]))
            k += 1
        return out


def held_plan(frame_count: int, read_s: float, hold_s: float, final_s: float, jitter: float = 0.0,
              seed: int = 0) -> list[tuple[float, int]]:
    """Every third frame held ``hold_s`` (the in-browser test's pacing), read about every ``read_s`` by a
    clock that adds up its reading times, as a page's does (a reading on a hold's edge sees the frame
    before; ``jitter``: the spread of log reading times, for a phone doing other work too): (time,
    frame index) of each reading."""
    picks = Pace(3, hold_s, final_s).picks(frame_count)
    return [(round(time, 4), picks[min(len(picks) - 1, int(time / hold_s))])
            for time in _reading_times(len(picks) * hold_s + final_s, read_s, jitter, seed)]


def own_pace_plan(frame_count: int, fps: float, read_s: float, final_s: float, jitter: float = 0.4,
                  seed: int = 0) -> list[tuple[float, int]]:
    """The recording at its own pace (``fps``), read at irregular times about ``read_s`` apart: (time,
    frame index) of each reading."""
    return [(round(time, 4), min(frame_count - 1, int(time * fps)))
            for time in _reading_times(frame_count / fps + final_s, read_s, jitter, seed)]


def _reading_times(end_s: float, read_s: float, jitter: float, seed: int) -> list[float]:
    """A reader's times from 0 to ``end_s``, each reading ``read_s`` long times e^N(0, ``jitter``) (a clock
    that adds up its reading times, as a page's does; no spread when ``jitter`` is 0). Unrounded: the frame a
    reading sees is told from the sum itself (a reading on a hold's edge sees the frame before)."""
    rng, times, time = random.Random(seed), [], 0.0
    while time < end_s:
        times.append(time)
        time += read_s * math.exp(rng.gauss(0, jitter)) if jitter else read_s
    return times


def write_y4m(frames: list, out, repeats: list[int], fps: int) -> None:
    """``frames`` (BGR) as a Y4M Chromium plays as its fake camera, frame k written ``repeats[k]`` times
    at ``fps`` (Chromium plays whole frame rates only, and none below 1 frame/s)."""
    import cv2

    height, width = frames[0].shape[:2]
    with open(out, "wb") as handle:
        handle.write(f"YUV4MPEG2 W{width} H{height} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for frame, repeat in zip(frames, repeats):
            planes = cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420).tobytes()
            for _ in range(repeat):
                handle.write(b"FRAME\n")
                handle.write(planes)


def read_on_the_server(game: str, frames: list, plan: list[tuple[float, int]], detector, data_dir) -> dict:
    """The server's own reader (``companion.vision``, each frame read in full as the phone reads it) on the
    readings ``plan`` (time, frame index), posted to a table of a fresh server as the phone posts its
    own (a still when asked, the hand over the table judged as the server judges its frames): the
    table's state, its camera events and the posts made."""
    import cv2

    from companion.table.demos import demo_truth
    from companion.table.pipeline import PipelineConfig, skin_fraction
    from companion.table.readings import readings_json
    from companion.vision.models import models_fingerprint
    from web_ui import create_app

    truth = demo_truth(game)
    app = create_app({"TESTING": True, "DATA_DIR": str(data_dir), "CAMERA_DETECTION": False,
                      "MAX_DETECTIONS_PER_SECOND": 1000.0, "DETECTIONS_BURST": 1000})
    client = app.test_client()
    table = client.post("/api/tables", json={"game": game, **truth["setup"]}).get_json()
    headers = {"X-Referee-Token": table["referee_token"]}
    for event in truth.get("setup_events", []):
        assert client.post(f"/api/tables/{table['id']}/events", json=event, headers=headers).status_code == 200
    reader = {"kind": "table-computer", "backend": "onnxruntime", "ms": None, "models": models_fingerprint(), "deck": None}
    occluder = PipelineConfig().occluder_fraction
    readings: dict = {}
    want, index_px = True, None
    try:
        for seq, (time, index) in enumerate(plan):
            frame = frames[index]
            if (index, index_px) not in readings:   # the same pixels read again read the same (the browser's too)
                told = detector.expecting_index_px(index_px) if index_px else detector
                readings[index, index_px] = told.read(frame)
            reading = readings[index, index_px]
            still = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes() if want else None
            body = readings_json(reading.indices, reading.backs, frame.shape[:2], time, seq, reader, feed="server",
                                 mat_frame=still, occluded=skin_fraction(frame) >= occluder)
            answer = client.post(f"/api/tables/{table['id']}/detections", json=body, headers=headers)
            assert answer.status_code == 200, answer.get_json()
            want, index_px = answer.get_json()["want_frame"], answer.get_json()["index_px"]
        feed = client.get(f"/api/tables/{table['id']}/camera").get_json()["feed"]
        return {"state": client.get(f"/api/tables/{table['id']}").get_json(), "camera_events": feed["camera_events"],
                "posts": len(plan)}
    finally:
        app.extensions["camera"].close()
