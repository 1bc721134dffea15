"""The two-stage recogniser: find corner indices and backs, read each index, group into cards.

    detector = Detector.load()            # vision_models/weights, ONNX Runtime, 2 threads
    cards = detector(frame_bgr)           # -> Detections, one entry per physical card
    reading = detector.read(frame_bgr)    # the same plus every index box, for debugging / drawing

The detector reads indices best at the size it learned them (about 30 px tall at its input). A
whole table filmed from above, or a high-resolution photo, shrinks them far below that when the
frame is fitted into the network, so ``tile`` adds a closer look: overlapping windows of the frame,
each fitted into the network on its own, whose index boxes replace the whole-frame pass's. ``tile="auto"`` sizes
the windows from the index size a caller told it (``expecting_index_px``: a table pipeline knows it
from the mat) or else from the indices the whole-frame pass found (none: no closer look), never
magnifying the frame beyond its own pixels; an integer fixes the window side in frame pixels.
"""
from __future__ import annotations

import copy
import math
import os
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.vision.decode import RawBoxes, decode_yolo, nms
from companion.vision.detections import Detections, IndexScale
from companion.vision.frames import check_frame
from companion.vision.grouping import ROTATIONS, IndexReading, cards_from_readings
from companion.vision.ink import ink_colours
from companion.vision.letterbox import Letterbox, to_model_input
from companion.vision.models import DEFAULT_THREADS, Model, ModelsManifest, load_model, resolve_backend

INDEX_CLASS, BACK_CLASS = 0, 1
NONE_CLASS = "NONE"
# Where indices read best: on held-out 640 px photos the detector's own index boxes are 30 px at
# its input (median). The whole-frame pass of a larger frame finds only the larger indices and
# draws them loosely (on 2x2 mosaics of real photos its boxes were ~1.3x the native ones), so the
# windows are sized for 40 px, which brings those mosaics back to their native scale.
TARGET_INDEX_PX = 40.0
# The closer look starts only when the whole-frame pass's indices are this small at the input: on
# held-out 640 px photos (indices 25-42 px at the input, 10th-90th percentile) windows read no
# better than the whole frame and cost more.
TILE_BELOW_PX = 22.0
# A photo (the index size measured by the whole-frame pass, no table telling it) starts the closer look
# sooner: real photos' recall by index size at the input (``python -m vision_models.checks.scale_check``,
# 2,657 placed cards of cardcounterml, rf100 test/valid and the webcam strips; 2026-12-04) is 0.875 /
# 0.891 / 0.918 in the 16-20 / 20-25 / 25-30 px bins with windows below 22 px and 0.903 / 0.906 / 0.932
# below 26 (all cards 0.885 -> 0.897; --tile off 0.871), for 14 -> 29 of 80 photos read with windows
# and a mean cost per photo 1.42x (timed in turns, `scale_check --cost 80`). A learned deck (not measured
# with it) and a table keep 22: a table's mat
# tells the index size (the benchmark mats: 7.7 px at the input, windows either way), so live frames
# are read exactly as before.
PHOTO_TILE_BELOW_PX = 26.0
# A box this much taller than wide (or wider than tall) holds an index upright/upside down (or on its side).
ORIENTED_ASPECT = 1.3
# A closer look never enlarges the frame beyond its own pixels: magnifying indices the camera saw at
# 10 px gives the classifier nothing new to read. At 2x, the screenshots of online tables among the
# held-out photos (indices ~14 px) came back as confident misreads: `companion evaluate --split holdout`
# counted 86 confusions at 2x against 53 at 1x (vision_models/EVALUATION.md, History), while 2x2
# mosaics of the same photos (`--mosaic 2`) read about as well at 1x.
MAX_ZOOM = 1.0
# Reading a photo (no learned deck, the frame's scale unknown): index and back thresholds. models.json's
# 0.6 / 0.4 were chosen on cardcounterml's validation photos and hold for tables on a mat; on the real
# development photos (``python -m vision_models.checks.real_check --source rf100-train --source
# webcam-strips-train``, 1,082 photos no network trained on; 2026-12-02) reading indices down to 0.3,
# with a lone index kept only when sure (grouping.LONE_CARD_MIN_CONFIDENCE 0.6), took card F1 0.852 ->
# 0.875, and a back threshold of 0.7 took backs precision 0.55 -> 0.84 at recall 0.98 (0.75 and up
# drops real backs: the webcam strips' score 0.74-0.94). Measured on the other real photos in
# EVALUATION.md, "General models on real photos". Backs then 0.75 (issue 28): on every real back we
# found, labelled by eye (``python -m vision_models.checks.backs_check``: 145 backs in 111 photos, and the
# 1,944 other real photos, which show none), every false back of the shipped detector scored 0.70-0.74
# (the int8 detector's scores come in steps): 0.7 -> 0.75 took backs P / R 0.833 / 0.621 -> 1.000 /
# 0.579 with grouping.MAX_BACK_ASPECT 3.0, and 0.817 / 0.676 -> 0.978 / 0.621 with MIN_BACK_LONG_SIDE
# 3.0 too (rendered back scenes 0.99 / 0.36 -> 1.00 / 0.30). EVALUATION.md, "Real backs by eye".
PHOTO_INDEX_CONF = 0.3
PHOTO_BACK_CONF = 0.75
# Reading with a learned deck (see Detector.with_deck): index and back thresholds, closer-look zoom.
DECK_INDEX_CONF = 0.25
DECK_BACK_CONF = 0.25
DECK_MAX_ZOOM = 2.0
_ROTATE = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_COUNTERCLOCKWISE}


@dataclass(frozen=True)
class FrameReading:
    """Everything one frame gave: the cards, and the per-index readings they were built from."""

    cards: Detections
    indices: list[IndexReading] = field(default_factory=list)
    backs: list[tuple[tuple[float, float, float, float], float]] = field(default_factory=list)


def classifier_crop(frame: np.ndarray, box, size: int, expand: float) -> np.ndarray:
    """The classifier's view of one index (BGR uint8, size×size), made exactly as its training crops were.

    The box grows by ``expand`` of its width/height on each side and is stretched to a square by one
    affine map; parts running off the frame repeat the edge pixels rather than shifting the crop
    (the same sampling as ``vision_models.data.synth.crop_box``, which cut every training crop).
    """
    x1, y1, x2, y2 = (float(v) for v in box)
    width, height = x2 - x1, y2 - y1
    if width <= 0 or height <= 0:
        raise ValueError(f"cannot crop an empty box {box}")
    x1, x2 = x1 - expand * width, x2 + expand * width
    y1, y2 = y1 - expand * height, y2 + expand * height
    source = np.array([[x1, y1], [x2, y1], [x1, y2]], np.float32)
    target = np.array([[0, 0], [size, 0], [0, size]], np.float32)
    matrix = cv2.getAffineTransform(source, target)
    return cv2.warpAffine(frame, matrix, (size, size), flags=cv2.INTER_AREA if width > size else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def rotations_of(crop: np.ndarray, turns: tuple[int, ...] = ROTATIONS) -> list[np.ndarray]:
    """The crop turned clockwise by each of ``turns`` (degrees, default 0, 90, 180 and 270)."""
    return [crop if turn == 0 else cv2.rotate(crop, _ROTATE[turn]) for turn in turns]


def plausible_turns(box) -> tuple[int, ...]:
    """The quarter-turns that can make an index in this box read upright.

    An index (rank over suit) is taller than wide, so a box clearly taller than wide holds it
    upright or upside down, and one clearly wider holds it on its side; only a squarish box (an
    index near 45°) needs all four. Offering the classifier turns that cannot be right only gives
    it chances to be confidently wrong: on the held-out photos this cut the confusions from 53 to 43
    (validation photos' F1 0.918 -> 0.923, ``vision_models.checks.evaluate --sweep``) and the classifier's
    work by about half.
    """
    width, height = box[2] - box[0], box[3] - box[1]
    if height >= ORIENTED_ASPECT * width:
        return (0, 180)
    if width >= ORIENTED_ASPECT * height:
        return (90, 270)
    return ROTATIONS


def crops_to_batch(crops: list[np.ndarray]) -> np.ndarray:
    """BGR uint8 crops → N×3×H×W float32 RGB in 0…1 (ultralytics' classify preprocessing at size×size)."""
    batch = np.ascontiguousarray(np.stack(crops)[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32)
    batch /= 255
    return batch


def tile_starts(length: int, size: int) -> list[int]:
    """Start offsets of windows of ``size`` covering ``length`` pixels with at least a quarter overlap.

    A quarter of a window is several index sizes (an index is about 7 % of a window's side when
    the window is sized for it), so every index lies whole inside at least one window.
    """
    if length <= size:
        return [0]
    overlap = size // 4
    count = math.ceil((length - overlap) / (size - overlap))
    step = (length - size) / (count - 1)
    return [round(n * step) for n in range(count)]


def parse_tile(value) -> int | str | None:
    """``None``/"off" → no closer look, "auto", or a window side in pixels (at least 64)."""
    if value is None or value == "off":
        return None
    if value == "auto":
        return "auto"
    try:
        size = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"tile must be 'auto', 'off' or a window size in pixels, got {value!r}") from None
    if size < 64:
        raise ValueError(f"a tile window must be at least 64 pixels, got {size}")
    return size


def best_rotation(probabilities: np.ndarray, classes: tuple[str, ...]) -> tuple[str | None, float, int]:
    """From 4×C probabilities (one row per rotation) pick the rotation whose best face class is most confident.

    Returns (code or None when NONE outweighs the face class at that rotation, confidence, rotation).
    """
    none = classes.index(NONE_CLASS)
    faces = probabilities.copy()
    faces[:, none] = -1
    best_class = faces.argmax(1)
    best_prob = faces[np.arange(len(faces)), best_class]
    winner = int(best_prob.argmax())
    code = classes[int(best_class[winner])]
    if probabilities[winner, none] >= best_prob[winner]:
        return None, float(probabilities[winner, none]), ROTATIONS[winner]
    return code, float(best_prob[winner]), ROTATIONS[winner]


def thresholds_with_deck(conf: float, back_conf: float, deck) -> tuple[float, float]:
    """The index and back thresholds a reader uses with a learned deck (None: the general models'):
    see :meth:`Detector.with_deck`. A server told that a reader elsewhere read with a deck sets its
    tracker's sure levels by these, as for its own detector."""
    if deck is None:
        return conf, back_conf
    return min(conf, DECK_INDEX_CONF), (min(back_conf, DECK_BACK_CONF) if deck.back is not None else back_conf)


class Detector:
    """Exported detector + classifier → :class:`Detections`. Thread-unsafe: one per thread."""

    def __init__(self, manifest: ModelsManifest, detector: Model, classifier: Model,
                 conf: float | None = None, iou: float | None = None, back_conf: float | None = None,
                 max_det: int = 300, tile: int | str | None = None):
        self.tile = parse_tile(tile)
        # A learned deck (companion.vision.decks.profile.DeckProfile): indices are read against its
        # prototypes and face-down boxes checked against its back. None: the general models alone.
        self.deck = None
        # How large a corner index is in frame pixels, when the caller knows (a table pipeline does,
        # from the mat's scale). In auto mode it replaces the whole-frame pass's measurement, which
        # a whole-table view cannot give: there that pass finds no index at all, or only a marker.
        # Told for every pixel (a slanted view's far edge is smaller): the grouping measures each reading
        # by it; the windows by ``index_px``, its size at the middle.
        self.index_scale: IndexScale | None = None
        self.max_zoom = MAX_ZOOM
        # The files the two networks came from (load() may take the int8 copies); reports name them.
        self.model_files: tuple[os.PathLike, os.PathLike] = (manifest.detector.path, manifest.classifier.path)
        given_conf, given_back_conf = conf, back_conf
        conf = manifest.thresholds["conf"] if conf is None else conf
        back_conf = manifest.thresholds["back_conf"] if back_conf is None else back_conf
        iou = manifest.thresholds["iou"] if iou is None else iou
        for name, value in (("conf", conf), ("back_conf", back_conf)):
            if not 0 <= value < 1:
                raise ValueError(f"{name} must be in [0, 1), got {value}")
        if not 0 < iou <= 1:
            raise ValueError(f"iou must be in (0, 1], got {iou}")
        self.manifest = manifest
        self.detector_model = detector
        self.classifier_model = classifier
        self.conf, self.back_conf, self.iou, self.max_det = conf, back_conf, iou, max_det
        # A photo's thresholds (see thresholds()); a caller's own conf / back_conf stand for them too.
        self.photo_thresholds: tuple[float, float] | None = (
            PHOTO_INDEX_CONF if given_conf is None else conf, PHOTO_BACK_CONF if given_back_conf is None else back_conf)
        shape = detector.input_shape
        if len(shape) != 4 or not all(isinstance(d, int) for d in shape[2:]):
            raise ValueError(f"{manifest.detector.path}: expected a static N×3×H×W input, got {shape}")
        self.input_shape = (int(shape[2]), int(shape[3]))
        if self.input_shape != (manifest.detector.imgsz, manifest.detector.imgsz):
            raise ValueError(f"{manifest.detector.path} takes {self.input_shape}, models.json says imgsz {manifest.detector.imgsz}")
        self.crop_size = manifest.classifier.imgsz
        cshape = classifier.input_shape
        if tuple(int(d) for d in cshape[2:]) != (self.crop_size, self.crop_size):
            raise ValueError(f"{manifest.classifier.path} takes {cshape}, models.json says imgsz {self.crop_size}")

    @classmethod
    def load(cls, weights_dir: str | os.PathLike | None = None, backend: str = "auto",
             threads: int = DEFAULT_THREADS, conf: float | None = None, iou: float | None = None,
             back_conf: float | None = None, tile: int | str | None = None, precision: str = "auto",
             batching: str | None = None) -> "Detector":
        """Load models.json and both networks; thresholds left None come from models.json (or the defaults).

        ``precision``: "auto" takes the int8 copies with ONNX Runtime where models.json names them,
        "f32" the exported models, "int8" the quantized ones (see ModelSpec.path_for). ``batching``:
        for a detector shared by several threads (a server's tables), "classifier", "detector" or
        "both" networks run every thread's images handed in while busy as one call
        (companion.vision.batching); None: each call on its own."""
        workers = 1
        if isinstance(batching, str) and batching.endswith(":2"):   # two calls at a time (see BatchingModel)
            batching, workers = batching[:-2], 2
        if batching not in (None, "classifier", "detector", "both"):
            raise ValueError(f"batching is None, 'classifier', 'detector' or 'both' (':2' for two workers), got {batching!r}")
        manifest = ModelsManifest.load(weights_dir)
        backend = resolve_backend(backend)
        paths = [spec.path_for(backend, precision) for spec in (manifest.detector, manifest.classifier)]
        detector = load_model(paths[0], backend, threads, allow_batching=batching in ("detector", "both"))
        classifier = load_model(paths[1], backend, threads, allow_batching=True)
        if batching is not None:
            from companion.vision.batching import MAX_CLASSIFIER_IMAGES, MAX_DETECTOR_IMAGES, BatchingModel

            if batching in ("detector", "both") and detector.batchable:
                detector = BatchingModel(detector, MAX_DETECTOR_IMAGES, workers)
            if batching in ("classifier", "both") and classifier.batchable:
                classifier = BatchingModel(classifier, MAX_CLASSIFIER_IMAGES, workers)
        loaded = cls(manifest, detector, classifier, conf=conf, iou=iou, back_conf=back_conf, tile=tile)
        loaded.model_files = tuple(paths)
        return loaded

    def expecting_index_px(self, index_px: float | IndexScale) -> "Detector":
        """This detector (the same loaded networks) told how large indices are in frame pixels: one size,
        or an :class:`IndexScale` across a frame that sees the table at a slant."""
        scale = IndexScale.of(index_px)   # refuses a size that is not a positive number of pixels
        if scale is None:
            raise ValueError("index_px must be positive, got None")
        told = copy.copy(self)
        told.index_scale = scale
        return told

    @property
    def index_px(self) -> float | None:
        """The index size told, at the middle of the frame (None: not told)."""
        return None if self.index_scale is None else self.index_scale.centre_px

    def with_deck(self, deck, closer: bool = True) -> "Detector":
        """This detector (the same loaded networks) reading with a learned deck profile (None: without).

        ``closer=False`` keeps the general closer look (no magnification): a table pipeline reads
        every frame, knows its index size from the mat, and 2x windows cost it about four times the
        work (a Kingdoms recording took over 15 minutes here instead of about 6).
        """
        if deck is not None and not getattr(self.classifier_model, "has_embedding", False):
            raise ValueError(f"reading with a learned deck needs the onnxruntime backend and the onnx package "
                             f"(the {self.backend} classifier gives no embedding)")
        told = copy.copy(self)
        told.deck = deck
        if deck is not None:
            # The deck's prototypes turn away boxes that hold none of its indices (and its back's
            # colours boxes that are no back), so the detector may offer weaker boxes and look closer
            # than the general models can afford. On rendered scenes of the held-out 4-colour deck
            # (vision_models.checks.deck_check, 30 scenes, 306 cards): index conf 0.4 -> 0.25 with back conf
            # 0.4 -> 0.25 took F1 0.902 -> 0.924, and a 2x closer look 0.924 -> 0.957 (recall 0.89 -> 0.97).
            told.conf, told.back_conf = thresholds_with_deck(self.conf, self.back_conf, deck)
            if closer:
                told.max_zoom = max(self.max_zoom, DECK_MAX_ZOOM)
        return told

    @property
    def backend(self) -> str:
        return self.detector_model.backend

    def thresholds(self) -> tuple[float, float]:
        """The (index, back) thresholds this detector reads at: a photo's (``PHOTO_INDEX_CONF``,
        ``PHOTO_BACK_CONF``) where the frame's scale is unknown and no deck is learned, else ``conf`` and
        ``back_conf`` (models.json's, a learned deck's, or the caller's). ``photo_thresholds`` None: always the latter."""
        if self.index_px is None and self.deck is None and self.photo_thresholds is not None:
            return self.photo_thresholds
        return self.conf, self.back_conf

    def __call__(self, frame: np.ndarray) -> Detections:
        return self.read(frame).cards

    def detect_boxes(self, frame: np.ndarray) -> RawBoxes:
        """Stage 1 only: index and back boxes in frame pixels (classes 0 = index, 1 = back).

        Decoding uses the lower of the two thresholds (so NMS sees what ultralytics' would);
        backs below ``back_conf`` are dropped afterwards. With a closer look (``tile``), the
        windows' boxes replace the whole frame's index boxes (its backs stay): each window's boxes
        that its own edge cuts are dropped (the overlap shows them whole in a neighbour) and the
        rest are merged by one more class-wise NMS.
        """
        frame = check_frame(frame)
        whole = self._detect_window(frame, 0, 0)
        size = self.window_size(frame.shape[:2], whole)
        raw = whole if size is None else self._closer_look(frame, whole, size)
        conf, back_conf = self.thresholds()
        keep = np.where(raw.classes == BACK_CLASS, raw.scores > back_conf, raw.scores > conf)
        return RawBoxes(raw.boxes[keep], raw.scores[keep], raw.classes[keep])

    def _closer_look(self, frame: np.ndarray, whole: RawBoxes, size: int) -> RawBoxes:
        """Windows of ``size`` pixels: their boxes, with the whole frame's backs, merged by class-wise NMS.

        The windows see every index closer than the whole frame did; the whole frame's own index
        boxes would only add its low-resolution mistakes.
        """
        height, width = frame.shape[:2]
        backs = whole.classes == BACK_CLASS
        passes = [RawBoxes(whole.boxes[backs], whole.scores[backs], whole.classes[backs])]
        passes += self.detect_windows(frame, [(x, y) for y in tile_starts(height, size) for x in tile_starts(width, size)], size)
        boxes, scores, classes = (np.concatenate([getattr(p, name) for p in passes]) for name in ("boxes", "scores", "classes"))
        apart = classes[:, None].astype(np.float32) * (max(height, width) + 1)  # class-wise NMS
        kept = nms(boxes + apart, scores, self.iou)
        return RawBoxes(boxes[kept], scores[kept], classes[kept])

    def window_size(self, frame_shape: tuple[int, int], whole: RawBoxes) -> int | None:
        """The side of the closer look's windows in frame pixels, or None when the whole frame is enough."""
        if self.tile is None:
            return None
        longest = max(frame_shape[:2])
        if self.tile == "auto":
            index_px = self.index_px if self.index_px is not None else self._measured_index_px(whole)
            if index_px is None:
                return None
            # a photo's closer look (the scale unknown, no learned deck: where its thresholds apply too)
            below = PHOTO_TILE_BELOW_PX if self.index_px is None and self.deck is None else TILE_BELOW_PX
            if index_px * self.input_shape[0] / longest >= below:
                return None
            size = round(self.input_shape[0] * index_px / TARGET_INDEX_PX)
            return max(size, round(self.input_shape[0] / self.max_zoom))
        return self.tile if self.tile < longest else None

    def _measured_index_px(self, whole: RawBoxes) -> float | None:
        """The median index size (longer side, frame pixels) the whole-frame pass found, if any."""
        found = whole.boxes[(whole.classes == INDEX_CLASS) & (whole.scores > self.thresholds()[0])]
        if len(found) == 0:
            return None
        return float(np.median(np.maximum(found[:, 2] - found[:, 0], found[:, 3] - found[:, 1])))

    def detect_windows(self, frame: np.ndarray, starts: list[tuple[int, int]], size: int) -> list[RawBoxes]:
        """The closer look's windows of ``size`` pixels at ``starts`` (left, top): each one's boxes, as
        ``_detect_window`` finds them. A network that takes batches runs them in one call (and a shared
        one with other tables' windows: companion.vision.batching); any other runs them one by one."""
        if not getattr(self.detector_model, "batchable", False) or len(starts) < 2:
            return [self._detect_window(frame[y:y + size, x:x + size], x, y, frame.shape[:2]) for x, y in starts]
        windows = [frame[y:y + size, x:x + size] for x, y in starts]
        letterboxes = [Letterbox.fit(window.shape[:2], self.input_shape) for window in windows]
        outputs = self.detector_model.run(np.concatenate([to_model_input(box.apply(window)) for box, window in zip(letterboxes, windows)]))
        return [self._window_boxes(outputs[k:k + 1], letterboxes[k], windows[k].shape[:2], x, y, frame.shape[:2])
                for k, (x, y) in enumerate(starts)]

    def _detect_window(self, window: np.ndarray, left: int, top: int,
                       frame_shape: tuple[int, int] | None = None) -> RawBoxes:
        """Boxes found in one window, in frame pixels, before the final thresholds.

        ``frame_shape`` marks a window of a larger frame: boxes touching one of its inner edges
        are dropped.
        """
        letterbox = Letterbox.fit(window.shape[:2], self.input_shape)
        output = self.detector_model.run(to_model_input(letterbox.apply(window)))
        return self._window_boxes(output, letterbox, window.shape[:2], left, top, frame_shape)

    def _window_boxes(self, output: np.ndarray, letterbox: Letterbox, window_shape: tuple[int, int], left: int, top: int,
                      frame_shape: tuple[int, int] | None) -> RawBoxes:
        """One window's network output as boxes in frame pixels (see ``_detect_window``)."""
        raw = decode_yolo(output, min(self.thresholds()), self.iou, self.max_det)
        boxes = letterbox.boxes_to_source(raw.boxes)
        if frame_shape is not None:
            height, width = window_shape
            cut = np.zeros(len(boxes), bool)
            if left > 0:
                cut |= boxes[:, 0] <= 1
            if top > 0:
                cut |= boxes[:, 1] <= 1
            if left + width < frame_shape[1]:
                cut |= boxes[:, 2] >= width - 1
            if top + height < frame_shape[0]:
                cut |= boxes[:, 3] >= height - 1
            boxes, raw = boxes[~cut], RawBoxes(raw.boxes[~cut], raw.scores[~cut], raw.classes[~cut])
        boxes = boxes + np.array([left, top, left, top], np.float32)
        return RawBoxes(boxes, raw.scores, raw.classes)

    def _crops(self, frame: np.ndarray, boxes: np.ndarray) -> tuple[list[tuple[int, ...]], np.ndarray]:
        expand = self.manifest.crop_expand
        turns = [plausible_turns(box) for box in boxes]
        crops = [turned for box, wanted in zip(boxes, turns)
                 for turned in rotations_of(classifier_crop(frame, box, self.crop_size, expand), wanted)]
        return turns, crops_to_batch(crops)

    def embed_boxes(self, frame: np.ndarray, boxes: np.ndarray) -> list[tuple[tuple[int, ...], np.ndarray, np.ndarray]]:
        """Each index box at its plausible turns: (turns, T x classes probabilities, T x D embeddings)."""
        if len(boxes) == 0:
            return []
        turns, batch = self._crops(frame, boxes)
        probabilities, embeddings = self.classifier_model.run_with_embedding(batch)
        out, row = [], 0
        for wanted in turns:
            out.append((wanted, probabilities[row:row + len(wanted)], embeddings[row:row + len(wanted)]))
            row += len(wanted)
        return out

    def ink_colours(self, frame: np.ndarray, boxes: np.ndarray) -> list[np.ndarray]:
        """Each index box's ink colours (:func:`companion.vision.ink.ink_colours`), from the classifier's crop."""
        expand = self.manifest.crop_expand
        return [ink_colours(classifier_crop(frame, box, self.crop_size, expand)) for box in boxes]

    def classify_boxes(self, frame: np.ndarray, boxes: np.ndarray) -> list[tuple[str | None, float, int]]:
        """Stage 2 only: read each index box at its plausible quarter-turns; (code or None, confidence, rotation) each.

        With a learned deck the code is the deck's prototype nearest over those turns.
        """
        if len(boxes) == 0:
            return []
        if self.deck is not None:
            readings = []
            classes = self.manifest.classifier.classes
            colours = self.ink_colours(frame, boxes) if self.deck.colours is not None else [None] * len(boxes)
            for (wanted, probs, embeddings), ink in zip(self.embed_boxes(frame, boxes), colours):
                code, confidence, row = self.deck.read(embeddings, ink)
                probabilities = np.zeros((len(ROTATIONS), len(classes)), np.float32)
                for k, turn in enumerate(wanted):
                    probabilities[ROTATIONS.index(turn)] = probs[k]
                readings.append(self.deck.arbitrate(best_rotation(probabilities, classes), (code, confidence, wanted[row])))
            return readings
        turns, batch = self._crops(frame, boxes)
        flat = self.classifier_model.run_many(batch)
        classes = self.manifest.classifier.classes
        readings, row = [], 0
        for wanted in turns:
            probabilities = np.zeros((len(ROTATIONS), len(classes)), np.float32)  # turns not tried never win
            for turn in wanted:
                probabilities[ROTATIONS.index(turn)] = flat[row]
                row += 1
            readings.append(best_rotation(probabilities, classes))
        return readings

    def read(self, frame: np.ndarray) -> FrameReading:
        frame = check_frame(frame)
        raw = self.detect_boxes(frame)
        # A box squeezed to nothing by clipping at the frame's edge holds nothing readable.
        visible = (raw.boxes[:, 2] - raw.boxes[:, 0] >= 1) & (raw.boxes[:, 3] - raw.boxes[:, 1] >= 1)
        index_mask = (raw.classes == INDEX_CLASS) & visible
        index_boxes, index_scores = raw.boxes[index_mask], raw.scores[index_mask]
        readings = [
            IndexReading(tuple(float(v) for v in box), float(score), code, confidence, rotation)
            for box, score, (code, confidence, rotation) in zip(index_boxes, index_scores, self.classify_boxes(frame, index_boxes))
        ]
        backs = [(tuple(float(v) for v in box), float(score))
                 for box, score in zip(raw.boxes[(raw.classes == BACK_CLASS) & visible], raw.scores[(raw.classes == BACK_CLASS) & visible])]
        if self.deck is not None:
            backs = [(box, score) for box, score in backs if self.deck.is_back(frame, box)]
        return FrameReading(self.group(readings, backs, frame.shape[:2]), readings, backs)

    @property
    def learned_back(self) -> bool:
        """Whether backs are checked against a learned deck's back (see :func:`cards_from_readings`)."""
        return self.deck is not None and self.deck.back is not None

    def group(self, indices: list[IndexReading], backs: list, frame_shape: tuple[int, int]) -> Detections:
        """This detector's readings of one frame as cards: a table's layouts show real backs as strips (a
        face-down card under another), and it knows its scale, so the card-shape check on backs is for
        frames read without one (photos, detect, evaluate); a learned back's colours tell a strip of real
        back from a chip or a fanned face's edge, so with one the shape is not asked (held-out decks'
        scenes: backs recall 0.42 -> see EVALUATION.md)."""
        return cards_from_readings(indices, backs, frame_shape, index_px=self.index_scale, learned_back=self.learned_back,
                                   min_lone_confidence=0.0 if self.deck is not None else None)
