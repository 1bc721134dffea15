"""The two-stage recogniser: find corner indices and backs, read each index, group into cards.

    detector = Detector.load()            # vision_models/weights, ONNX Runtime, 2 threads
    cards = detector(frame_bgr)           # -> Detections, one entry per physical card
    reading = detector.read(frame_bgr)    # the same plus every index box, for debugging / drawing
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.vision.decode import RawBoxes, decode_yolo
from companion.vision.detections import Detections
from companion.vision.frames import check_frame
from companion.vision.grouping import ROTATIONS, IndexReading, group_cards
from companion.vision.letterbox import Letterbox, to_model_input
from companion.vision.models import DEFAULT_THREADS, Model, ModelsManifest, load_model

INDEX_CLASS, BACK_CLASS = 0, 1
NONE_CLASS = "NONE"
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
    (the same sampling as ``vision_models.synth.crop_box``, which cut every training crop).
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


def rotations_of(crop: np.ndarray) -> list[np.ndarray]:
    """The crop turned clockwise by 0, 90, 180 and 270° (in ``ROTATIONS`` order)."""
    return [crop if turn == 0 else cv2.rotate(crop, _ROTATE[turn]) for turn in ROTATIONS]


def crops_to_batch(crops: list[np.ndarray]) -> np.ndarray:
    """BGR uint8 crops → N×3×H×W float32 RGB in 0…1 (ultralytics' classify preprocessing at size×size)."""
    batch = np.ascontiguousarray(np.stack(crops)[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32)
    batch /= 255
    return batch


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


class Detector:
    """Exported detector + classifier → :class:`Detections`. Thread-unsafe: one per thread."""

    def __init__(self, manifest: ModelsManifest, detector: Model, classifier: Model,
                 conf: float | None = None, iou: float | None = None, back_conf: float | None = None,
                 max_det: int = 300):
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
    def load(cls, weights_dir: str | os.PathLike | None = None, backend: str = "onnxruntime",
             threads: int = DEFAULT_THREADS, conf: float | None = None, iou: float | None = None,
             back_conf: float | None = None) -> "Detector":
        """Load models.json and both networks; thresholds left None come from models.json (or the defaults)."""
        manifest = ModelsManifest.load(weights_dir)
        detector = load_model(manifest.detector.path, backend, threads)
        classifier = load_model(manifest.classifier.path, backend, threads, allow_batching=True)
        return cls(manifest, detector, classifier, conf=conf, iou=iou, back_conf=back_conf)

    @property
    def backend(self) -> str:
        return self.detector_model.backend

    def __call__(self, frame: np.ndarray) -> Detections:
        return self.read(frame).cards

    def detect_boxes(self, frame: np.ndarray) -> RawBoxes:
        """Stage 1 only: index and back boxes in frame pixels (classes 0 = index, 1 = back).

        Decoding uses the lower of the two thresholds (so NMS sees what ultralytics' would);
        backs below ``back_conf`` are dropped afterwards.
        """
        frame = check_frame(frame)
        letterbox = Letterbox.fit(frame.shape[:2], self.input_shape)
        output = self.detector_model.run(to_model_input(letterbox.apply(frame)))
        raw = decode_yolo(output, min(self.conf, self.back_conf), self.iou, self.max_det)
        keep = np.where(raw.classes == BACK_CLASS, raw.scores > self.back_conf, raw.scores > self.conf)
        return RawBoxes(letterbox.boxes_to_source(raw.boxes[keep]), raw.scores[keep], raw.classes[keep])

    def classify_boxes(self, frame: np.ndarray, boxes: np.ndarray) -> list[tuple[str | None, float, int]]:
        """Stage 2 only: read each index box at four rotations; (code or None, confidence, rotation) each."""
        if len(boxes) == 0:
            return []
        expand = self.manifest.crop_expand
        crops = [turned for box in boxes for turned in rotations_of(classifier_crop(frame, box, self.crop_size, expand))]
        probabilities = self.classifier_model.run_many(crops_to_batch(crops)).reshape(len(boxes), len(ROTATIONS), -1)
        classes = self.manifest.classifier.classes
        return [best_rotation(p, classes) for p in probabilities]

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
        return FrameReading(group_cards(readings, backs, frame.shape[:2]), readings, backs)
