"""Readings posted by a reader elsewhere: the table pipeline's second entry point.

A phone's browser or a table computer runs the two networks itself (the detector and the
classifier: ~98 % of the cost of a frame) and sends what ``companion.vision.Detector.read`` gives
before grouping: each corner index's box, score, code and turn, and the face-down boxes. The
server runs everything after them as it does for its own frames (grouping with
``companion.vision.grouping.cards_from_readings``, mat, zones, tracker, bindings, questions):

    frames   ─► detector ─► index readings + backs ─┐
    readings (posted) ─────────────────────────────┴─► grouping ─► mat ─► tracker ─► binding

:class:`Readings` is one post, checked (:func:`parse_readings`: every field bounded, every number
finite, every box inside the frame) before anything reaches a pipeline; :func:`readings_json` is the
same post as a table computer writes it. The wire format is documented in ``docs/web.md`` (POST
/api/tables/<id>/detections) and ``web_ui/openapi.yaml``.
"""
from __future__ import annotations

import base64
import binascii
import math
import re
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from companion.messages import Message
from companion.vision.grouping import ROTATIONS, IndexReading
from companion.vision.models import CLASSIFIER_CLASSES

# The bounds of one post (the detector keeps at most 300 boxes a frame, its max_det; a table of three
# games holds far fewer: the Kingdoms grid's 30 cards show about 60 indices).
MAX_INDICES = 300
MAX_BACKS = 100
MAX_MARKERS = 64              # a mat prints 4-8 (calibration/layouts.py); ids up to the dictionary's 100
MAX_MARKER_ID = 999
BOX_MARGIN_PX = 2.0           # a box may run this far past the frame's edge (a detector's rounding)
MIN_SIDE, MAX_SIDE = 16, 4096  # frame width and height in pixels (as a posted frame: 4096 × 4096 at most)
MAX_TIME_SECONDS = 1e7        # a client's clock in seconds since it started reading: 115 days
MAX_SEQ = 2 ** 53 - 1         # what a JavaScript number holds exactly
FEED_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
MODELS_HASH = re.compile(r"^[0-9a-f]{64}$")
READER_KINDS = ("browser", "table-computer")
MAX_READER_TEXT = 40          # backend and deck names
CODES = frozenset(CLASSIFIER_CLASSES[:-1])   # the 54 faces; NONE is sent as null


class ReadingsError(ValueError):
    """A post that cannot be taken, with the HTTP status that says why (400 malformed, 409 in conflict
    with the feed, 413 too large). Nothing has been changed when it is raised. Carries a
    :class:`~companion.messages.Message` (translated where it is shown); ``str`` is the English."""

    def __init__(self, message: "Message | str", status: int = 400) -> None:
        super().__init__(str(message))
        self.message = message if isinstance(message, Message) else Message(str(message))
        self.status = status


@dataclass(frozen=True)
class ReaderInfo:
    kind: str
    backend: str
    ms: float | None
    models: str
    deck: str | None


@dataclass(frozen=True)
class Readings:
    """One frame's readings as a reader elsewhere saw them (frame pixels, the client's clock)."""

    width: int
    height: int
    time: float
    seq: int
    indices: tuple[IndexReading, ...]
    backs: tuple[tuple[tuple[float, float, float, float], float], ...]
    reader: ReaderInfo
    feed: str = ""
    markers: dict[int, np.ndarray] | None = None   # the mat's ArUco markers the client found (None: it did not look)
    occluded: bool | None = None                   # a hand over the table, as the client judged (None: not said)
    mat_frame: bytes | None = field(default=None, repr=False)   # the encoded still, as posted
    frame: np.ndarray | None = field(default=None, repr=False)  # that still decoded (by the caller, within its limits)

    @property
    def frame_shape(self) -> tuple[int, int]:
        return self.height, self.width

    def with_frame(self, frame: np.ndarray) -> "Readings":
        """These readings with their still decoded; it must be the frame they were read from (its size)."""
        if frame.shape[:2] != self.frame_shape:
            raise ReadingsError(Message("mat_frame is %(still)s pixels but the frame read was %(frame)s: send the still of "
                                        "the frame read", still=f"{frame.shape[1]}×{frame.shape[0]}", frame=f"{self.width}×{self.height}"))
        return replace(self, frame=frame)

    def same_readings(self, other: "Readings | None") -> bool:
        """Whether ``other`` read exactly the same indices and backs (a still table read incrementally)."""
        return other is not None and other.indices == self.indices and other.backs == self.backs \
            and other.frame_shape == self.frame_shape


class PostedReader:
    """What a table pipeline fed with posted readings knows of their reader: the thresholds it read at
    (the tracker's sure levels follow them, ``pipeline.sure_as_the_detector``) and the learned deck it
    read with, if any. It reads no frame itself."""

    def __init__(self, conf: float, back_conf: float, deck: Any = None) -> None:
        self.conf, self.back_conf, self.deck = float(conf), float(back_conf), deck
        self.index_px: float | None = None

    @property
    def learned_back(self) -> bool:
        return self.deck is not None and getattr(self.deck, "back", None) is not None

    def __call__(self, frame: np.ndarray):
        raise TypeError("this table's pipeline takes posted readings (TablePipeline.process_readings), not frames")


def posted_reader(deck: Any = None, weights_dir=None) -> PostedReader:
    """The reader of the shipped models (models.json's thresholds), with ``deck`` as ``Detector.with_deck`` sets them."""
    import json

    from companion.vision.detector import thresholds_with_deck
    from companion.vision.models import DEFAULT_THRESHOLDS, default_weights_dir

    directory = default_weights_dir() if weights_dir is None else weights_dir
    try:
        detector = json.loads((directory / "models.json").read_text())["detector"]
        conf, back_conf = float(detector.get("conf", DEFAULT_THRESHOLDS["conf"])), float(detector.get("back_conf", DEFAULT_THRESHOLDS["back_conf"]))
    except (OSError, ValueError, KeyError, TypeError):
        conf, back_conf = DEFAULT_THRESHOLDS["conf"], DEFAULT_THRESHOLDS["back_conf"]
    conf, back_conf = thresholds_with_deck(conf, back_conf, deck)
    return PostedReader(conf, back_conf, deck)


# -- checking a post ---------------------------------------------------------------------------------
def _number(value: Any, what: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ReadingsError(Message("%(what)s must be a number, got %(kind)s", what=what, kind=type(value).__name__))
    number = float(value)
    if not math.isfinite(number):
        raise ReadingsError(Message("%(what)s must be a finite number, got %(value)s", what=what, value=str(value)))
    if not low <= number <= high:
        raise ReadingsError(Message("%(what)s must be between %(low)s and %(high)s, got %(value)s", what=what,
                                    low=f"{low:g}", high=f"{high:g}", value=f"{number:g}"))
    return number


def _integer(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ReadingsError(Message("%(what)s must be a whole number, got %(value)s", what=what, value=repr(value)[:60]))
    if not low <= value <= high:
        raise ReadingsError(Message("%(what)s must be between %(low)s and %(high)s, got %(value)s", what=what,
                                    low=str(low), high=str(high), value=str(value)))
    return value


def _object(value: Any, what: str) -> dict:
    if not isinstance(value, dict):
        raise ReadingsError(Message("%(what)s must be a JSON object, got %(kind)s", what=what, kind=type(value).__name__))
    return value


def _list(value: Any, what: str, most: int) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ReadingsError(Message("%(what)s must be a list, got %(kind)s", what=what, kind=type(value).__name__))
    if len(value) > most:
        raise ReadingsError(Message("%(what)s: %(count)s is too many, at most %(most)s in one frame", what=what,
                                    count=len(value), most=most))
    return value


def _box(value: Any, what: str, width: int, height: int) -> tuple[float, float, float, float]:
    if not isinstance(value, list) or len(value) != 4:
        raise ReadingsError(Message("%(what)s must be [x1, y1, x2, y2] in frame pixels", what=what))
    x1, y1, x2, y2 = (_number(v, what, -1e9, 1e9) for v in value)
    if not (-BOX_MARGIN_PX <= x1 < x2 <= width + BOX_MARGIN_PX and -BOX_MARGIN_PX <= y1 < y2 <= height + BOX_MARGIN_PX):
        raise ReadingsError(Message("%(what)s %(box)s is not a box inside the %(frame)s frame (x1 < x2, y1 < y2, at most "
                                    "%(margin)s px past its edges)", what=what, box=f"[{x1:g}, {y1:g}, {x2:g}, {y2:g}]",
                                    frame=f"{width}×{height}", margin=f"{BOX_MARGIN_PX:g}"))
    return x1, y1, x2, y2


def _text(value: Any, what: str, most: int = MAX_READER_TEXT, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value or len(value) > most:
        raise ReadingsError(Message("%(what)s must be a text of 1-%(most)s characters", what=what, most=most))
    return value


def parse_readings(body: Any) -> Readings:
    """One post of readings, every field checked (see the module's doc); ReadingsError otherwise.

    ``mat_frame`` comes back as its bytes, still encoded: the caller checks their size and pixels as it
    does a posted frame's, decodes them and adds the picture (:meth:`Readings.with_frame`)."""
    body = _object(body, "the body")
    frame = _object(body.get("frame"), '"frame" ({"width", "height", "time", "seq"})')
    width = _integer(frame.get("width"), "frame.width", MIN_SIDE, MAX_SIDE)
    height = _integer(frame.get("height"), "frame.height", MIN_SIDE, MAX_SIDE)
    time = _number(frame.get("time"), "frame.time (seconds on the reader's clock)", 0.0, MAX_TIME_SECONDS)
    seq = _integer(frame.get("seq"), "frame.seq", 0, MAX_SEQ)
    feed = frame.get("feed", "")
    if feed != "" and (not isinstance(feed, str) or not FEED_ID.match(feed)):
        raise ReadingsError(Message("frame.feed is 1-64 letters, digits or . _ : - (an id the reader picks when it starts)"))
    indices = []
    for n, item in enumerate(_list(body.get("indices"), '"indices"', MAX_INDICES)):
        item = _object(item, f"indices[{n}]")
        box = _box(item.get("box"), f"indices[{n}].box", width, height)
        score = _number(item.get("score"), f"indices[{n}].score", 0.0, 1.0)
        code = item.get("code")
        if code is not None and (not isinstance(code, str) or code not in CODES):
            raise ReadingsError(Message("%(what)s %(code)s is no card code the models read (AS … KC, 10H, BJ, SJ; null for "
                                        "no index)", what=f"indices[{n}].code", code=repr(str(code)[:12])))
        code_score = _number(item.get("code_score"), f"indices[{n}].code_score", 0.0, 1.0)
        turn = item.get("turn", 0)
        if isinstance(turn, bool) or turn not in ROTATIONS:
            raise ReadingsError(Message("%(what)s is the quarter turn 0, 90, 180 or 270 that read the crop upright",
                                        what=f"indices[{n}].turn"))
        indices.append(IndexReading(box, score, code, code_score, int(turn)))
    backs = []
    for n, item in enumerate(_list(body.get("backs"), '"backs"', MAX_BACKS)):
        item = _object(item, f"backs[{n}]")
        backs.append((_box(item.get("box"), f"backs[{n}].box", width, height), _number(item.get("score"), f"backs[{n}].score", 0.0, 1.0)))
    markers = None
    if body.get("markers") is not None:
        markers = {}
        for n, item in enumerate(_list(body["markers"], '"markers"', MAX_MARKERS)):
            item = _object(item, f"markers[{n}]")
            marker = _integer(item.get("id"), f"markers[{n}].id", 0, MAX_MARKER_ID)
            corners = item.get("corners")
            if not isinstance(corners, list) or len(corners) != 4 or not all(isinstance(c, list) and len(c) == 2 for c in corners):
                raise ReadingsError(Message("%(what)s must be four [x, y] points", what=f"markers[{n}].corners"))
            points = [(_number(x, f"markers[{n}].corners", -BOX_MARGIN_PX, width + BOX_MARGIN_PX),
                       _number(y, f"markers[{n}].corners", -BOX_MARGIN_PX, height + BOX_MARGIN_PX)) for x, y in corners]
            markers[marker] = np.array(points, np.float32)
    occluded = body.get("occluded")
    if occluded is not None and not isinstance(occluded, bool):
        raise ReadingsError(Message('"occluded" is true or false (hands over the table)'))
    mat_frame = body.get("mat_frame")
    if mat_frame is not None:
        if not isinstance(mat_frame, str) or not mat_frame:
            raise ReadingsError(Message('"mat_frame" is a base64 JPEG (or PNG) of the frame read'))
        text = mat_frame.split(",", 1)[1] if mat_frame.startswith("data:") else mat_frame   # a data: URL from a canvas
        try:
            mat_frame = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise ReadingsError(Message('"mat_frame" is not base64')) from None
    reader = _object(body.get("reader"), '"reader" ({"kind", "backend", "ms", "models", "deck"})')
    kind = reader.get("kind")
    if kind not in READER_KINDS:
        raise ReadingsError(Message("reader.kind is one of %(kinds)s", kinds=", ".join(READER_KINDS)))
    models = reader.get("models")
    if not isinstance(models, str) or not MODELS_HASH.match(models):
        raise ReadingsError(Message("reader.models is the sha256 (64 lowercase hex digits) of the models.json read with"))
    ms = reader.get("ms")
    info = ReaderInfo(kind, _text(reader.get("backend"), "reader.backend"),
                      None if ms is None else _number(ms, "reader.ms", 0.0, 1e6), models,
                      _text(reader.get("deck"), "reader.deck", optional=True))
    return Readings(width, height, time, seq, tuple(indices), tuple(backs), info, feed, markers, occluded, mat_frame)


# -- writing a post (a table computer) ----------------------------------------------------------------
def readings_json(indices, backs, frame_shape: tuple[int, int], time: float, seq: int, reader: dict,
                  feed: str = "", mat_frame: bytes | None = None, occluded: bool | None = None,
                  markers: dict[int, np.ndarray] | None = None) -> dict:
    """One post of readings (the body of POST /api/tables/<id>/detections) from a local reading:
    ``indices`` and ``backs`` as ``FrameReading`` holds them, ``frame_shape`` (height, width)."""
    height, width = frame_shape

    def box(values) -> list[float]:
        x1, y1, x2, y2 = (float(v) for v in values)
        # the detector's boxes are clipped to the frame already; rounding keeps them there
        return [round(max(0.0, x1), 2), round(max(0.0, y1), 2), round(min(float(width), x2), 2), round(min(float(height), y2), 2)]

    body = {
        "frame": {"width": int(width), "height": int(height), "time": round(float(time), 4), "seq": int(seq)},
        "indices": [{"box": box(r.box), "score": round(float(r.detection_confidence), 4), "code": r.code,
                     "code_score": round(float(r.class_confidence), 4), "turn": int(r.rotation)} for r in indices],
        "backs": [{"box": box(b), "score": round(float(s), 4)} for b, s in backs],
        "reader": reader,
    }
    if feed:
        body["frame"]["feed"] = feed
    if occluded is not None:
        body["occluded"] = bool(occluded)
    if markers is not None:
        body["markers"] = [{"id": int(k), "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in v]} for k, v in markers.items()]
    if mat_frame is not None:
        body["mat_frame"] = base64.b64encode(mat_frame).decode("ascii")
    return body
