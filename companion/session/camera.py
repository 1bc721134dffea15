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
import logging
import os
import threading
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from companion.games import GameError, replay
from companion.messages import Message
from companion.session import questions as asked
from companion.session.questions import QuestionBook
from companion.session.table import DeckChoice, GameFinished, SessionError, Table
from companion.messages import MessageError, N_


class DeckUnreadable(MessageError, ValueError):
    """A learned deck this camera cannot read with."""

log = logging.getLogger(__name__)

# Detections are boxed in one neutral colour (BGR sky blue): on the phone green, amber and red mean a
# card's state (settled, settling, asked about), so the raw boxes must not look like any of them.
DETECTION_BOX = (235, 160, 40)
# What a feed needs from a pipeline: ``process(time, frame)`` returning an object with
# ``engine_events`` and ``questions``, and ``binding`` with ``state``, ``events`` and ``engine``.
PipelineFactory = Callable[[Table, Callable[[np.ndarray], Any]], Any]
FrameCallback = Callable[[np.ndarray], None]
StillCallback = Callable[[int, int, Callable[[], np.ndarray]], None]


_shared_detector = None
_batching_detectors: dict = {}   # by batching (companion serve --batching)
_shared_detector_lock = threading.Lock()


def load_detector(batching: str | None = None):
    """The shipped card detector, loaded once per process and shared by every table's feed; raises
    when its weights are not installed (and tries again on the next call).

    Each feed used to load its own pair of networks (tens of MB and about a second each); the
    networks hold no per-frame state and their runtimes serve concurrent calls, so one copy does.
    The closer look is on (``tile="auto"``), as in ``companion table run``: a whole table seen from
    above has indices too small for the whole-frame pass alone. ``batching`` (``companion serve
    --batching``): see ``Detector.load``.
    """
    global _shared_detector
    from companion.vision import Detector

    with _shared_detector_lock:
        if batching is None:
            if _shared_detector is None:
                _shared_detector = Detector.load(tile="auto")
            return _shared_detector
        if batching not in _batching_detectors:   # the tables' images run together (companion.vision.batching)
            _batching_detectors[batching] = Detector.load(tile="auto", batching=batching)
        return _batching_detectors[batching]


@dataclass(frozen=True)
class DeckUse:
    """What a table's camera reads with now: the table's choice, the deck read with (None: the general
    models) and, when that is not what the table named, why (a deck removed from the data folder)."""

    chosen: DeckChoice
    name: str | None
    problem: Message | None = None

    def says(self) -> Message:
        """One sentence for the table's page."""
        if self.problem:
            return Message("%(problem)s.", problem=self.problem)
        if self.name is None:
            if self.chosen.server_default:
                return Message("The camera reads with the general models (no learned deck: the server has no default deck).")
            return Message("The camera reads with the general models (no learned deck).")
        if self.chosen.server_default:
            return Message("The camera reads with the deck “%(deck)s” (the server's default: this table names none).", deck=self.name)
        return Message("The camera reads with the deck “%(deck)s”.", deck=self.name)

    def to_json(self) -> dict[str, Any]:
        return {"chosen": self.chosen.to_json(), "reading_with": self.name,
                "problem": self.problem.to_json() if self.problem else None, "says": self.says().to_json()}


class TableDecks:
    """Each table's deck, found in the data folder (``<data>/decks``, companion.vision.decks.store): the
    server's ``default`` for a table that names none (``companion serve --deck``). A deck that is gone
    or damaged is read without (the general models), and :class:`DeckUse` says so. A profile is loaded
    once and again only when its files are replaced (a stat per look, so a removed deck is noticed on
    the next frame). Thread-safe: every feed of a server shares one."""

    def __init__(self, data_dir: str | os.PathLike, default: str | None = None) -> None:
        from companion.vision.decks.store import DeckStore

        self.store = DeckStore(data_dir)
        self.default = default
        self._lock = threading.Lock()
        self._loaded: dict[str, tuple[tuple[int, int], Any]] = {}

    def resolve(self, choice: DeckChoice) -> tuple[Any, DeckUse]:
        """The profile to read with (None: the general models) and what to tell the table about it."""
        from companion.vision.decks.store import DamagedDeck

        name = self.default if choice.server_default else choice.name
        if name is None:
            return None, DeckUse(choice, None)
        try:
            stat = os.stat(self.store.path(name) / "profile.json")
        except (OSError, ValueError):
            gone = (N_("The server's deck %(deck)s is no longer in the data folder: reading with the general models (choose "
                       "another deck, or teach it again)") if choice.server_default else
                    N_("The deck %(deck)s is no longer in the data folder: reading with the general models (choose another "
                       "deck, or teach it again)"))
            return None, DeckUse(choice, None, Message(gone, deck=repr(name)))
        version = (stat.st_mtime_ns, stat.st_ino)
        with self._lock:
            kept = self._loaded.get(name)
            if kept is None or kept[0] != version:
                try:
                    kept = (version, self.store.load(name))
                except DamagedDeck as error:
                    # The table's players can only teach it again or choose another; which file and the OS's
                    # reason are for the server's operator, in its log.
                    log.warning("deck %r is damaged: %s", name, error.reason)
                    damaged = (N_("The server's deck %(deck)s is damaged: reading with the general models (choose another deck, "
                                  "or teach it again)") if choice.server_default else
                               N_("The deck %(deck)s is damaged on the server: reading with the general models (choose another "
                                  "deck, or teach it again)"))
                    return None, DeckUse(choice, None, Message(damaged, deck=repr(name)))
                except ValueError as error:
                    reason = getattr(error, "for_player", None) or str(error)
                    return None, DeckUse(choice, None, Message("%(error)s: reading with the general models", error=reason))
                self._loaded[name] = kept
        return kept[1], DeckUse(choice, name)


# A feed's pipeline keeps the results of its last this-many frames (ten seconds at 5 frames/s; a feed
# reads nothing back from them): a feed runs for an evening, and a venue's fifty of them must not grow
# by the frame, nor keep thousands of results for the garbage collector to walk through.
FEED_HISTORY_FRAMES = 50


def default_pipeline(table: Table, detector: Callable[[np.ndarray], Any]):
    from companion.table.pipeline import build_pipeline

    return build_pipeline(table.game, detector, dict(table.record.setup), table.active_events(),
                          history_limit=FEED_HISTORY_FRAMES)


class CameraFeed:
    """Frames in, camera events out, for one table. ``status()`` says what it is doing."""

    def __init__(self, table: Table, source, on_frame: FrameCallback | None = None,
                 detector_loader: Callable[[], Any] = load_detector,
                 pipeline_factory: PipelineFactory = default_pipeline, description: Message | str = "",
                 questions: QuestionBook | None = None, decks: TableDecks | None = None) -> None:
        self.table = table
        self.source = source
        self.on_frame = on_frame
        self.detector_loader = detector_loader
        self.pipeline_factory = pipeline_factory
        self.description: Message | str = description or getattr(source, "description", None) or Message("camera")
        self.frames = 0
        self.submitted = 0
        self.overruled = 0
        # Readings after the game ended (the players gathering the cards): they change nothing and ask nothing.
        self.after_finish = 0
        self.error: Message | None = None
        # The table's questions outlive a feed (the phone camera stops, the server camera takes over).
        self.book = questions if questions is not None else QuestionBook()
        self.last_detections = None
        self.cards: list[dict] = []
        self.tracks: list[dict] = []
        self._pipeline = None
        self._detector = None
        # The table's deck (None: the shared detector as loaded): the profile read with, the shared
        # detector's cheap view with it (Detector.with_deck: the same loaded networks), what to say.
        self.decks = decks
        self.deck_use: DeckUse | None = None
        self._deck_profile: Any = None
        self._reader: Any = None
        self._deck_failed: Message | None = None
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
                "camera_events": self.submitted, "overruled_by_referee": self.overruled, "after_finish": self.after_finish,
                "error": self.error.to_json() if self.error else None, "questions": self.question_list(), "cards": list(self.cards),
                "tracks": list(self.tracks), "deck": None if self.deck_use is None else self.deck_use.to_json()}

    def question_list(self) -> list[dict]:
        """Every kept question, newest last, each with the place on the board it is about."""
        listing = self.book.listing()
        view = self.table.snapshot() if listing else {}
        return [q.to_json(asked.where(self.table.game, q.zone, view)) for q in listing]

    # -- the loop -------------------------------------------------------------------------------
    def load_detector(self) -> None:
        try:
            self._detector = self.detector_loader()
        except Exception as error:  # weights missing, runtime missing: show the frames anyway
            self._detector = None
            self.error = Message("no card detector: %(error)s", error=error)

    def _run(self) -> None:
        self.load_detector()
        last = None
        try:
            for timestamp, frame in self.source:
                if self._stopped.is_set():
                    return
                self.frames += 1
                self.process(timestamp, frame)
                last = timestamp, frame
            # An input that ended by itself (a recording: the demo, a video file as --camera) holds
            # its last frame as `table run` does, so the cards laid just before the end settle too.
            if last is not None and hasattr(self._pipeline, "held_times"):
                for timestamp in self._pipeline.held_times(last[0], self._pipeline.end_hold_seconds):
                    if self._stopped.is_set():
                        return
                    self.process(timestamp, last[1], held=True)
        except Exception as error:  # a broken camera must not take the server down; say it instead
            self.error = Message("camera stopped: %(error)s", error=error)

    def process(self, timestamp: float, frame: np.ndarray, held: bool = False) -> None:
        """One frame (``held``: the last frame of an input that ended, repeated): pipeline, camera
        events into the session, the annotated frame out."""
        self.last_detections = None
        if self._detector is not None:
            reader = self._reading_detector()
            result = self._step(reader, lambda pipeline: pipeline.process(timestamp, frame, held=True) if held
                                else pipeline.process(timestamp, frame))
        else:
            result = None
        if self.on_frame is not None:
            self.on_frame(self._annotate(frame, result))

    def _step(self, reader: Any, run: Callable[[Any], Any]) -> Any:
        """One frame through the pipeline (``run(pipeline)`` gives its result), however it was read: the
        pipeline follows the session first, its engine events go into the session, its questions into
        the book."""
        if self._pipeline is None:
            # The detector itself, not a wrapper: the pipeline reads a neural detector incrementally
            # and tells it the mat's scale, as `table run` does (a wrapper hid both from it).
            self._pipeline = self.pipeline_factory(self.table, reader)
        self._follow_session()
        result = run(self._pipeline)
        self.last_detections = getattr(self._pipeline, "last_detections", None)
        for event in result.engine_events:
            self._submit(event)
        if not self.table.finished:
            # a finished game's table is being cleared: its cards leaving are no question for the referee
            self._ask(result)
        tracker = getattr(self._pipeline, "tracker", None)
        if tracker is not None:
            self.book.settle({t.id: t.code for t in tracker.tracks if t.settled})
        self._refresh_views()
        return result

    def _refresh_views(self) -> None:
        """The cards and tracks ``status()`` shows, as the pipeline has them now."""
        self.cards = self._readings()
        self.tracks = self._track_states()

    def _reading_detector(self) -> Any:
        """The shared detector reading with the table's deck as it is now. When the deck changes (the referee
        chose another, or it left the data folder) the pipeline starts again with the new view: it
        follows the session, so the cards already on the table are not read as new ones."""
        if self.decks is None:
            return self._detector
        profile, use = self.decks.resolve(self.table.deck)
        if self._reader is None or profile is not self._deck_profile:
            reader, self._deck_failed = self._detector, None
            if profile is not None:
                with_deck = getattr(self._detector, "with_deck", None)
                try:
                    if with_deck is None:
                        raise DeckUnreadable(Message("this camera's detector reads no learned deck"))
                    # closer=False: the pipeline knows the index size from the mat; a 2x closer look on
                    # every frame cost it about four times the work (Detector.with_deck).
                    reader = with_deck(profile, closer=False)
                except ValueError as error:
                    self._deck_failed = Message("%(error)s: reading with the general models", error=error)
            if self._reader is not None:
                self._pipeline = None
            self._deck_profile, self._reader = profile, reader
        self.deck_use = use if self._deck_failed is None else DeckUse(use.chosen, None, self._deck_failed)
        return self._reader

    def _submit(self, event: dict) -> None:
        try:
            entry = self.table.submit(event, source="camera")
        except GameFinished:
            self.after_finish += 1   # the game is over: the cards gathered change nothing, and ask nothing
            return
        except (GameError, SessionError) as error:
            self.book.add(asked.Question(self.book.next_id(), Message("the camera read %(event)s but the table refuses it: %(error)s",
                                                                      event=event.get('type'), error=error), "refused"))
            return
        if entry is None:
            self.overruled += 1
        else:
            self.submitted += 1

    def _ask(self, result) -> None:
        """The frame's questions into the table's book: with their place and choices when the pipeline
        says which table event they are about, as plain text otherwise."""
        table_events, outcomes = getattr(result, "table_events", None), getattr(result, "outcomes", None)
        if table_events is None or outcomes is None:
            for text in result.questions:
                self.book.add(asked.Question(self.book.next_id(), str(text)))
            return
        for event in table_events:
            if event.type == "question":
                self.book.add(asked.from_table_event(event, self.book.next_id, self._pixel(event.position)))
        for outcome in outcomes:
            for text in outcome.questions:
                event = outcome.table_event
                self.book.add(asked.from_refusal(text, event, self.book.next_id, self._pixel(event.position)))

    def _pixel(self, position) -> list[float] | None:
        """Where a table position is in the camera picture (mat millimetres through the homography)."""
        pipeline = self._pipeline
        locator = getattr(pipeline, "locator", None)
        try:
            if locator is not None and locator.ready and getattr(pipeline, "units", None) == "mm":
                point = locator.to_image(np.array([position], np.float32))[0]
            else:
                point = position
            return [round(float(point[0]), 1), round(float(point[1]), 1)]
        except (TypeError, ValueError, IndexError):
            return None

    def _track_states(self) -> list[dict]:
        """Every card the pipeline follows, for the phone's camera view: code, state and where in the picture.
        A face-down card shows BACK only (its remembered face stays hidden, as on the board)."""
        tracker = getattr(self._pipeline, "tracker", None)
        if tracker is None:
            return []
        out = []
        for track in tracker.tracks:
            state = "question" if self.book.open_for_track(track.id) else "settled" if track.settled else "settling"
            code = track.code if track.settled else None
            if code is None and track.sightings:
                code = collections.Counter(track.codes_seen()).most_common(1)[0][0]
            out.append({"track": track.id, "card": code, "state": state, "zone": track.zone,
                        "pixel": self._pixel(track.position)})
        return out

    def _follow_session(self) -> None:
        """Makes the pipeline's copy of the game the session's, after a referee change."""
        binding = self._pipeline.binding
        active = self.table.active_events()
        if binding.events != active:
            binding.state = replay(binding.engine, self.table.record.setup, active)
            binding.events = active

    def _annotate(self, frame: np.ndarray, result=None, detections=None) -> np.ndarray:
        """The frame with the mat's zones and a thin box round each detection. No text: the phone's camera
        view labels each card itself (code and state, sized for its screen), from ``status()["tracks"]``."""
        import cv2

        from companion.table.overlay import draw_overlay
        from companion.table.pipeline import TablePipeline

        canvas = frame.copy()
        detections = self.last_detections if detections is None else detections
        if detections is not None and len(detections):
            thickness = max(1, round(max(frame.shape[:2]) / 640))
            for box in detections.boxes:
                x1, y1, x2, y2 = (int(round(v)) for v in box)
                cv2.rectangle(canvas, (x1, y1), (x2, y2), DETECTION_BOX, thickness, cv2.LINE_AA)
        if isinstance(self._pipeline, TablePipeline):
            canvas = draw_overlay(canvas, self._pipeline, result, tracks=False)
        return canvas

    def _readings(self) -> list[dict]:
        """The cards the pipeline has settled on (face-down ones as BACK), read in the feed's own thread."""
        from companion.table.overlay import readings
        from companion.table.pipeline import TablePipeline

        return readings(self._pipeline) if isinstance(self._pipeline, TablePipeline) else []


TAKEN_OVER = Message("another reader took over this table's camera: this reader's feed has stopped")


def deck_conflict(expected: str | None, read_with: str | None) -> Message | None:
    """Why readings made with the deck ``read_with`` do not fit a table reading with ``expected`` (None: they fit)."""
    if read_with == expected:
        return None
    if expected is None:
        return Message("this table reads with the general models (no learned deck), the reader with the deck %(deck)s: "
                       "read with the table's deck", deck=repr(read_with))
    if read_with is None:
        return Message("this table reads with the deck %(table_deck)s, the reader with no deck: read with the table's deck",
                       table_deck=repr(expected))
    return Message("this table reads with the deck %(table_deck)s, the reader with the deck %(deck)s: read with the table's deck",
                   table_deck=repr(expected), deck=repr(read_with))


class ReadingsFeed(CameraFeed):
    """Readings posted by a reader elsewhere (a phone reading its own cards, a table computer), for one
    table. Each post goes through the table pipeline in the request that brought it
    (``TablePipeline.process_readings``): it costs milliseconds, not a detector's work, so the feed needs
    no thread of its own and the answer can say what the pipeline made of it. One reader feeds it
    (``feed_id``); its posts must keep their frame size, their clock must not go back and their
    ``seq`` must grow, and it must read with the deck the table reads with."""

    def __init__(self, table: Table, feed_id: str, kind: str, on_still: StillCallback | None = None,
                 pipeline_factory: PipelineFactory = default_pipeline, questions: QuestionBook | None = None,
                 decks: TableDecks | None = None, reader_factory: Callable[[Any], Any] | None = None) -> None:
        description = (Message("a table computer reading its own camera") if kind == "table-computer"
                       else Message("a phone reading its own cards"))
        super().__init__(table, None, on_frame=None, detector_loader=lambda: None, pipeline_factory=pipeline_factory,
                         description=description, questions=questions, decks=decks)
        # each still, for the live camera view: (width, height, a callable drawing it when someone looks)
        self.on_still = on_still
        from companion.table.readings import posted_reader

        self.feed_id = feed_id
        self.kind = kind
        self.reader_factory = reader_factory or posted_reader
        # Another server's saved pipeline of this feed (TablePipeline.saved), to go on from: set by the hub
        # when it takes the feed over; used by the first post it fits (see _resume).
        self.resume_from: bytes | None = None
        # Called after a post that changed what the pipeline has settled (a card placed, moved, turned or
        # removed; a camera event submitted), in the post's request: the hub saves the pipeline then.
        self.on_settled: Callable[["ReadingsFeed"], None] | None = None
        self._lock = threading.Lock()
        self._last = None          # the last post taken (its still dropped)
        self._open = True
        self._views_behind = False
        self._cards_json: tuple | None = None
        self.reader: dict | None = None

    def start(self) -> "ReadingsFeed":
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._open = False

    @property
    def running(self) -> bool:
        return self._open

    @property
    def reading(self) -> bool:
        return True

    def status(self) -> dict:
        with self._lock:
            if self._views_behind:   # made when asked (a phone's camera view every few seconds), not on every post
                super()._refresh_views()
                self._views_behind = False
            return {**super().status(), "feed": self.feed_id, "reader": self.reader}

    def _refresh_views(self) -> None:
        self._views_behind = True

    def expected_deck(self) -> str | None:
        """The deck the table reads with now (None: the general models): a reader must read with it."""
        if self.decks is None:
            return None
        return self.decks.resolve(self.table.deck)[1].name

    def _reading_detector(self) -> Any:
        """What the pipeline knows of the reader: the thresholds it read at with the table's deck. When
        the deck changes the pipeline starts again, as a frame feed's does (it follows the session)."""
        profile, use = (None, None) if self.decks is None else self.decks.resolve(self.table.deck)
        if self._reader is None or profile is not self._deck_profile:
            if self._reader is not None:
                self._pipeline = None
            self._deck_profile, self._reader = profile, self.reader_factory(profile)
        self.deck_use = use
        return self._reader

    def _resume(self, reader: Any, time: float) -> None:
        """The saved pipeline another server ran this feed with (``resume_from``) becomes this feed's, once:
        if it reads back here and this post's time is not before its last (the same reader's clock)."""
        data, self.resume_from = self.resume_from, None
        if data is None or self._pipeline is not None:
            return
        from companion.table.pipeline import PipelineNotResumable, TablePipeline

        try:
            pipeline = TablePipeline.resumed(data, reader)
        except PipelineNotResumable:
            return   # another version's, or damaged: a new pipeline, as for a new feed
        last = pipeline.tracker._last_time
        if last is None or time >= last:
            self._pipeline = pipeline

    def saved_pipeline(self) -> bytes | None:
        """The pipeline as bytes (TablePipeline.saved), or None before it exists or when it cannot be saved.
        Called from ``on_settled``, inside the post's turn (the feed's lock held)."""
        saved = getattr(self._pipeline, "saved", None)
        if saved is None:
            return None
        try:
            return saved()
        except Exception:   # something in it that cannot be pickled (a test's pipeline): nothing to hand over
            return None

    def _drawing(self, still: bytes, detections, result) -> Callable[[], np.ndarray]:
        """What draws a still for the live view later: its detections' boxes and the mat's zones as the
        pipeline has them when drawn (the still is decoded again then: its bytes are ten times smaller)."""
        def draw() -> np.ndarray:
            import cv2

            return self._annotate(cv2.imdecode(np.frombuffer(still, np.uint8), cv2.IMREAD_COLOR), result, detections)
        return draw

    def take(self, readings) -> dict:
        """One post of readings (``companion.table.readings.Readings``, checked already): through the
        pipeline, and what it made of it. ReadingsError (409) when it conflicts with this feed; the table
        and the feed are then as they were."""
        from dataclasses import replace

        from companion.table.readings import ReadingsError

        with self._lock:
            if not self._open:
                raise ReadingsError(TAKEN_OVER, 409)
            last = self._last
            if last is not None:
                if readings.frame_shape != last.frame_shape:
                    raise ReadingsError(Message("the frame size changed from %(before)s to %(now)s pixels: a reader whose frames "
                                                "change size starts a new feed (a new frame.feed)", before=f"{last.width}×{last.height}",
                                                now=f"{readings.width}×{readings.height}"), 409)
                if readings.seq <= last.seq:
                    raise ReadingsError(Message("frame.seq %(seq)s does not follow %(last)s: each post's seq must be larger than "
                                                "the last one's", seq=str(readings.seq), last=str(last.seq)), 409)
                if readings.time < last.time:
                    raise ReadingsError(Message("frame.time went back from %(last)s to %(time)s s: a feed's clock never goes back "
                                                "(a reader that restarts its clock starts a new feed)", last=f"{last.time:g}",
                                                time=f"{readings.time:g}"), 409)
            reader = self._reading_detector()
            expected = None if self.deck_use is None else self.deck_use.name
            conflict = deck_conflict(expected, readings.reader.deck)
            if conflict:
                raise ReadingsError(conflict, 409)
            self._resume(reader, readings.time)
            submitted = self.submitted
            result = self._step(reader, lambda pipeline: pipeline.process_readings(readings.time, readings))
            if self.on_settled is not None and (self.submitted != submitted or any(
                    event.type != "question" for event in getattr(result, "table_events", []))):
                self.on_settled(self)
            self._last = replace(readings, frame=None, mat_frame=None)
            self.frames += 1
            self.reader = {"kind": readings.reader.kind, "backend": readings.reader.backend, "ms": readings.reader.ms}
            if readings.frame is not None and self.on_still is not None:
                self.on_still(readings.width, readings.height, self._drawing(readings.mat_frame, self.last_detections, result))
            pipeline = self._pipeline
            index_px = getattr(pipeline, "index_px", None)
            cards = self.last_detections
            if cards is not None and (self._cards_json is None or self._cards_json[0] is not cards):
                self._cards_json = (cards, cards.to_json())   # a still table's posts give the same cards again
            return {"seq": readings.seq, "feed": self.feed_id,
                    "cards": [] if cards is None else self._cards_json[1],
                    "events": [event.to_json() for event in getattr(result, "table_events", [])],
                    "index_px": None if index_px is None else round(float(index_px), 2),
                    "want_frame": bool(getattr(pipeline, "wants_frame", False)), "deck": expected}
