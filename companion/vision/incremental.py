"""Reading a camera's frames in proportion to what changed, not to how many frames there are.

A table camera films mostly the same table, frame after frame: the cards lie still and a hand
moves over one part of it. :class:`IncrementalReader` wraps a :class:`~companion.vision.Detector`
and, for each frame, compares it with what it last read (a small blurred grey copy, per region):

* nothing changed: the last frame's cards come back as they were (no network runs at all);
* something changed: the whole-frame pass (which finds the face-down cards) runs, and the
  closer-look windows the change touches; the other windows' boxes are kept;
* an index box whose pixels did not change and that lies where an index was read the same, surely,
  three times in a row keeps that reading: new, changed and unsettled indices go to the
  classifier, in one batch;
* on a mat (the table pipeline tells the reader each frame's frame→mat homography,
  ``seen_through``) a frame is compared with the last one read in mat coordinates: a camera that
  moved over an unchanged table reads as unchanged, and what was kept is carried into the new
  frame's pixels (see CAMERA_MOVED_PIXELS);
* a low-rate recheck re-reads the whole frame in full every 8th frame, so nothing kept stays
  wrong for long (a flickering misread, a slow change of light under the change threshold).

On a region whose pixels did not change the networks would give exactly what they gave before
(same input, same output), so once the table is still, reading incrementally gives the cards
reading in full gives, and the table events agree; ``tests/test_vision_incremental.py`` checks it.

    reader = IncrementalReader(Detector.load(tile="auto"))
    cards = reader(frame)           # Detections, like the detector's own
    reader.last_work                # what the frame cost: passes run, indices classified
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.decode import RawBoxes, nms, pairwise_iou
from companion.vision.detections import Detections, IndexScale
from companion.vision.frames import check_frame
from companion.vision.grouping import IndexReading

# The comparison runs on a grey copy this many times smaller, blurred by the shrinking itself
# (INTER_AREA averages SHRINK² pixels). On the shipped demo recordings (mp4, sensor noise drawn in)
# two frames of a still table differ by at most 4 grey levels there; a hand or a card laid differs
# by 60-150, so 12 stays clear of both.
SHRINK = 4
CHANGED_LEVELS = 12
# An index's reading is kept when a box is found where one was read (this much overlap) and no
# pixel of its crop changed. Two passes of the same window over an unchanged index put its box
# within a pixel or two (IoU above 0.9), a neighbouring index never overlaps it that much.
SAME_BOX_IOU = 0.7
# Re-read the whole frame in full every this many frames (1-2 s at 4-8 frames a second): what is
# kept stands that long at most. The classifier and the detector flicker on a small index from
# video noise alone, and a full reading of every frame lets the tracker's vote see that flicker: a
# phantom read once and kept must vanish again as it does there (on a 4-frames/s Kingdoms clip a
# JD corner read as 3D stayed a card when one region was re-read every 8th frame, round-robin).
RECHECK_EVERY_FRAMES = 8
# While the table keeps changing, the whole-frame pass (its face-down cards, the windows' size) runs
# on every this-many changed frames, and on the first still frame after a change. Every third saved
# 15 % of the passes on the Dungeon demo, but on the Chosen demo two chips carried to the vault
# together then swapped faces: telling look-alike backs apart needs them seen as they move.
WHOLE_PASS_EVERY_CHANGED = 1
# Only a settled reading is kept: the classifier read the index the same this many times in a
# row, the last time surely (its own confidence; a clear index of the demo tables reads at
# 0.95-0.999). Anything else is read again on every frame that changes, as reading every frame
# would: on the Kingdoms demo the classifier read one 6H corner (10 x 20 px) as 4H at 0.994 and
# then as 6H at 0.994 from pixels a little video noise apart, and keeping the one 4H made the card
# a 4H for 4 s (a full reading of every frame flickers between the two and the tracker's vote
# keeps the 6H).
SETTLED_AFTER_READINGS = 3
KEEP_ABOVE_CONFIDENCE = 0.9
# On a mat the reader is told each frame's frame→mat homography (``seen_through``). When the new one
# carries the last read frame's corners this many pixels or more, the camera moved: the last read
# frame's grey copy is warped into the new frame (H_new⁻¹·H_old) before the comparison, and the kept
# boxes are carried along (corners mapped, bounding box taken). Below it the two homographies are
# taken for one camera pose re-fitted, and nothing is warped, as without a mat: the mat re-found on
# every 4th of the first 200 frames of each shipped demo (a still camera, hands over some markers)
# moves the frame's corners by at most 1.7 px (Chosen; Kingdoms 0.4, Dungeon 0.0), so about twice
# that (``test_the_mat_re_found_by_a_still_camera_is_no_camera_move`` re-measures it).
CAMERA_MOVED_PIXELS = 3.0


def settled_reading(reading: IndexReading, history: tuple) -> bool:
    """Whether an index may keep its reading while its pixels stay as they were."""
    return (reading.code is not None and reading.class_confidence >= KEEP_ABOVE_CONFIDENCE
            and len(history) >= SETTLED_AFTER_READINGS and all(code == reading.code for code in history))


@dataclass
class Work:
    """What reading one frame took: passes of the detector network, indices sent to the classifier."""

    changed: bool = False
    passes: int = 0
    classified: int = 0
    kept: int = 0


class IncrementalReader:
    """A detector that re-reads only what changed since the frames it read before. One per camera."""

    def __init__(self, detector, changed_levels: int = CHANGED_LEVELS, recheck_every: int = RECHECK_EVERY_FRAMES) -> None:
        self.detector = detector
        self.changed_levels = changed_levels
        self.recheck_every = recheck_every
        self.frames = 0
        self.last_work = Work()
        self._next_to_mat: np.ndarray | None = None   # what ``seen_through`` said of the next frame
        self._reset()

    def _reset(self) -> None:
        self._shape: tuple[int, int] | None = None
        self._reference: np.ndarray | None = None    # small grey copy of what each region was read from
        self._reference_grey: np.ndarray | None = None   # the same at full size, kept on a mat (to warp it)
        self._to_mat: np.ndarray | None = None       # the frame→mat homography the reference was read under
        # Whether part of the reference was re-read since the pose ``_to_mat`` was told. The mat is
        # re-found only every few seconds, so a camera can move while the old pose is still told: the
        # moved view is then read as a change, and the pose re-found next is that view's, not a move
        # away from the reference (warping the already current copy by it would misplace what was kept).
        self._read_since_pose = False
        self._whole: RawBoxes | None = None          # the whole-frame pass's boxes
        self._windows: dict[tuple[int, int], RawBoxes] = {}
        self._window_size: int | None = None
        self._readings: list[IndexReading] = []
        self._histories: list[tuple] = []   # per reading: the codes its place was read as, latest last
        self._backs: list = []
        self._cards: Detections | None = None
        self._refresh = False
        self._changed_frames = 0
        self._whole_behind = False   # the table changed since the whole-frame pass last ran

    # what the table pipeline asks of a detector ------------------------------------------------
    @property
    def index_px(self) -> float | None:
        return getattr(self.detector, "index_px", None)

    @property
    def backend(self) -> str:
        return getattr(self.detector, "backend", "?")

    def expecting_index_px(self, index_px: float | IndexScale) -> "IncrementalReader":
        """Told the index size (the mat's scale): the windows change, so everything is read anew."""
        self.detector = self.detector.expecting_index_px(index_px)
        self._reset()
        return self

    def __call__(self, frame: np.ndarray) -> Detections:
        return self.read(frame)

    def refresh(self) -> None:
        """Read the next frame in full, whatever changed (the table pipeline asks when it starts to
        hold an input's last frame: that frame then reads exactly as a full reading would)."""
        self._refresh = True

    def seen_through(self, to_mat: np.ndarray | None) -> None:
        """The next frame's frame→mat homography (the table pipeline's mat locator): the next frame is
        compared with the last one read in mat coordinates, so a camera that moved over an unchanged
        table reads as unchanged. ``None`` (no mat) compares frames pixel for pixel."""
        self._next_to_mat = None if to_mat is None else np.asarray(to_mat, np.float64).reshape(3, 3)

    # the reading -----------------------------------------------------------------------------
    def _small(self, frame: np.ndarray) -> np.ndarray:
        return self._shrunk(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))

    @staticmethod
    def _shrunk(grey: np.ndarray) -> np.ndarray:
        height, width = grey.shape
        return cv2.resize(grey, (max(1, width // SHRINK), max(1, height // SHRINK)), interpolation=cv2.INTER_AREA)

    def _changed_in(self, changed: np.ndarray, x1: float, y1: float, x2: float, y2: float) -> bool:
        """Whether any changed cell lies in this frame-pixel rectangle."""
        height, width = changed.shape
        c1, r1 = max(0, int(x1) // SHRINK), max(0, int(y1) // SHRINK)
        c2, r2 = min(width, int(np.ceil(x2 / SHRINK)) + 1), min(height, int(np.ceil(y2 / SHRINK)) + 1)
        return c2 > c1 and r2 > r1 and bool(changed[r1:r2, c1:c2].any())

    def _camera_move(self, shape: tuple[int, int]) -> np.ndarray | None:
        """The last read frame → this frame pixel map when the camera moved (see CAMERA_MOVED_PIXELS)."""
        to_mat, self._next_to_mat = self._next_to_mat, None
        if to_mat is None or self._to_mat is None or self._reference_grey is None:
            self._to_mat, self._read_since_pose = to_mat, False
            return None
        move = np.linalg.inv(to_mat) @ self._to_mat
        height, width = shape
        corners = np.array([[[0, 0]], [[width, 0]], [[width, height]], [[0, height]]], np.float64)
        if float(np.abs(cv2.perspectiveTransform(corners, move) - corners).max()) < CAMERA_MOVED_PIXELS:
            return None
        read_since, self._to_mat, self._read_since_pose = self._read_since_pose, to_mat, False
        # part of what is kept was read after the old pose was told (perhaps from the moved view
        # already): only a reference read wholly under the old pose is carried by the move
        return None if read_since else move

    def _follow_the_camera(self, move: np.ndarray) -> None:
        """Everything kept, carried into the new frame's pixels: the reference grey copy (warped; a
        strip newly in view is compared with the old edge continued, so more of the same cloth is no
        change and a card coming into view is), and every kept box (corners mapped, bounding box)."""
        height, width = self._reference_grey.shape
        self._reference_grey = cv2.warpPerspective(self._reference_grey, move, (width, height), flags=cv2.INTER_LINEAR,
                                                   borderMode=cv2.BORDER_REPLICATE)
        self._reference = self._shrunk(self._reference_grey)

        def carried(boxes: np.ndarray) -> np.ndarray:
            boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
            if not len(boxes):
                return boxes
            x1, y1, x2, y2 = boxes.T
            corners = np.stack([np.stack([x1, y1], 1), np.stack([x2, y1], 1), np.stack([x2, y2], 1), np.stack([x1, y2], 1)], 1)
            mapped = cv2.perspectiveTransform(corners.reshape(-1, 1, 2).astype(np.float64), move).reshape(-1, 4, 2)
            return np.concatenate([mapped.min(1), mapped.max(1)], 1).astype(np.float32)

        if self._whole is not None:
            self._whole = RawBoxes(carried(self._whole.boxes), self._whole.scores, self._whole.classes)
        self._windows = {key: RawBoxes(carried(raw.boxes), raw.scores, raw.classes) for key, raw in self._windows.items()}
        self._readings = [IndexReading(tuple(float(v) for v in box), r.detection_confidence, r.code, r.class_confidence, r.rotation)
                          for r, box in zip(self._readings, carried([r.box for r in self._readings]))]
        self._backs = [(tuple(float(v) for v in box), score) for (_, score), box in zip(self._backs, carried([b for b, _ in self._backs]))]
        if self._cards is not None:
            self._cards = self.detector.group(self._readings, self._backs, self._shape)

    def read(self, frame: np.ndarray) -> Detections:
        frame = check_frame(frame)
        self.frames += 1
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        small = self._shrunk(grey)
        work = Work()
        self.last_work = work
        shape = frame.shape[:2]
        if self._shape != shape:
            self._reset()
            self._shape = shape
        move = self._camera_move(shape)
        if move is not None:
            self._follow_the_camera(move)
        first = self._reference is None
        # the whole frame is re-read every recheck_every frames (and when asked), as if all of it changed
        if first or self.frames % self.recheck_every == 0 or self._refresh:
            self._refresh = False
            changed = np.ones(small.shape, bool)
        else:
            changed = cv2.absdiff(small, self._reference) > self.changed_levels
        work.changed = bool(changed.any())
        if not work.changed and self._cards is not None and not self._whole_behind:
            return self._cards   # a still table: what was read stands
        detector = self.detector
        height, width = shape

        # stage 1: the whole-frame pass (see WHOLE_PASS_EVERY_CHANGED), the windows the change touches
        if work.changed:
            self._changed_frames += 1
        if (first or self._whole is None or (self._whole_behind and not work.changed)
                or (work.changed and (self._changed_frames - 1) % WHOLE_PASS_EVERY_CHANGED == 0)):
            self._whole = detector._detect_window(frame, 0, 0)
            self._whole_behind = False
            work.passes += 1
        elif work.changed:
            self._whole_behind = True
        size = detector.window_size(shape, self._whole)
        if size != self._window_size:
            self._windows, self._window_size = {}, size
        reread: list[tuple[int, int]] = []
        if size is not None:
            from companion.vision.detector import tile_starts

            for y in tile_starts(height, size):
                for x in tile_starts(width, size):
                    key = (x, y)
                    if key not in self._windows or self._changed_in(changed, x, y, x + size, y + size):
                        reread.append(key)
                        work.passes += 1
            for key, boxes in zip(reread, detector.detect_windows(frame, reread, size)):   # one call when it batches
                self._windows[key] = boxes
        raw = self._merge(shape)

        # the reference follows what was read: every re-read region, the whole frame when all was
        on_mat = self._to_mat is not None
        if work.changed and not first:
            self._read_since_pose = True
        if size is None or first or changed.all():
            self._reference = small
            self._reference_grey = grey if on_mat else None
        else:
            if on_mat and self._reference_grey is None:
                self._reference_grey = grey.copy()
            for x, y in reread:
                r1, r2 = y // SHRINK, (y + size) // SHRINK + 1
                c1, c2 = x // SHRINK, (x + size) // SHRINK + 1
                self._reference[r1:r2, c1:c2] = small[r1:r2, c1:c2]
                if on_mat:
                    self._reference_grey[y:y + size, x:x + size] = grey[y:y + size, x:x + size]

        # stage 2: classify only the indices that are new or whose pixels changed
        visible = (raw.boxes[:, 2] - raw.boxes[:, 0] >= 1) & (raw.boxes[:, 3] - raw.boxes[:, 1] >= 1)
        index_mask = (raw.classes == 0) & visible
        boxes, scores = raw.boxes[index_mask], raw.scores[index_mask]
        previous = np.array([r.box for r in self._readings], np.float32).reshape(-1, 4)
        kept: dict[int, IndexReading] = {}
        earlier: dict[int, tuple] = {}   # index n → the codes read at its place before
        expand = detector.manifest.crop_expand
        overlapping = pairwise_iou(boxes, previous)   # each box (rows) against the last frame's readings
        for n, box in enumerate(boxes):
            if not len(previous):
                break
            overlaps = overlapping[n]
            best = int(overlaps.argmax())
            if overlaps[best] < SAME_BOX_IOU:
                continue   # a new index
            earlier[n] = self._histories[best]
            w, h = box[2] - box[0], box[3] - box[1]
            if self._changed_in(changed, box[0] - expand * w, box[1] - expand * h, box[2] + expand * w, box[3] + expand * h):
                continue
            old = self._readings[best]
            if settled_reading(old, earlier[n]):
                kept[n] = IndexReading(tuple(float(v) for v in box), float(scores[n]), old.code, old.class_confidence, old.rotation)
        to_read = [n for n in range(len(boxes)) if n not in kept]
        read = detector.classify_boxes(frame, boxes[to_read]) if to_read else []
        fresh = {n: IndexReading(tuple(float(v) for v in boxes[n]), float(scores[n]), code, confidence, rotation)
                 for n, (code, confidence, rotation) in zip(to_read, read)}
        work.classified, work.kept = len(to_read), len(kept)
        self._readings = [kept[n] if n in kept else fresh[n] for n in range(len(boxes))]
        self._histories = [earlier.get(n, ()) if n in kept else (earlier.get(n, ()) + (fresh[n].code,))[-SETTLED_AFTER_READINGS:]
                           for n in range(len(boxes))]
        back_mask = (raw.classes == 1) & visible
        self._backs = [(tuple(float(v) for v in box), float(score)) for box, score in zip(raw.boxes[back_mask], raw.scores[back_mask])]
        if getattr(detector, "deck", None) is not None:   # as Detector.read: a learned deck's back judges the backs
            self._backs = [(box, score) for box, score in self._backs if detector.deck.is_back(frame, box)]
        self._cards = detector.group(self._readings, self._backs, shape)
        return self._cards

    @property
    def last_reading(self):
        """The last frame's cards with the index readings and backs they were grouped from
        (:class:`~companion.vision.detector.FrameReading`, as ``Detector.read`` gives): what a table
        computer sends a server (``companion.table.readings``)."""
        from companion.vision.detector import FrameReading

        return FrameReading(self._cards if self._cards is not None else Detections.empty(), list(self._readings), list(self._backs))

    def _merge(self, shape: tuple[int, int]) -> RawBoxes:
        """The detector's own merge: the windows' boxes with the whole frame's backs, class-wise NMS,
        then its thresholds (``Detector.detect_boxes``)."""
        detector = self.detector
        whole = self._whole
        if self._window_size is None:
            raw = whole
        else:
            backs = whole.classes == 1
            passes = [RawBoxes(whole.boxes[backs], whole.scores[backs], whole.classes[backs])]
            passes += [self._windows[key] for key in sorted(self._windows, key=lambda k: (k[1], k[0]))]
            boxes, scores, classes = (np.concatenate([getattr(p, name) for p in passes]) for name in ("boxes", "scores", "classes"))
            apart = classes[:, None].astype(np.float32) * (max(shape) + 1)
            kept = nms(boxes + apart, scores, detector.iou)
            raw = RawBoxes(boxes[kept], scores[kept], classes[kept])
        conf, back_conf = detector.thresholds()
        keep = np.where(raw.classes == 1, raw.scores > back_conf, raw.scores > conf)
        return RawBoxes(raw.boxes[keep], raw.scores[keep], raw.classes[keep])


def reads_incrementally(detector):
    """``detector`` wrapped in an :class:`IncrementalReader` when it is the neural detector; any other
    callable (a test's stand-in, the renderer's card list) is returned as it is."""
    from companion.vision.detector import Detector

    return IncrementalReader(detector) if isinstance(detector, Detector) else detector
