"""The table pipeline: frames in, settled card events out, game events into the engine.

    frame ─► mat locator (homography, re-found every few seconds)
          ─► detector (any callable frame → Detections)
          ─► table positions (mat mm, or pixels without a mat) ─► Observations
          ─► Tracker (stability, turned / moved / removed, questions)
          ─► Binding (table events → engine events, refusals → questions)

Two entry points, one pipeline: :meth:`TablePipeline.process` takes a frame and reads it here;
:meth:`TablePipeline.process_readings` takes what a reader elsewhere (a phone's browser, a table
computer: ``companion.table.readings``) read in its own frame, the index readings and backs the
detector gives before grouping, and groups them with the same grouping
(``companion.vision.grouping.cards_from_readings``); the mat comes from the markers it found or
from a still of the frame it sends when asked (``wants_frame``). From the cards on, both are the
same code.

Each step is small and replaceable; the detector is whatever callable you pass, so tests of the
tracking logic can feed :class:`Detections` directly while the end-to-end path uses
``companion.vision.Detector``.
"""
from __future__ import annotations

import builtins
import collections
import io
import pickle
import time as _time
import zlib
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

import cv2
import numpy as np

from calibration.homography import LensCalibration, MatLocator
from calibration.layouts import INDEX_MM, Layout, layout_for
from companion.table.bindings import BINDINGS, Binding, Outcome, binding_for
from companion.table.events import Observation, TableEvent
from companion.table.tracker import Tracker, TrackerConfig
from companion.vision.decode import box_iou
from companion.vision.detections import Detections, IndexScale, ScaleAwareDetector
from companion.vision.grouping import cards_from_readings
from companion.vision.incremental import reads_incrementally
from companion.messages import Message, MessageError, english

Detector = Callable[[np.ndarray], Detections]
MAT_MODES = ("auto", "none", "required")
# Posted readings bring a still of their frame only when asked (``wants_frame``). A face-down box is
# judged against its surroundings in a still (``looks_like_its_surroundings``: a bare printed slot
# reads as a back); a box of a later frame keeps the verdict of the still's box it overlaps this much
# (a card laid on the slot changes the box). A box without a verdict asks for a still once it lies
# still (the same box, this overlap, in the frame before): a card being carried changes its box on
# every frame, and the tracker settles nothing while it moves anyway.
SAME_BACK_IOU = 0.8
# After a look at a still that did not find the mat (a hand over its markers, a bumped camera), ask
# again this soon; the last homography found stands meanwhile, as for frames. Each still costs the
# server 10-20 ms (decoding, markers, the live view), ten times a post without one.
MAT_LOST_RETRY_SECONDS = 1.0


class PipelineError(MessageError, ValueError):
    """The pipeline cannot work with what it was given (no mat for a game that needs one, ...)."""


@dataclass(frozen=True)
class PipelineConfig:
    tracker: TrackerConfig = field(default_factory=TrackerConfig)
    mat: str = "auto"                       # auto: use the mat if its markers are seen; none: never
    mat_search_seconds: float = 2.0         # how long "auto" looks for the mat before going without
    refresh_seconds: float = 3.0            # re-find the mat this often (a bumped camera recovers)
    occluder_fraction: float = 0.008        # largest skin-coloured blob (share of the frame) that means "a hand"
    match_fraction: float = 0.55            # without a mat: match distance as a share of the card width (pixels)
    match_retune: float = 0.2               # without a mat: re-gate matching when the card size moved this share
    detector_rescale: float = 0.1           # tell the detector a new index size when it moved this share
    flush_step_seconds: float = 0.1         # the empty-handed frames ``run(flush_seconds=...)`` adds
    incremental: bool = True                # the neural detector re-reads only what changed (vision/incremental.py)
    # frames whose results are kept (``history``; None: all, as a recording's run needs): a server's
    # camera feed runs for hours at 5 frames/s, so it keeps the last few minutes
    history_limit: int | None = None

    def __post_init__(self) -> None:
        if self.mat not in MAT_MODES:
            raise PipelineError(f"mat must be one of {', '.join(MAT_MODES)}, got {self.mat!r}")


@dataclass
class FrameResult:
    time: float
    detections: int
    table_events: list[TableEvent]
    outcomes: list[Outcome]
    occluded: bool
    seconds: float
    work: object = None   # what the detector did for it (IncrementalReader.last_work), when it says

    @property
    def engine_events(self) -> list[dict]:
        return [e for o in self.outcomes for e in o.engine_events]

    @property
    def questions(self) -> list[Message]:
        asked = [e.question for e in self.table_events if e.type == "question"]
        return asked + [q for o in self.outcomes for q in o.questions]


def looks_like_its_surroundings(frame: np.ndarray, box, tolerance: float = 14.0, uniform: float = 0.8) -> bool:
    """Whether a box holds nothing but the surface around it: its middle is one colour, the colour of
    a ring just outside it.

    The detector boxes a card-sized, outlined, empty rectangle (a mat's printed slot) like a plain
    card back. A real back differs from the cloth or paper it lies on; a bare slot does not. The
    slot's small printed label and its outline stay out of the samples (the middle is tested for
    mostly one colour, the ring starts outside the outline). Colours are compared in CIELAB.
    """
    height, width = frame.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = x2 - x1, y2 - y1
    if w < 8 or h < 8:
        return False

    def region(grow: float) -> tuple[int, int, int, int]:
        """The box grown by ``grow`` of its size on every side (shrunk if negative), clipped to the frame."""
        return (int(max(0, x1 - grow * w)), int(max(0, y1 - grow * h)),
                int(min(width, x2 + grow * w)), int(min(height, y2 + grow * h)))

    ox1, oy1, ox2, oy2 = region(0.15)
    lab = cv2.cvtColor(frame[oy1:oy2, ox1:ox2], cv2.COLOR_BGR2LAB).astype(np.float32)
    mx1, my1, mx2, my2 = region(-0.25)
    middle = lab[my1 - oy1:my2 - oy1, mx1 - ox1:mx2 - ox1].reshape(-1, 3)
    ix1, iy1, ix2, iy2 = region(0.05)
    outside = np.ones(lab.shape[:2], bool)
    outside[iy1 - oy1:iy2 - oy1, ix1 - ox1:ix2 - ox1] = False
    ring = lab[outside]
    if len(middle) == 0 or len(ring) < 0.1 * w * h:
        return False  # no surroundings to compare with (the box fills the frame or runs off it)
    colour = np.median(middle, axis=0)
    one_colour = float(np.mean(np.linalg.norm(middle - colour, axis=1) < tolerance))
    return one_colour >= uniform and float(np.linalg.norm(colour - np.median(ring, axis=0))) < tolerance


def _box_corners(boxes: np.ndarray) -> np.ndarray:
    """The four corners of each x1, y1, x2, y2 box, as an (n * 4, 2) array."""
    x1, y1, x2, y2 = boxes.T
    return np.stack([np.stack([x1, y1], 1), np.stack([x2, y1], 1), np.stack([x2, y2], 1), np.stack([x1, y2], 1)], 1).reshape(-1, 2)


# What skin_fraction looks at: the frame shrunk to this width, and skin as this box of YCrCb values.
# A reader elsewhere (the phone's, web_ui/static/reader_core.js skinFraction) measures the same, told
# these by GET /api/models.
SKIN_WIDTH = 160
SKIN_YCRCB_LOW, SKIN_YCRCB_HIGH = (60, 138, 80), (245, 172, 122)


def skin_fraction(frame: np.ndarray, width: int = SKIN_WIDTH) -> float:
    """Share of the frame covered by the largest skin-coloured blob: a cheap sign of a hand over the table.

    Only one solid blob counts: the pinkish anti-aliased edges of red pips are thin and scattered,
    and an opening removes them before the blobs are measured.
    """
    h, w = frame.shape[:2]
    small = cv2.resize(frame, (width, max(1, int(h * width / w))), interpolation=cv2.INTER_AREA)
    ycrcb = cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb)
    mask = cv2.inRange(ycrcb, SKIN_YCRCB_LOW, SKIN_YCRCB_HIGH)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count <= 1:
        return 0.0
    return float(stats[1:, cv2.CC_STAT_AREA].max()) / mask.size


def sure_as_the_detector(tracker: TrackerConfig, detector) -> TrackerConfig:
    """The tracker's sure levels lowered to a learned deck's detector thresholds.

    The tracker asks about a settled card whose readings' median confidence (detection x
    classification) is below its sure levels, which are the general models' own thresholds (index
    0.6, back 0.4): a reading surer than its detector needed is no doubt. A learned deck lowers
    those thresholds (``Detector.with_deck``: its prototypes turn away boxes that hold none of its
    indices, its back's colours boxes that are no back), so the deck's own cards score below the
    general levels and would each be asked about: the tigullio deck's joker, whose index is a star,
    scores 0.53-0.60 as an index and read as BJ at 0.57-0.60 on the Chosen recording (seed 1), a
    question on every frame it settled in, and the chosen card never entered the game. A settled
    face read as another face still needs the general level (``TrackerConfig.sure_swap_confidence``).
    """
    if getattr(detector, "deck", None) is None:
        return tracker
    face = max(tracker.min_confidence, min(tracker.sure_confidence, float(detector.conf)))
    back = max(tracker.min_confidence, min(tracker.sure_back_confidence, float(detector.back_conf)))
    swap = tracker.sure_confidence if tracker.sure_swap_confidence is None else tracker.sure_swap_confidence
    return replace(tracker, sure_confidence=face, sure_back_confidence=back, sure_swap_confidence=swap)


class TablePipeline:
    def __init__(self, binding: Binding, detector: Detector, layout: Layout | None = None,
                 config: PipelineConfig | None = None, lens: LensCalibration | None = None) -> None:
        self.binding = binding
        self.config = config or PipelineConfig()
        self.detector = reads_incrementally(detector) if self.config.incremental else detector
        self.game = binding.game
        if binding.needs_mat and self.config.mat == "none":
            raise PipelineError(f"{self.game} needs its mat: zones come from the mat's markers (print one with 'companion mat')")
        self.layout = layout
        if self.layout is None and self.config.mat != "none" and binding.ships_a_mat:
            self.layout = layout_for(self.game, len(binding.view().get("players", [])) or None)
        self.locator = MatLocator(self.layout, self.config.refresh_seconds, lens) \
            if self.layout is not None and self.config.mat != "none" else None
        self.units: str | None = None if self.locator else "px"   # "mm" on a mat, "px" without
        zone_of = binding.zones(self.layout if binding.needs_mat else None)
        tracker = sure_as_the_detector(self.config.tracker, detector)
        if binding.moves_within_zone:
            tracker = replace(tracker, moves_within_zone=True)
        self.tracker = Tracker(zone_of, tracker)
        self.frames = 0
        self.started_at: float | None = None
        self.history: collections.deque[FrameResult] = collections.deque(maxlen=self.config.history_limit)
        self.notices: list[str] = []
        self._detector_at_scale: Detector | None = None
        self._index_px: tuple[tuple, IndexScale] | None = None   # (the mat found as, its index sizes)
        self._marker_bounds: tuple[np.ndarray, np.ndarray] | None = None
        # the last detections and what they were on the table: a detector that re-reads only what
        # changed hands back the very same Detections for a still frame, and then so are they
        self._observed: tuple[Detections, int, list[Observation]] | None = None
        self.last_detections: Detections | None = None    # what the detector read in the last frame (overlays)
        # posted readings: the last ones grouped (a still table posts the same again), the verdicts on
        # the face-down boxes of the last still (box, bare), whether a box had none, whether a still is wanted
        self._grouped: tuple[tuple, Detections] | None = None
        self._back_verdicts: list[tuple[np.ndarray, bool]] = []
        self._previous_backs = np.zeros((0, 4), np.float32)   # the face-down boxes of the frame before
        self._unjudged_backs = False
        self.wants_frame = True

    # ------------------------------------------------------------------ steps

    def _decide_units(self, time: float) -> None:
        if self.units is not None:
            return
        if self.locator is not None and self.locator.ready:
            self.units = "mm"
            self.binding.on_mat_found()
        elif not self.binding.needs_mat and self.config.mat == "auto" and \
                time - self.started_at >= self.config.mat_search_seconds:
            self.units = "px"
            self.locator = None
            self.notices.append(self.binding.without_mat_notice)

    def observations(self, detections: Detections, frame: np.ndarray | None = None) -> list[Observation]:
        """The cards on the table plane. ``frame``: the picture they were read in (its bare printed
        slots are no backs); without one the verdicts on the last still's backs stand."""
        if not len(detections):
            return []
        detections = self._without_bare_backs(detections, frame)
        centers, others = detections.centers, detections.other_centers
        if self.units == "mm":
            positions = self.locator.to_mat(centers)
            other_positions = self.locator.to_mat(np.nan_to_num(others))
            boxes_mm = self.locator.to_mat(_box_corners(detections.boxes)).reshape(-1, 4, 2)
            on_marker = self._on_markers(positions, boxes_mm)
        else:
            positions, other_positions = centers, others
            self._pixel_scale(detections)
            on_marker = [False] * len(detections)
        has_other = ~np.isnan(others[:, 0])
        return [Observation(code, float(conf), (float(p[0]), float(p[1])), (float(o[0]), float(o[1])) if other else None)
                for code, conf, p, o, other, marker in zip(detections.codes, detections.confidences, positions,
                                                            other_positions, has_other, on_marker)
                if not marker]

    def _without_bare_backs(self, detections: Detections, frame: np.ndarray | None) -> Detections:
        """Drops 'backs' that are only the surface they were seen on (an empty printed slot): judged in
        ``frame``, or without one (posted readings between two stills) by the last still's verdict on
        the box each overlaps (SAME_BACK_IOU); a box with none is kept, and a still is asked for."""
        backs = [i for i, code in enumerate(detections.codes) if code == "BACK"]
        self._unjudged_backs = False
        previous, self._previous_backs = self._previous_backs, detections.boxes[backs]
        if not backs:
            return detections
        if frame is not None:
            self._back_verdicts = [(detections.boxes[i].copy(), looks_like_its_surroundings(frame, detections.boxes[i])) for i in backs]
            bare = {i for i, (_, verdict) in zip(backs, self._back_verdicts) if verdict}
        else:
            bare = set()
            judged = np.array([box for box, _ in self._back_verdicts], np.float32).reshape(-1, 4)
            for i in backs:
                overlaps = box_iou(detections.boxes[i], judged) if len(judged) else np.zeros(0)
                if len(overlaps) and overlaps.max() >= SAME_BACK_IOU:
                    if self._back_verdicts[int(overlaps.argmax())][1]:
                        bare.add(i)
                elif len(previous) and box_iou(detections.boxes[i], previous).max() >= SAME_BACK_IOU:
                    self._unjudged_backs = True   # lies still without a verdict: a still will judge it
        if not bare:
            return detections
        return detections[[i for i in range(len(detections)) if i not in bare]]

    def _on_markers(self, positions_mm: np.ndarray, boxes_mm: np.ndarray) -> np.ndarray:
        """Which detections are one of the mat's printed markers: the detector reads their
        black-and-white squares as indices now and then. A card read from one lone index has its
        centre estimated off the index, so the test is also whether the detection's box holds most
        of a marker (a real card laid on a marker would hide it; the mat asks players not to).
        All detections against all markers at once: a 30-card table has 30 × 4 pairs every frame."""
        if self._marker_bounds is None:
            corners = [marker.corners() for marker in self.layout.markers]
            self._marker_bounds = (np.array([c.min(0) for c in corners], np.float64).reshape(-1, 2),
                                   np.array([c.max(0) for c in corners], np.float64).reshape(-1, 2))
        m_low, m_high = self._marker_bounds                                    # markers × 2
        positions = np.asarray(positions_mm, np.float64).reshape(-1, 1, 2)     # detections × 1 × 2
        inside = ((positions >= m_low) & (positions <= m_high)).all(-1)
        low, high = boxes_mm.min(1)[:, None, :], boxes_mm.max(1)[:, None, :]
        overlap = np.clip(np.minimum(high, m_high) - np.maximum(low, m_low), 0, None)
        covered = overlap[..., 0] * overlap[..., 1] >= 0.5 * np.prod(m_high - m_low, axis=1)
        return (inside | covered).any(1)

    @property
    def index_px(self) -> float | None:
        """How large a corner index is in frame pixels, from the mat's scale at its centre (None without a mat)."""
        scale = self.index_scale
        return None if scale is None else scale.centre_px

    @property
    def index_scale(self) -> IndexScale | None:
        """How large a corner index is at each pixel, from the mat's homography (None without a mat): a camera
        at a slant sees the far edge's cards smaller than the middle's. Worked out again only when the mat is
        re-found. (With a lens model the homography maps undistorted pixels; the perspective's share is
        still the frame's to within the lens's few per cent.)"""
        if self.units != "mm":
            return None
        found = (self.locator.refreshes, id(self.locator.matrix))
        if self._index_px is None or self._index_px[0] != found:
            centre = self.locator.to_image(np.array([[self.layout.width / 2, self.layout.height / 2]], np.float32))[0]
            centre_px = INDEX_MM / self.locator.mm_per_pixel((float(centre[0]), float(centre[1])))
            self._index_px = (found, IndexScale.through(self.locator.matrix, (float(centre[0]), float(centre[1])), centre_px))
        return self._index_px[1]

    def _detector_for_the_mat(self) -> Detector:
        """On a mat the index size in pixels is known from its scale: a detector that can use it
        (a :class:`ScaleAwareDetector`) is told, so a whole-table view gets its closer look even when the
        whole-frame pass finds nothing."""
        if not isinstance(self.detector, ScaleAwareDetector) or self.units != "mm":
            return self.detector
        scale = self.index_scale
        index_px = scale.centre_px
        current = self._detector_at_scale
        if current is None or abs(current.index_px - index_px) > self.config.detector_rescale * index_px:  # the camera moved
            self._detector_at_scale = self.detector.expecting_index_px(scale)
        return self._detector_at_scale

    def _pixel_scale(self, detections: Detections) -> None:
        """Without a mat, distances are pixels: the match gate and the grid spacing follow the card size."""
        sizes = np.stack([detections.boxes[:, 2] - detections.boxes[:, 0], detections.boxes[:, 3] - detections.boxes[:, 1]], 1)
        short = float(np.median(sizes.min(1)))
        long = float(np.median(sizes.max(1)))
        if short <= 1:
            return
        gate = self.config.match_fraction * short
        if abs(self.tracker.config.match_distance - gate) > self.config.match_retune * gate:
            self.tracker.config = replace(self.tracker.config, match_distance=gate)
        self.binding.on_card_size(short, long)

    def process(self, time: float, frame: np.ndarray, held: bool = False) -> FrameResult:
        """One frame; ``held`` marks the last frame repeated after the input ended (see ``run``)."""
        started = self._begin(time)
        if self.locator is not None:
            self.locator.update(time, frame)
        self._decide_units(time)
        occluded = skin_fraction(frame) >= self.config.occluder_fraction
        if self.units is None:
            return self._unplaced(time, occluded, started)
        detector = self._detector_for_the_mat()
        if held and self.tracker.held_since is None and hasattr(detector, "refresh"):
            detector.refresh()   # the held last frame reads as in full: what stands at the end is no kept reading
        if hasattr(detector, "seen_through"):
            # on a mat the reader compares frames in mat coordinates: a moved camera is no change
            detector.seen_through(self.locator.matrix if self.units == "mm" else None)
        detections = detector(frame)
        return self._track(time, detections, frame, occluded, held, started,
                           getattr(self._detector_at_scale or self.detector, "last_work", None))

    def process_readings(self, time: float, readings, held: bool = False) -> FrameResult:
        """One frame read elsewhere (:class:`companion.table.readings.Readings`): its index readings and
        backs grouped here as this process's detector groups its own, then as :meth:`process`. The mat
        comes from the markers the reader found, or from the still it sent (``readings.frame``); after
        it, :attr:`wants_frame` says whether the next post should bring a still (the mat not found yet,
        due to be re-found, or hidden at the last look; a face-down box without a verdict)."""
        started = self._begin(time)
        frame = readings.frame
        if self.locator is not None:
            if frame is not None:
                self.locator.update(time, frame, force=True)   # a still comes when asked: look at it
            elif readings.markers is not None:
                self.locator.update_found(time, readings.markers)
        self._decide_units(time)
        occluded = bool(readings.occluded) if readings.occluded is not None else \
            frame is not None and skin_fraction(frame) >= self.config.occluder_fraction
        if self.units is None:
            result = self._unplaced(time, occluded, started)
        else:
            scale = self.index_scale
            key = (readings.indices, readings.backs, readings.frame_shape, scale)
            if self._grouped is not None and self._grouped[0] == key:
                detections = self._grouped[1]   # the same readings again (a still table read incrementally)
            else:
                detections = cards_from_readings(list(readings.indices), list(readings.backs), readings.frame_shape,
                                                 index_px=scale, learned_back=bool(getattr(self.detector, "learned_back", False)))
                self._grouped = (key, detections)
            # a still judges the backs afresh, but the same readings with a still are no new look: the
            # server asks for one whenever a face-down box has no verdict, and a frame the phone read
            # twice (a still table, a slow phone) would otherwise count twice and settle a passing hand's
            # back (the Chosen read in the browser at 0.7 s a frame, a 1 s hold: a chip that was not there)
            result = self._track(time, detections, frame, occluded, held, started, rejudge=frame is not None)
        self.wants_frame = self._still_wanted(time)
        return result

    def _still_wanted(self, time: float) -> bool:
        """Whether posted readings should bring a still of their frame next (see process_readings)."""
        locator = self.locator
        if locator is not None:
            if not locator.ready or self.units is None or locator.due(time):
                return True
            if not locator.last_look_found and locator._tried_at is not None and time - locator._tried_at >= MAT_LOST_RETRY_SECONDS:
                return True
        return self._unjudged_backs

    def _begin(self, time: float) -> float:
        if self.started_at is None:
            self.started_at = time
        self.frames += 1
        return _time.perf_counter()

    def _unplaced(self, time: float, occluded: bool, started: float) -> FrameResult:
        """A frame before the pipeline knows where the table is (the mat not found yet)."""
        result = FrameResult(time, 0, [], [], occluded, _time.perf_counter() - started)
        self.history.append(result)
        return result

    def _track(self, time: float, detections: Detections, frame: np.ndarray | None, occluded: bool, held: bool,
               started: float, work=None, rejudge: bool = False) -> FrameResult:
        """The cards of one frame, however they were read: onto the table, through the tracker and the binding."""
        self.last_detections = detections
        refreshes = self.locator.refreshes if self.locator is not None else 0
        # the very readings of the last frame again (an incremental reader that saw no change, or the same
        # posted readings), or the held last frame read once more (the same pixels): no new look
        same = self._observed is not None and self._observed[0] is detections
        repeated = same or (held and self.tracker.held_since is not None)
        if same and self._observed[1] == refreshes and not rejudge:
            observations = self._observed[2]
        else:
            observations = self.observations(detections, frame)
            self._observed = (detections, refreshes, observations)
        table_events = self.tracker.update(time, observations, occluded, held=held, repeated=repeated)
        self.binding.observe_tracks(self.tracker.tracks)
        outcomes = [self.binding.handle(event) for event in table_events]
        result = FrameResult(time, len(detections), table_events, outcomes, occluded, _time.perf_counter() - started, work)
        self.history.append(result)
        return result

    def run(self, frames: Iterable[tuple[float, np.ndarray]], on_frame: Callable[[FrameResult], None] | None = None,
            flush_seconds: float | None = None) -> dict:
        """Runs over a whole source; ``flush_seconds`` extra empty-handed time lets the last card settle.

        During that time the last frame is held: only readings already steady before the end may
        settle (a misread in the last frame would otherwise become a phantom card)."""
        last_time, last_frame = None, None
        for time, frame in frames:
            result = self.process(time, frame)
            last_time, last_frame = time, frame
            if on_frame:
                on_frame(result)
        if last_frame is not None and flush_seconds:
            for time in self.held_times(last_time, flush_seconds):
                result = self.process(time, last_frame, held=True)
                if on_frame:
                    on_frame(result)
        return self.summary()

    @property
    def end_hold_seconds(self) -> float:
        """How long the last frame of an input that ends (a recording) is held: long enough for a card
        laid just before the end to settle and for one taken away to be removed."""
        return self.tracker.config.remove_after_seconds + 0.5

    def held_times(self, last_time: float, seconds: float) -> list[float]:
        """The times of the held last frame's repeats over ``seconds`` after ``last_time``."""
        step = self.config.flush_step_seconds
        return [last_time + k * step for k in range(1, int(seconds / step) + 1)]

    # -- saved and resumed (a feed taken over by another server) ----------------------------------------
    def saved(self) -> bytes:
        """What this pipeline knows of the table, as bytes: the tracker's cards (where each lies, what it
        read), the binding's game and what it knows of each card, the mat. :meth:`resumed` reads it back,
        so a feed that another server takes over goes on from what the table had settled: a card lying on
        the mat at the takeover is seen leaving it, none is seen arriving again."""
        state = {key: value for key, value in vars(self).items() if key not in UNSAVED}
        return zlib.compress(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL), 1)

    @classmethod
    def resumed(cls, data: bytes, detector: Detector) -> "TablePipeline":
        """A pipeline from :meth:`saved`'s bytes, reading with ``detector``. PipelineNotResumable when they are
        not a saved pipeline this version can read (then start a new one)."""
        try:
            state = _ResumingUnpickler(io.BytesIO(zlib.decompress(data))).load()
        except Exception as error:   # anything a damaged or foreign pickle raises
            raise PipelineNotResumable(f"not a saved pipeline: {error}") from None
        if not isinstance(state, dict) or not isinstance(state.get("tracker"), Tracker) or not isinstance(state.get("config"), PipelineConfig):
            raise PipelineNotResumable("not a saved pipeline")
        pipeline = cls.__new__(cls)
        pipeline.__dict__.update(state)
        pipeline.detector = reads_incrementally(detector) if pipeline.config.incremental else detector
        pipeline._detector_at_scale = None
        pipeline.history = collections.deque(maxlen=pipeline.config.history_limit)
        pipeline._observed = pipeline._grouped = pipeline.last_detections = None
        return pipeline

    def summary(self) -> dict:
        return {
            "game": self.game,
            "frames": self.frames,
            "units": self.units,
            "mat": None if self.locator is None else {"layout": self.layout.name, "markers": self.locator.markers_used,
                                                      "error_mm": round(self.locator.error_mm, 2) if self.locator.ready else None},
            "table": self.tracker.snapshot(),
            "engine_events": list(self.binding.events),
            "questions": [english(q) for r in self.history for q in r.questions],   # the summary's text is English
            "notices": list(self.notices),
            "state": self.binding.view(),
        }


# What a saved pipeline (TablePipeline.saved) may be built of when it is read back: the project's own
# classes, numpy's arrays and the plain containers. The bytes come from the venue's own database, but a
# pickle may call anything it names, so nothing else is let in (no function, no module outside these).
RESUMABLE_MODULES = ("companion.", "calibration.")
RESUMABLE_BUILTINS = frozenset({"set", "frozenset", "list", "dict", "tuple", "int", "float", "str", "bool", "complex",
                                "bytes", "bytearray", "slice", "range"})
RESUMABLE_LIBRARY = frozenset({("collections", "deque"), ("collections", "OrderedDict"), ("collections", "Counter"),
                               ("collections", "defaultdict"), ("copyreg", "_reconstructor"),
                               ("companion.messages", "_rebuild")})   # how a Message pickles itself
# Caches and per-frame results a resumed pipeline builds again: not saved.
UNSAVED = frozenset({"detector", "_detector_at_scale", "history", "_observed", "_grouped", "last_detections"})


class PipelineNotResumable(ValueError):
    """A saved pipeline that cannot be read back here (made by another version, or not a pipeline at all)."""


class _ResumingUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if "." not in name:
            if (module, name) in RESUMABLE_LIBRARY:
                return super().find_class(module, name)
            if module.startswith(RESUMABLE_MODULES):
                found = super().find_class(module, name)
                if isinstance(found, type):
                    return found
            elif module == "builtins" and name in RESUMABLE_BUILTINS:
                return getattr(builtins, name)
            elif module.split(".")[0] == "numpy" and (name in ("ndarray", "dtype", "_reconstruct", "_frombuffer", "scalar")
                                                     or name.endswith("DType")):
                return super().find_class(module, name)
        raise pickle.UnpicklingError(f"a saved pipeline may not name {module}.{name}")


def build_pipeline(game: str, detector: Detector, setup: dict, setup_events: list[dict] | None = None,
                   mat: str = "auto", layout: Layout | None = None, tracker: TrackerConfig | None = None,
                   lens: LensCalibration | None = None, refresh_seconds: float = 3.0,
                   incremental: bool = True, history_limit: int | None = None) -> TablePipeline:
    """The usual assembly: a binding for the game, the shipped mat for its player count, default timers."""
    if game not in BINDINGS:
        raise ValueError(f"no table binding for {game!r}: choose one of {', '.join(BINDINGS)}")
    tracker = tracker or TrackerConfig(copies=BINDINGS[game].card_copies(setup))
    binding = binding_for(game, setup, setup_events)
    if layout is None and mat != "none" and binding.ships_a_mat:
        layout = layout_for(game, len(setup.get("players", [])) or None)
    config = PipelineConfig(tracker=tracker, mat=mat, refresh_seconds=refresh_seconds, incremental=incremental,
                            history_limit=history_limit)
    return TablePipeline(binding, detector, layout, config, lens)
