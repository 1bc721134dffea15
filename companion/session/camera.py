"""A table's camera: frames through the table pipeline, its readings into the session as camera events.

One :class:`CameraFeed` per table runs in its own thread; all of them share one detector
(:func:`load_detector`). It reads a frame source (the server's
``--camera`` or a :class:`~companion.table.sources.PushSource` fed by a phone), runs the table
pipeline, and submits each engine event the pipeline settles on with ``source="camera"``: the
session applies the rules, and a referee's correction of the same place still wins. Before each
frame the pipeline's own copy of the game is brought back in line with the session, so a
referee's tap, undo or redo is what the camera reasons from next.
"""
from __future__ import annotations

import collections
import threading
from typing import Any, Callable

import numpy as np

from companion.games import GameError, replay
from companion.session.table import SessionError, Table

# What a feed needs from a pipeline: ``process(time, frame)`` returning an object with
# ``engine_events`` and ``questions``, and ``binding`` with ``state``, ``events`` and ``engine``.
PipelineFactory = Callable[[Table, Callable[[np.ndarray], Any]], Any]
FrameCallback = Callable[[np.ndarray], None]


_shared_detector = None
_shared_detector_lock = threading.Lock()


def load_detector():
    """The shipped card detector, loaded once per process and shared by every table's feed; raises
    when its weights are not installed (and tries again on the next call).

    Each feed used to load its own pair of networks (tens of MB and about a second each); the
    networks hold no per-frame state and their runtimes serve concurrent calls, so one copy does.
    The closer look is on (``tile="auto"``), as in ``companion table run``: a whole table seen from
    above has indices too small for the whole-frame pass alone.
    """
    global _shared_detector
    with _shared_detector_lock:
        if _shared_detector is None:
            from companion.vision import Detector

            _shared_detector = Detector.load(tile="auto")
        return _shared_detector


def default_pipeline(table: Table, detector: Callable[[np.ndarray], Any]):
    from companion.table.pipeline import build_pipeline

    return build_pipeline(table.game, detector, dict(table.record.setup), table.active_events())


class CameraFeed:
    """Frames in, camera events out, for one table. ``status()`` says what it is doing."""

    def __init__(self, table: Table, source, on_frame: FrameCallback | None = None,
                 detector_loader: Callable[[], Any] = load_detector,
                 pipeline_factory: PipelineFactory = default_pipeline, description: str = "") -> None:
        self.table = table
        self.source = source
        self.on_frame = on_frame
        self.detector_loader = detector_loader
        self.pipeline_factory = pipeline_factory
        self.description = description or getattr(source, "description", "camera")
        self.frames = 0
        self.submitted = 0
        self.overruled = 0
        self.error: str | None = None
        self.questions: collections.deque[str] = collections.deque(maxlen=20)
        self.last_detections = None
        self.cards: list[dict] = []
        self._pipeline = None
        self._detector = None
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"camera-{table.id}", daemon=True)

    def start(self) -> "CameraFeed":
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stopped.set()
        close = getattr(self.source, "close", None)
        if close:
            close()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    @property
    def reading(self) -> bool:
        """True once a detector is loaded: frames come out annotated and readings go to the session."""
        return self._detector is not None

    @property
    def running(self) -> bool:
        return self._thread.is_alive() and not self._stopped.is_set()

    def status(self) -> dict:
        return {"source": self.description, "running": self.running, "reading": self.reading, "frames": self.frames,
                "camera_events": self.submitted, "overruled_by_referee": self.overruled,
                "error": self.error, "questions": list(self.questions), "cards": list(self.cards)}

    # -- the loop -------------------------------------------------------------------------------
    def _detect(self, frame: np.ndarray):
        detections = self._detector(frame)
        self.last_detections = detections
        return detections

    def load_detector(self) -> None:
        try:
            self._detector = self.detector_loader()
        except Exception as error:  # weights missing, runtime missing: show the frames anyway
            self._detector = None
            self.error = f"no card detector: {error}"

    def _run(self) -> None:
        self.load_detector()
        try:
            for timestamp, frame in self.source:
                if self._stopped.is_set():
                    break
                self.frames += 1
                self.process(timestamp, frame)
        except Exception as error:  # a broken camera must not take the server down; say it instead
            self.error = f"camera stopped: {error}"

    def process(self, timestamp: float, frame: np.ndarray) -> None:
        """One frame: pipeline, camera events into the session, the annotated frame out."""
        self.last_detections = None
        if self._detector is not None:
            if self._pipeline is None:
                self._pipeline = self.pipeline_factory(self.table, self._detect)
            self._follow_session()
            result = self._pipeline.process(timestamp, frame)
            for event in result.engine_events:
                self._submit(event)
            for question in result.questions:
                self.questions.append(question)
            self.cards = self._readings()
        else:
            result = None
        if self.on_frame is not None:
            self.on_frame(self._annotate(frame, result))

    def _submit(self, event: dict) -> None:
        try:
            entry = self.table.submit(event, source="camera")
        except (GameError, SessionError) as error:
            self.questions.append(f"the camera read {event.get('type')} but the table refuses it: {error}")
            return
        if entry is None:
            self.overruled += 1
        else:
            self.submitted += 1

    def _follow_session(self) -> None:
        """Makes the pipeline's copy of the game the session's, after a referee change."""
        binding = self._pipeline.binding
        active = self.table.active_events()
        if binding.events != active:
            binding.state = replay(binding.engine, self.table.record.setup, active)
            binding.events = active

    def _annotate(self, frame: np.ndarray, result=None) -> np.ndarray:
        """The frame with the detector's boxes and, from the table pipeline, its zones and tracked cards."""
        from companion.table.overlay import draw_overlay
        from companion.table.pipeline import TablePipeline
        from companion.vision.annotate import draw_cards

        canvas = frame
        if self.last_detections is not None and len(self.last_detections):
            canvas = draw_cards(canvas, self.last_detections)
        if isinstance(self._pipeline, TablePipeline):
            canvas = draw_overlay(canvas, self._pipeline, result)
        return canvas

    def _readings(self) -> list[dict]:
        """The cards the pipeline has settled on (face-down ones as BACK), read in the feed's own thread."""
        from companion.table.overlay import readings
        from companion.table.pipeline import TablePipeline

        return readings(self._pipeline) if isinstance(self._pipeline, TablePipeline) else []
