"""Camera frames: a phone posting JPEGs (the push source) or the server's ``--camera``, and the live view.

Frames go through the table pipeline (:mod:`companion.session.camera`); what it reads becomes
camera events in the session, where the referee's word still wins. The latest frame, with boxes and
zones drawn when the pipeline gives them, is served as a JPEG and as an MJPEG stream.
"""
from __future__ import annotations

import io
import json
import threading
import time
import uuid
import warnings
from typing import Any, Callable

import cv2
import numpy as np
import PIL.Image
from flask import Blueprint, Response, current_app, jsonify, request
from flask_babel import gettext as _

from companion.messages import Message
from companion.session import Table
from companion.session import questions as asked
from companion.session.camera import TAKEN_OVER, CameraFeed, ReadingsFeed, TableDecks, deck_conflict, default_pipeline, load_detector
from companion.session.questions import QuestionAnswered, QuestionBook, QuestionError, QuestionNotFound
from companion.table.live import open_live
from companion.table.readings import Readings, ReadingsError, parse_readings
from companion.table.sources import PushSource, SourceError
from companion.vision.models import WeightsMissingError, models_fingerprint
from web_ui.api import ApiError, json_body, referee_table, registry
from web_ui.i18n import error_text, render


def feed_status(feed: CameraFeed) -> dict[str, Any]:
    """A feed's status for the phone that asked: what it reads, in that phone's language."""
    status = feed.status()
    status["source"] = render(status["source"])
    return status


bp = Blueprint("camera", __name__, url_prefix="/api")


class Frame:
    """One picture of a table's camera view. A still posted with detections is drawn and encoded only
    when someone looks at it (``jpeg``): most of a venue's tables have nobody watching their camera
    view, and drawing and encoding one costs a few milliseconds a still."""

    def __init__(self, jpeg: bytes | None, at: float, seq: int, width: int, height: int,
                 render: Callable[[], np.ndarray] | None = None) -> None:
        self._jpeg, self._render = jpeg, render
        self.at, self.seq, self.width, self.height = at, seq, width, height
        self._lock = threading.Lock()

    @property
    def jpeg(self) -> bytes:
        with self._lock:
            if self._jpeg is None:
                ok, encoded = cv2.imencode(".jpg", self._render(), [cv2.IMWRITE_JPEG_QUALITY, 80])
                if not ok:
                    raise ApiError(500, "could not encode the frame")
                self._jpeg, self._render = encoded.tobytes(), None
            return self._jpeg


def _detection_off():
    raise RuntimeError("card detection is off in this configuration (CAMERA_DETECTION = False)")


def _shared(loader):
    """``loader`` called once for the whole server and its detector shared by every feed (a detector
    per table cost 35 MB and three threads each). A failed load is not remembered, as
    ``companion.session.camera.load_detector`` does not remember one: the next feed tries again (the
    weights may have been installed meanwhile). Thread-safe."""
    lock, result = threading.Lock(), {}

    def load():
        with lock:
            if "detector" not in result:
                result["detector"] = loader()
        return result["detector"]

    return load


def image_size(data: bytes) -> tuple[int, int]:
    """Width and height from the image's header alone (nothing is decoded); ApiError when unreadable."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow's own decompression-bomb warning: we judge the size ourselves
            with PIL.Image.open(io.BytesIO(data)) as image:
                if image.format not in ("JPEG", "PNG", "WEBP"):
                    raise ApiError(400, _('a frame is a JPEG, PNG or WebP image, not %(format)s', format=image.format))
                return image.size
    except PIL.Image.DecompressionBombError:
        raise ApiError(413, _("the frame has far too many pixels")) from None
    except (PIL.UnidentifiedImageError, OSError, ValueError, ImportError):
        # ImportError: where ultralytics is loaded too (training tools, the test suite) it patches
        # PIL.Image.open to try an optional HEIF reader on bytes PIL cannot identify.
        raise ApiError(400, _("the body does not decode as an image")) from None


class TokenBucket:
    """Per key, ``rate`` takes a second on average in bursts of up to ``burst``; ``take`` says how long
    to wait when none is left (0: taken)."""

    def __init__(self, rate: float, burst: float, clock) -> None:
        self.rate, self.burst, self.clock = float(rate), max(1.0, float(burst)), clock
        self._tokens: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        now = self.clock()
        with self._lock:
            tokens, at = self._tokens.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - at) * self.rate)
            if tokens < 1.0:
                self._tokens[key] = (tokens, now)
                return (1.0 - tokens) / self.rate
            self._tokens[key] = (tokens - 1.0, now)
            return 0.0

    def forget(self, key: str) -> None:
        with self._lock:
            self._tokens.pop(key, None)


# A table's feed runs on one server at a time (several servers on one PostgreSQL database): the server
# running it holds a lease of this many seconds in the database and renews it every third of that. When
# that server dies, another takes the feed over at the next post after the lease ran out: within seconds,
# while a reader retrying after Retry-After loses no reading it was told was taken (those are journaled).
FEED_LEASE_SECONDS = 5.0

# Feed ids a table remembers as taken over, so the reader whose feed was taken is told (409) instead of
# taking it back: a handful covers any evening's phones changing hands.
REPLACED_FEEDS_KEPT = 8


class CameraHub:
    """Each table's camera feed and latest frame, and a condition so MJPEG viewers wake when one arrives.

    A table has at most one feed (``feeds``): the server's camera, a phone's posted frames (a
    :class:`PushSource` read by the feed's thread) or posted detections (:class:`ReadingsFeed`, each post
    read in its request). Every feed starts in :meth:`_start_feed` / :meth:`_adopt_feed` and stops in
    :meth:`_stop_feed`, under ``_feeds_lock``: the one place a feed's owner is decided."""

    def __init__(self, config: Any, clock=time.monotonic) -> None:
        self.max_bytes = int(config.get("MAX_FRAME_BYTES", 4 * 1024 * 1024))
        self.max_pixels = int(config.get("MAX_FRAME_PIXELS", 4096 * 4096))
        self.min_interval = 1.0 / float(config.get("MAX_FRAMES_PER_SECOND", 5.0))
        self.idle_seconds = float(config.get("CAMERA_IDLE_SECONDS", 60.0))
        if config.get("OPENCV_THREADS") is not None:
            cv2.setNumThreads(int(config["OPENCV_THREADS"]))
        self.max_readings_bytes = int(config.get("MAX_DETECTIONS_BYTES", 4 * 1024 * 1024))
        self.readings_rate = TokenBucket(float(config.get("MAX_DETECTIONS_PER_SECOND", 10.0)),
                                         float(config.get("DETECTIONS_BURST", 10)), clock)
        self.readings_turns = threading.BoundedSemaphore(max(1, int(config.get("DETECTIONS_AT_ONCE", 2))))
        self.known_models = set(config.get("KNOWN_MODELS") or ())
        try:
            self.known_models.add(models_fingerprint())
        except WeightsMissingError:
            pass   # a server without the models takes readings of the models named in KNOWN_MODELS only
        self.clock = clock
        self._last_frame_at: dict[str, float] = {}
        self._last_post_at: dict[str, float] = {}   # a posted frame or detections: what keeps a pushed feed alive
        self._replaced_feeds: dict[str, list[str]] = {}
        self._rate_lock = threading.Lock()
        self._reaper: threading.Thread | None = None
        self._closed = threading.Event()
        self.server_source = config.get("CAMERA_SOURCE")
        # a recording named as the camera plays live, at its own frame rate (companion serve --demo)
        self.open_camera = config.get("CAMERA_OPENER") or open_live
        batching = config.get("CAMERA_BATCHING")
        loader = config.get("CAMERA_DETECTOR_LOADER") or (
            (lambda: load_detector(batching)) if config.get("CAMERA_DETECTION", True) else _detection_off)
        self.detector_loader = _shared(loader)
        # Each table's deck from the data folder; DEFAULT_DECK (companion serve --deck) for tables naming none.
        self.decks = TableDecks(config.get("DATA_DIR") or ".", config.get("DEFAULT_DECK"))
        self.pipeline_factory = config.get("CAMERA_PIPELINE_FACTORY") or default_pipeline
        self._frames: dict[str, Frame] = {}
        self._changed = threading.Condition()
        self._feeds_lock = threading.Lock()
        self.feeds: dict[str, CameraFeed] = {}
        # Called with a table id after each new frame (the live streams' wake-up; keep them quick).
        self.listeners: list = []
        self.books: dict[str, QuestionBook] = {}  # each table's camera questions, across its feeds
        # Where the feeds' leases are kept (create_app sets the registry's store; None: one server, no leases).
        self.store = None
        self.lease_owner = uuid.uuid4().hex[:12]
        self.lease_seconds = float(config.get("FEED_LEASE_SECONDS", FEED_LEASE_SECONDS))
        self._renewer: threading.Thread | None = None

    # -- leases (several servers) -------------------------------------------------------------------
    def _hold_lease(self, table_id: str, kind: str) -> None:
        """The lease on the table's feed for this server, or ApiError 503 (with Retry-After) while another
        server runs it. Called before anything of the table's present feed is stopped."""
        if self.store is None or not self.store.shared:
            return
        wait = self.store.take_lease(table_id, self.lease_owner, kind, self.lease_seconds)
        if wait > 0:
            raise ApiError(503, _("another server runs this table's camera feed: send to that server, or try again in %(seconds)s s",
                                  seconds=max(1, int(wait + 0.999))), {"Retry-After": str(max(1, int(wait + 0.999)))})
        with self._rate_lock:
            if self._renewer is None:
                self._renewer = threading.Thread(target=self._renew_leases, name="camera-feed-leases", daemon=True)
                self._renewer.start()

    def _renew_leases(self) -> None:
        """Renews this server's leases; a feed whose lease another server took meanwhile (this one was cut
        off from the database for longer than a lease) stops here, so two servers never run one feed."""
        while not self._closed.wait(self.lease_seconds / 3):
            with self._feeds_lock:
                running = {table_id: feed for table_id, feed in self.feeds.items() if feed.running}
            for table_id in running:
                try:
                    lost = self.store.take_lease(table_id, self.lease_owner, "renewal", self.lease_seconds) > 0
                except Exception:   # the database is away: the lease may run out; the next renewal tells
                    continue
                if lost:
                    with self._feeds_lock:
                        if self.feeds.get(table_id) is running[table_id]:
                            self._stop_feed(table_id, taken_over=True)

    def _carry_over(self, table: Table, feed: ReadingsFeed) -> None:
        """With several servers, a detections feed goes on from what the server running it before had
        settled (kept in the database after each post that changed it): a server that takes it over (the
        owner died) starts from the same cards and game bindings, so a card lying on the mat then is seen
        leaving it and none is seen arriving again. The same reader's feed only (its clock goes on)."""
        if self.store is None or not self.store.shared:
            return
        try:
            feed.resume_from = self.store.feed_state(table.id, feed.feed_id)
        except Exception:   # the database is away: the feed starts afresh, as on one server
            feed.resume_from = None

        def keep(settled: ReadingsFeed) -> None:
            state = settled.saved_pipeline()
            if state is None:
                return
            try:
                self.store.save_feed_state(table.id, self.lease_owner, settled.feed_id, table.revision, state)
            except Exception:   # the database is away: the next change saves it again
                pass

        feed.on_settled = keep

    def _release_lease(self, table_id: str) -> None:
        if self.store is not None and self.store.shared:
            try:
                self.store.release_lease(table_id, self.lease_owner)
            except Exception:   # the database is away: the lease runs out by itself
                pass

    def book(self, table: Table) -> QuestionBook:
        with self._feeds_lock:
            return self.books.setdefault(table.id, QuestionBook())

    # -- feeds ------------------------------------------------------------------------------------
    def _start_feed(self, table: Table, source, description: Message | str, kind: str = "phone",
                    source_name: str | None = None) -> CameraFeed:
        """A feed of frames (``source``) for this table, in its own thread (under ``_feeds_lock``)."""
        feed = CameraFeed(table, source, on_frame=lambda image: self.publish(table.id, image),
                          detector_loader=self.detector_loader, pipeline_factory=self.pipeline_factory,
                          description=description, questions=self.books.setdefault(table.id, QuestionBook()),
                          decks=self.decks)
        return self._adopt_feed(table.id, feed, kind, source_name)

    def _adopt_feed(self, table_id: str, feed: CameraFeed, kind: str = "phone", source_name: str | None = None) -> CameraFeed:
        """``feed`` becomes the table's one feed (under ``_feeds_lock``; any other was stopped first).
        ``kind`` ("camera", "phone", "detections") and ``source_name`` say what feeds it (for a lease
        on the table's feed when several servers share the tables: branch postgres)."""
        self.feeds[table_id] = feed
        return feed.start()

    def _stop_feed(self, table_id: str, taken_over: bool = False) -> CameraFeed | None:
        """Stops and forgets the table's feed, if any (under ``_feeds_lock``). ``taken_over``: another
        source replaces it; a reader of detections whose feed it was is then refused (409), not let
        take it back."""
        feed = self.feeds.get(table_id)
        if feed is not None:
            # stopped (its thread joined) before it is forgotten: a feed no longer listed has stopped
            feed.stop(timeout=1.0)
            del self.feeds[table_id]
            if not taken_over:   # a feed replaced by another of this server's keeps the lease
                self._release_lease(table_id)
            if taken_over and isinstance(feed, ReadingsFeed):
                kept = self._replaced_feeds.setdefault(table_id, [])
                kept.append(feed.feed_id)
                del kept[:-REPLACED_FEEDS_KEPT]
        return feed

    def admit(self, table: Table) -> None:
        """A table takes at most MAX_FRAMES_PER_SECOND frames (a phone sends one about every 0.7 s): more
        are answered 429 before anything is read or decoded."""
        now = self.clock()
        with self._rate_lock:
            wait = self._last_frame_at.get(table.id, -1e9) + self.min_interval - now
            if wait > 0:
                raise ApiError(429, _("frames come too fast for this table: at most one every %(min_interval)s s",
                                      min_interval=format(self.min_interval, '.2f')),
                               {"Retry-After": str(max(1, int(wait + 0.999)))})
            self._last_frame_at[table.id] = now
            self._last_post_at[table.id] = now

    def admit_readings(self, table: Table) -> None:
        """A table takes MAX_DETECTIONS_PER_SECOND posts of detections a second on average (bursts of
        DETECTIONS_BURST): more are answered 429, with Retry-After, before anything is parsed."""
        wait = self.readings_rate.take(table.id)
        if wait > 0:
            raise ApiError(429, _("detections come too fast for this table: at most %(rate)s a second", rate=f"{self.readings_rate.rate:g}"),
                           {"Retry-After": str(max(1, int(wait + 0.999)))})
        with self._rate_lock:
            self._last_post_at[table.id] = self.clock()

    @staticmethod
    def _pushed(feed: CameraFeed) -> bool:
        """Whether a feed lives on what is posted to it (a phone's frames, detections), not on a camera."""
        return isinstance(feed, ReadingsFeed) or isinstance(feed.source, PushSource)

    def stop_idle_feeds(self) -> list[str]:
        """Stops every phone feed (frames or detections) that got no post for ``idle_seconds`` (its thread
        and pipeline go; the next post starts a new one). Returns the tables whose feeds stopped."""
        now, stopped = self.clock(), []
        with self._feeds_lock:
            for table_id, feed in list(self.feeds.items()):
                if self._pushed(feed) and now - self._last_post_at.get(table_id, now) > self.idle_seconds:
                    self._stop_feed(table_id)
                    stopped.append(table_id)
        return stopped

    def _reap_idle_feeds(self) -> None:
        while not self._closed.wait(max(min(self.idle_seconds / 4, 5.0), 0.05)):
            self.stop_idle_feeds()

    def close(self) -> None:
        self._closed.set()
        with self._feeds_lock:
            feeds = list(self.feeds.items())
        for table_id, feed in feeds:
            feed.stop()
            self._release_lease(table_id)   # another server may take the feed at once

    def _start_reaper(self) -> None:
        with self._rate_lock:
            if self._reaper is None:
                self._reaper = threading.Thread(target=self._reap_idle_feeds, name="camera-idle-feeds", daemon=True)
                self._reaper.start()

    def push(self, table: Table, image: np.ndarray) -> CameraFeed:
        """A phone's frame: into this table's push feed (started on the first frame)."""
        self._start_reaper()
        with self._feeds_lock:
            feed = self.feeds.get(table.id)
            if feed is None or not feed.running or isinstance(feed, ReadingsFeed) or not isinstance(feed.source, PushSource):
                self._hold_lease(table.id, "phone")
                self._stop_feed(table.id, taken_over=True)
                feed = self._start_feed(table, PushSource(max_frames=2), Message("a phone's camera"), "phone")
        feed.source.push(image)
        return feed

    def take_readings(self, table: Table, readings: Readings) -> dict:
        """A post of detections, checked: into this table's detections feed (started by the reader's first
        post; a post naming another feed id takes the table's camera over). What the pipeline made of it,
        or ApiError: 409 for readings of models this server does not know, of another deck than the
        table's, of a reader whose feed was taken over, or out of step with the feed."""
        if readings.reader.models not in self.known_models:
            raise ApiError(409, _("these readings come from models this server does not know (reader.models is not the sha256 "
                                  "of its models.json): update the reader or the server so they ship the same models"))
        self._start_reaper()
        with self._feeds_lock:
            feed = self.feeds.get(table.id)
            if not (isinstance(feed, ReadingsFeed) and feed.running and feed.feed_id == readings.feed):
                if readings.feed in self._replaced_feeds.get(table.id, ()):
                    raise ApiError(409, render(TAKEN_OVER))
                fresh = ReadingsFeed(table, readings.feed, readings.reader.kind,
                                     on_still=lambda width, height, render: self.publish_later(table.id, width, height, render),
                                     pipeline_factory=self.pipeline_factory, questions=self.books.setdefault(table.id, QuestionBook()),
                                     decks=self.decks)
                conflict = deck_conflict(fresh.expected_deck(), readings.reader.deck)
                if conflict:   # refused before it replaces anything
                    raise ApiError(409, render(conflict))
                self._hold_lease(table.id, "detections")
                self._stop_feed(table.id, taken_over=True)
                self._carry_over(table, fresh)
                feed = self._adopt_feed(table.id, fresh, "detections")
        try:
            return feed.take(readings)
        except ReadingsError as error:
            raise ApiError(error.status, error_text(error)) from None

    def attach_server_camera(self, table: Table) -> CameraFeed:
        """The server's --camera now watches this table (one physical camera: it leaves any other)."""
        if not self.server_source:
            raise ApiError(409, _("this server has no camera of its own: use this phone's camera (whoever runs the companion can give "
                                  "the server one)"))
        with self._feeds_lock:
            self._hold_lease(table.id, "camera")
            for table_id, feed in list(self.feeds.items()):
                if not self._pushed(feed) or table_id == table.id:
                    self._stop_feed(table_id, taken_over=table_id == table.id)
            try:
                source = self.open_camera(self.server_source)
            except (SourceError, ValueError, OSError) as error:
                raise ApiError(409, _("the server camera %(server_source)s cannot be opened: %(error)s",
                                      server_source=repr(self.server_source), error=error_text(error))) from None
            return self._start_feed(table, source, Message("server camera %(source)s", source=str(self.server_source)), "camera",
                                    str(self.server_source))

    def adopt(self, table: Table) -> None:
        """A new table gets the server camera when no other table is using it (the usual one-table evening)."""
        if not self.server_source:
            return
        if any(f.running and not self._pushed(f) for f in self.feeds.values()):
            return
        try:
            self.attach_server_camera(table)
        except ApiError:
            pass  # the camera cannot be opened: the Camera dialog's status says why when asked again

    def detach(self, table: Table) -> None:
        with self._feeds_lock:
            self._stop_feed(table.id)

    def status(self, table: Table) -> dict:
        feed = self.feeds.get(table.id)
        frame = self.latest(table.id)
        listing = self.book(table).listing()
        view = table.snapshot() if listing else {}
        deck = self.decks.resolve(table.deck)[1]
        if feed is not None and feed.deck_use is not None and feed.deck_use.chosen == table.deck and deck.problem is None:
            deck = feed.deck_use   # the feed found more (its detector reads no learned deck)
        return {"server_camera": self.server_source, "feed": feed_status(feed) if feed else None, "deck": deck.to_json(),
                "questions": [q.to_json(asked.where(table.game, q.zone, view)) for q in listing],
                "latest_frame": None if frame is None else {"seq": frame.seq, "at": frame.at, "width": frame.width, "height": frame.height}}

    def check(self, data: bytes) -> tuple[int, int]:
        """A frame's bytes and pixels (from its header) within the limits, before anything is decoded."""
        if not data:
            raise ApiError(400, _("no frame: send the JPEG (or PNG) bytes as the request body"))
        if len(data) > self.max_bytes:
            raise ApiError(413, _('a frame may be at most %(max_bytes)s bytes', max_bytes=self.max_bytes))
        width, height = image_size(data)
        if width * height > self.max_pixels:
            raise ApiError(413, _("a frame of %(width)s×%(height)s pixels is too large: at most %(max_pixels)s pixels (a phone's 1280×720 "
                                  "frame is well within)",
                                  width=width, height=height, max_pixels=self.max_pixels))
        return width, height

    def decode(self, data: bytes) -> np.ndarray:
        self.check(data)
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        if image is None or image.size == 0:
            raise ApiError(400, _("the body does not decode as an image"))
        return image

    def publish(self, table_id: str, image: np.ndarray) -> Frame:
        ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
        if not ok:
            raise ApiError(500, _("could not encode the frame"))
        with self._changed:
            previous = self._frames.get(table_id)
            frame = Frame(encoded.tobytes(), time.time(), (previous.seq + 1) if previous else 1,
                          image.shape[1], image.shape[0])
            self._frames[table_id] = frame
            self._changed.notify_all()
        for listener in list(self.listeners):
            listener(table_id)
        return frame

    def publish_later(self, table_id: str, width: int, height: int, render: Callable[[], np.ndarray]) -> Frame:
        """As :meth:`publish`, for a picture drawn only when someone looks at it (``render`` makes it)."""
        with self._changed:
            previous = self._frames.get(table_id)
            frame = Frame(None, time.time(), (previous.seq + 1) if previous else 1, width, height, render)
            self._frames[table_id] = frame
            self._changed.notify_all()
        for listener in list(self.listeners):
            listener(table_id)
        return frame

    def latest(self, table_id: str) -> Frame | None:
        with self._changed:
            return self._frames.get(table_id)

    def wait(self, table_id: str, after_seq: int, timeout: float) -> Frame | None:
        with self._changed:
            self._changed.wait_for(lambda: (f := self._frames.get(table_id)) is not None and f.seq > after_seq, timeout)
            return self._frames.get(table_id)


def hub() -> CameraHub:
    return current_app.extensions["camera"]


@bp.post("/tables/<table_id>/frames")
def post_frame(table_id: str):
    table = referee_table(table_id)
    length = request.content_length
    if length is not None and length > hub().max_bytes:
        raise ApiError(413, _('a frame may be at most %(max_bytes)s bytes', max_bytes=hub().max_bytes))
    data = request.get_data(cache=False)
    hub().check(data)
    hub().admit(table)
    image = hub().decode(data)
    feed = hub().push(table, image)
    return jsonify(width=int(image.shape[1]), height=int(image.shape[0]), camera=feed_status(feed)), 202


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


@bp.post("/tables/<table_id>/detections")
def post_detections(table_id: str):
    """A reader elsewhere (a phone reading its own cards, ``companion table run --post-to``) posts what it
    read in one frame; the table pipeline runs on it here (see docs/web.md, *Detections*)."""
    table = referee_table(table_id)
    camera = hub()
    length = request.content_length
    if length is not None and length > camera.max_readings_bytes:
        raise ApiError(413, _("a post of detections may be at most %(bytes)s bytes", bytes=camera.max_readings_bytes))
    camera.admit_readings(table)
    raw = request.get_data(cache=False)
    if len(raw) > camera.max_readings_bytes:
        raise ApiError(413, _("a post of detections may be at most %(bytes)s bytes", bytes=camera.max_readings_bytes))
    # DETECTIONS_AT_ONCE: served by web_ui.server the posts come in that many threads of their own (the rest wait
    # in its queue); under any other WSGI server the rest wait here, and the referee is not kept waiting
    with camera.readings_turns:
        try:
            body = json.loads(raw or b"null", parse_constant=_reject_constant)
        except RecursionError:
            raise ApiError(400, _("the body nests too deeply")) from None
        except (UnicodeDecodeError, ValueError) as error:
            raise ApiError(400, _("the body is not valid JSON (%(reason)s)", reason=str(error)[:80])) from None
        try:
            readings = parse_readings(body)
            if readings.mat_frame is not None:
                readings = readings.with_frame(camera.decode(readings.mat_frame))
        except ReadingsError as error:
            raise ApiError(error.status, error_text(error)) from None
        answer = camera.take_readings(table, readings)
    return jsonify(answer)


@bp.get("/tables/<table_id>/camera")
def camera_status(table_id: str):
    return jsonify(hub().status(registry().get(table_id)))


@bp.post("/tables/<table_id>/camera")
def camera_control(table_id: str):
    """``{"use": "server"}`` points the server's camera at this table; ``{"use": null}`` stops this table's camera."""
    table = referee_table(table_id)
    use = json_body().get("use")
    if use == "server":
        hub().attach_server_camera(table)
    elif use is None:
        hub().detach(table)
    else:
        raise ApiError(400, _('"use" is "server" or null'))
    return jsonify(hub().status(table))


@bp.post("/tables/<table_id>/questions/<int:question_id>")
def answer_question(table_id: str, question_id: int):
    """The referee answers a camera question: ``{"answer": "SJ"}`` (a card: the choices offered or any
    other) or ``{"answer": "not a card"}``. A card answer becomes the engine event it implies, journaled
    as the referee's (so Undo takes it back); "not a card" closes the question and changes nothing."""
    table = referee_table(table_id)
    book = hub().book(table)
    try:
        question, entry = book.answer(table, question_id, json_body().get("answer"),
                                      lambda q, view: asked.where(table.game, q.zone, view))
    except QuestionError as error:
        status = 404 if isinstance(error, QuestionNotFound) else 409 if isinstance(error, QuestionAnswered) else 400
        raise ApiError(status, error_text(error)) from None
    view = table.snapshot()
    return jsonify(question=question.to_json(asked.where(table.game, question.zone, view)),
                   entry=None if entry is None else entry.to_json(), state=view)


@bp.get("/tables/<table_id>/frame.jpg")
def latest_frame(table_id: str):
    table = registry().get(table_id)
    frame = hub().latest(table.id)
    if frame is None:
        raise ApiError(404, _("no camera frame yet for this table"))
    return Response(frame.jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store", "X-Frame-Seq": str(frame.seq)})


@bp.get("/tables/<table_id>/camera.mjpeg")
def mjpeg(table_id: str):
    table = registry().get(table_id)
    camera, lifetime = hub(), current_app.config["SSE_MAX_SECONDS"]

    def generate():
        deadline, last = time.monotonic() + lifetime, 0
        while time.monotonic() < deadline:
            frame = camera.wait(table.id, last, timeout=1.0)
            if frame is None or frame.seq <= last:
                continue
            last = frame.seq
            yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " + str(len(frame.jpeg)).encode()
                   + b"\r\n\r\n" + frame.jpeg + b"\r\n")

    return Response(generate(), mimetype="multipart/x-mixed-replace; boundary=frame", headers={"Cache-Control": "no-store"})
