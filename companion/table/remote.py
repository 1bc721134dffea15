"""A table computer: reads its own camera with the full local detector and posts what it reads to a
server's table (``companion table run --source 0 --post-to URL --table ID --pin PIN``).

The networks run here (closer look sized by the mat's scale the server answers, a learned deck when
``--deck`` names one, read incrementally); the server runs the rest of the table pipeline on the
readings (POST /api/tables/<id>/detections, ``companion.table.readings``). When the server asks for
a still of the frame (``want_frame``: it finds the mat in it) the next post carries one.

Network errors and server errors (5xx) are retried with a doubling back-off (0.5 s up to 30 s), each
time with the newest frame, never a stale one; a flood answer (429) waits its Retry-After; any other
refusal (4xx: another reader took the table over, the table reads with another deck, the server
knows other models, a wrong PIN) stops the computer with the server's own message.
"""
from __future__ import annotations

import json
import secrets
import ssl
import sys
import time as _time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Callable, Iterable

import cv2
import numpy as np

from companion.messages import Message
from companion.table.pipeline import PipelineConfig, skin_fraction
from companion.table.readings import readings_json

BACKOFF_START_SECONDS = 0.5
BACKOFF_MAX_SECONDS = 30.0
# Posts a second at most (the server takes 10 a second per table): a reader faster than this only heats the room.
MAX_POSTS_PER_SECOND = 8.0
# The closer look is re-sized when the server's index size moved this share (as the pipeline does: detector_rescale).
RESCALE_SHARE = 0.1
STILL_JPEG_QUALITY = 85
HOLD_STEP_SECONDS = 0.2


class RemoteError(Exception):
    """Carries a :class:`~companion.messages.Message` (the command line shows it in its language)."""

    def __init__(self, message: Message) -> None:
        super().__init__(str(message))
        self.message = message


class PostRefused(RemoteError):
    """The server refused the readings for a reason retrying cannot mend (a 4xx other than 429)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(Message("the server refused the readings (%(status)s): %(reason)s", status=str(status), reason=reason))
        self.status = status


class NetworkTrouble(RemoteError):
    """No answer, or a server error: worth trying again after a while."""


@dataclass
class ServerTable:
    """One table on a companion server, spoken to over HTTP(S)."""

    base_url: str
    table_id: str
    pin: str | None = None
    token: str | None = None
    timeout: float = 10.0
    insecure: bool = False   # a LAN server's self-signed certificate (companion serve --https)
    language: str | None = None   # the server answers its refusals in this language (Accept-Language)

    def __post_init__(self) -> None:
        parsed = urllib.parse.urlparse(self.base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise RemoteError(Message("--post-to is the server's address, e.g. http://192.168.1.20:8000, got %(url)s",
                                      url=repr(self.base_url)))
        if not (self.pin or self.token):
            raise RemoteError(Message("posting to a table needs its PIN (--pin) or its referee token (--token)"))
        self.base_url = f"{parsed.scheme}://{parsed.netloc}"
        self._context = ssl._create_unverified_context() if self.insecure and parsed.scheme == "https" else None

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.language:
            headers["Accept-Language"] = self.language
        if self.token:
            headers["X-Referee-Token"] = self.token
        else:
            headers["X-Referee-Pin"] = str(self.pin)
        return headers

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict, dict]:
        """(status, JSON answer, headers); NetworkTrouble when no answer came or the server failed (5xx)."""
        data = None if body is None else json.dumps(body, separators=(",", ":"), allow_nan=False).encode()
        request = urllib.request.Request(self.base_url + path, data=data, method=method, headers=self._headers())
        try:
            with urllib.request.urlopen(request, timeout=self.timeout, context=self._context) as response:
                return response.status, json.loads(response.read() or b"{}"), dict(response.headers)
        except urllib.error.HTTPError as error:
            try:
                answer = json.loads(error.read() or b"{}")
            except ValueError:
                answer = {}
            if error.code >= 500:
                raise NetworkTrouble(Message("the server failed (%(status)s): %(reason)s", status=str(error.code),
                                             reason=str(answer.get("error", error.reason)))) from None
            return error.code, answer if isinstance(answer, dict) else {}, dict(error.headers or {})
        except (urllib.error.URLError, OSError, ValueError) as error:   # refused, reset, timed out, garbled
            raise NetworkTrouble(Message("no answer from %(server)s: %(reason)s", server=self.base_url,
                                         reason=str(getattr(error, "reason", error)))) from None

    def post_readings(self, body: dict) -> tuple[int, dict, dict]:
        return self.request("POST", f"/api/tables/{self.table_id}/detections", body)

    def state(self) -> dict:
        status, answer, _ = self.request("GET", f"/api/tables/{self.table_id}")
        if status != 200:
            raise PostRefused(status, str(answer.get("error", "")))
        return answer


@dataclass
class PostingReport:
    posted: int = 0          # posts the server took
    stills: int = 0          # of them with a still of the frame (the server asked)
    retries: int = 0         # network errors and server errors waited out
    waited_429: int = 0      # flood answers waited out
    events: list[dict] = field(default_factory=list)   # the table events the server's pipeline raised
    index_px: float | None = None
    last_error: str | None = None

    def to_json(self) -> dict:
        return {"posted": self.posted, "stills": self.stills, "retries": self.retries, "waited_429": self.waited_429,
                "table_events": len(self.events), "index_px": self.index_px, "last_error": self.last_error}


def local_reader(detector):
    """The detector as a table computer runs it: read incrementally when it is the neural detector
    (what did not change is not read again), with the readings of each frame at hand (``last_reading``)."""
    from companion.vision.incremental import reads_incrementally

    return reads_incrementally(detector)


def _reading_of(reader, frame):
    """(indices, backs) of one frame, from an incremental reader or any detector with ``read``."""
    if hasattr(reader, "last_reading"):
        reader(frame)
        reading = reader.last_reading
    else:
        reading = reader.read(frame)
    return reading.indices, reading.backs


def post_frames(frames: Iterable[tuple[float, np.ndarray]], detector, server: ServerTable, reader_info: dict,
                feed: str | None = None, pace: bool = False, hold_seconds: float = 0.0,
                max_rate: float = MAX_POSTS_PER_SECOND, on_answer: Callable[[dict], None] | None = None,
                clock=_time.monotonic, sleep=_time.sleep, log=lambda message: print(message, file=sys.stderr)) -> PostingReport:
    """Reads each frame and posts its readings; returns what happened. ``pace``: a recording plays at
    its own timestamps (a camera's frames come at their own pace anyway); ``hold_seconds``: after the
    last frame (a recording that ends) its readings are posted again that long, as a camera would go
    on seeing the table as it was left. Raises PostRefused when the server refuses for good."""
    reader = local_reader(detector)
    feed = feed or f"tc-{secrets.token_hex(6)}"
    report = PostingReport()
    occluder = PipelineConfig().occluder_fraction
    state = {"seq": 0, "want_frame": True, "index_px": None, "backoff": BACKOFF_START_SECONDS, "last_post": None}
    started = None

    def send(stamp: float, frame: np.ndarray, indices, backs, ms: float) -> None:
        still = None
        if state["want_frame"]:
            ok, encoded = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, STILL_JPEG_QUALITY])
            still = encoded.tobytes() if ok else None
        body = readings_json(indices, backs, frame.shape[:2], stamp, state["seq"], {**reader_info, "ms": round(ms, 1)},
                             feed=feed, mat_frame=still, occluded=skin_fraction(frame) >= occluder)
        state["seq"] += 1
        if state["last_post"] is not None and max_rate > 0:
            sleep(max(0.0, 1.0 / max_rate - (clock() - state["last_post"])))
        state["last_post"] = clock()
        try:
            status, answer, headers = server.post_readings(body)
        except NetworkTrouble as trouble:
            report.retries += 1
            report.last_error = str(trouble)   # English, for the JSON report
            log(Message("%(trouble)s: trying again in %(seconds)s s", trouble=trouble.message, seconds=f"{state['backoff']:g}"))
            sleep(state["backoff"])
            state["backoff"] = min(BACKOFF_MAX_SECONDS, state["backoff"] * 2)
            return
        state["backoff"] = BACKOFF_START_SECONDS
        if status == 429:
            report.waited_429 += 1
            retry = headers.get("Retry-After") or headers.get("retry-after") or "1"
            sleep(float(retry) if str(retry).replace(".", "", 1).isdigit() else 1.0)
            return
        if status != 200:
            raise PostRefused(status, str(answer.get("error", "")))
        report.posted += 1
        report.stills += still is not None
        report.events.extend(answer.get("events", []))
        state["want_frame"] = bool(answer.get("want_frame"))
        state["index_px"] = answer.get("index_px")
        report.index_px = state["index_px"]
        if on_answer is not None:
            on_answer(answer)

    last = None
    for stamp, frame in frames:
        if pace:
            if started is None:
                started = clock() - stamp
            sleep(max(0.0, started + stamp - clock()))
        reader = _told_scale(reader, state["index_px"])
        began = _time.perf_counter()
        indices, backs = _reading_of(reader, frame)
        send(stamp, frame, indices, backs, (_time.perf_counter() - began) * 1000)
        last = stamp, frame, indices, backs
    if last is not None and hold_seconds > 0:
        stamp, frame, indices, backs = last
        for k in range(1, int(hold_seconds / HOLD_STEP_SECONDS) + 1):
            if pace:
                sleep(max(0.0, started + stamp + k * HOLD_STEP_SECONDS - clock()))
            send(stamp + k * HOLD_STEP_SECONDS, frame, indices, backs, 0.0)
    return report


def _told_scale(reader, index_px):
    """The reader told the server's index size (the mat's scale), when it moved enough to matter."""
    if not index_px or not hasattr(reader, "expecting_index_px"):
        return reader
    current = getattr(reader, "index_px", None)
    if current is not None and abs(current - index_px) <= RESCALE_SHARE * index_px:
        return reader
    return reader.expecting_index_px(float(index_px))


def read_like_a_table_computer(pipeline, frames: Iterable[tuple[float, np.ndarray]]):
    """Each frame read by a local table pipeline's own neural detector (incrementally, its closer look
    sized by the mat's scale, as a table computer's is once the server told it): ``(time, frame,
    indices, backs)``. What a server would be posted, without a server: the load benchmark records
    the demo recordings' readings with it, and the tests compare posted readings with frames."""
    for stamp, frame in frames:
        pipeline.process(stamp, frame)
        reading = (pipeline._detector_at_scale or pipeline.detector).last_reading
        yield stamp, frame, reading.indices, reading.backs
