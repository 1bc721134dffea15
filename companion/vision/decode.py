"""Decoding a YOLO detect head's raw output ``[1, 4 + nc, N]`` into boxes, as ultralytics' NMS does."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Class offset for class-wise NMS, the same constant ultralytics uses (boxes of different
# classes are shifted apart so one NMS pass never lets them suppress each other).
_MAX_WH = 7680
_MAX_NMS = 30000


@dataclass(frozen=True)
class RawBoxes:
    """Boxes in model-input pixels: ``boxes`` x1 y1 x2 y2, ``scores``, integer ``classes``; best first."""

    boxes: np.ndarray
    scores: np.ndarray
    classes: np.ndarray

    def __len__(self) -> int:
        return len(self.scores)


def box_iou(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """IoU of one x1 y1 x2 y2 box against many."""
    x1 = np.maximum(box[0], boxes[:, 0])
    y1 = np.maximum(box[1], boxes[:, 1])
    x2 = np.minimum(box[2], boxes[:, 2])
    y2 = np.minimum(box[3], boxes[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return inter / np.maximum(area + areas - inter, 1e-9)


def nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Greedy NMS (torchvision semantics: drop a box whose IoU with a kept one is above the threshold).

    Returns kept indices, highest score first.
    """
    order = np.argsort(-scores, kind="stable")
    keep = []
    while order.size:
        best = order[0]
        keep.append(best)
        if order.size == 1:
            break
        rest = order[1:]
        order = rest[box_iou(boxes[best], boxes[rest]) <= iou_threshold]
    return np.asarray(keep, np.int64)


def decode_yolo(output: np.ndarray, conf: float = 0.25, iou: float = 0.7, max_det: int = 300) -> RawBoxes:
    """Raw detect output ``[1, 4 + nc, N]`` (cx cy w h, then per-class scores) → class-wise NMS boxes."""
    output = np.asarray(output)
    if output.ndim != 3 or output.shape[0] != 1 or output.shape[1] < 5:
        raise ValueError(f"expected a YOLO detect output of shape [1, 4 + classes, anchors], got {output.shape}")
    rows = output[0].T  # N × (4 + nc)
    class_scores = rows[:, 4:]
    classes = class_scores.argmax(1)
    scores = class_scores[np.arange(len(rows)), classes]
    keep = scores > conf
    rows, classes, scores = rows[keep], classes[keep], scores[keep]
    if len(scores) > _MAX_NMS:
        top = np.argsort(-scores, kind="stable")[:_MAX_NMS]
        rows, classes, scores = rows[top], classes[top], scores[top]
    cx, cy, w, h = rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).astype(np.float32)
    kept = nms(boxes + (classes * _MAX_WH)[:, None].astype(np.float32), scores, iou)[:max_det]
    return RawBoxes(boxes[kept], scores[kept].astype(np.float32), classes[kept].astype(np.int64))
