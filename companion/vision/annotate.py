"""Drawing what the detector saw onto a copy of the frame (for ``companion detect --save-annotated``)."""
from __future__ import annotations

import cv2
import numpy as np

from companion.vision.detections import Detections
from companion.vision.grouping import IndexReading

_RED_SUITS = ("H", "D")


def _colour(code: str) -> tuple[int, int, int]:
    if code == "BACK":
        return (200, 120, 0)
    if code == "BJ" or code.endswith(_RED_SUITS):
        return (40, 40, 230)
    return (40, 160, 40)


def draw_cards(frame: np.ndarray, cards: Detections, indices: list[IndexReading] = ()) -> np.ndarray:
    """A copy of ``frame`` with each card's box, code and confidence, and thin boxes round each index read."""
    canvas = frame.copy()
    thickness = max(1, round(max(frame.shape[:2]) / 640))
    for reading in indices:
        x1, y1, x2, y2 = (int(round(v)) for v in reading.box)
        cv2.rectangle(canvas, (x1, y1), (x2, y2), (160, 160, 160) if reading.code is None else (0, 200, 255), 1)
    for code, confidence, box, centre in zip(cards.codes, cards.confidences, cards.boxes, cards.centers):
        x1, y1, x2, y2 = (int(round(v)) for v in box)
        colour = _colour(code)
        cv2.rectangle(canvas, (x1, y1), (x2, y2), colour, thickness * 2)
        cv2.circle(canvas, (int(round(centre[0])), int(round(centre[1]))), thickness * 3, colour, -1)
        label = f"{code} {confidence:.2f}"
        scale = 0.5 * thickness
        (width, height), baseline = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
        top = max(0, y1 - height - baseline - 2)
        cv2.rectangle(canvas, (x1, top), (x1 + width + 4, top + height + baseline + 2), colour, -1)
        cv2.putText(canvas, label, (x1 + 2, top + height + 1), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255),
                    thickness, cv2.LINE_AA)
    return canvas
