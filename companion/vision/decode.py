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
    return pairwise_iou(np.asarray(box)[None], boxes)[0]


def pairwise_iou(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """IoU of each x1 y1 x2 y2 box of ``first`` (rows) against each of ``second`` (columns)."""
    x1 = np.maximum(first[:, None, 0], second[None, :, 0])
    y1 = np.maximum(first[:, None, 1], second[None, :, 1])
    x2 = np.minimum(first[:, None, 2], second[None, :, 2])
    y2 = np.minimum(first[:, None, 3], second[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    areas_first = (first[:, 2] - first[:, 0]) * (first[:, 3] - first[:, 1])
    areas_second = (second[:, 2] - second[:, 0]) * (second[:, 3] - second[:, 1])
    return inter / np.maximum(areas_first[:, None] + areas_second[None, :] - inter, 1e-9)


# NMS weighs this many boxes against the rest at once: a live window's boxes in one pass (the 30-card
# mat's windows hold 76 boxes above the threshold at the median, 164 at most, and keep 24), a crowded
# photo's up to ``_MAX_NMS`` in bounded memory. Box by box (one IoU row per kept box) the mat's NMS was
# 2.3 ms of a 52 ms frame, 0.7 ms this way (under cProfile, benchmarks/profile_live.py's stretch, 2026-12-07).
NMS_BLOCK = 512


def nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Greedy NMS (torchvision semantics: drop a box whose IoU with a kept one is above the threshold).

    Returns kept indices, highest score first.
    """
    order = np.argsort(-scores, kind="stable")
    ranked = boxes[order]
    suppressed = np.zeros(len(order), bool)
    keep = []
    for start in range(0, len(order), NMS_BLOCK):
        stop = min(start + NMS_BLOCK, len(order))
        # as a kept box's own row: every box from here on it would drop (above the threshold, or no IoU at all)
        drops = ~(pairwise_iou(ranked[start:stop], ranked[start:]) <= iou_threshold)
        for row in range(stop - start):
            if not suppressed[start + row]:
                keep.append(order[start + row])
                suppressed[start:] |= drops[row]
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
