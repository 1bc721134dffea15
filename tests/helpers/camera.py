"""A stand-in camera detector for the camera-question tests (session and browser)."""
from __future__ import annotations

import numpy as np

from companion.vision.detections import Detections

KINGDOMS_SETUP = {"players": [{"name": "Ann", "suits": ["H", "D"]}, {"name": "Bo", "suits": ["S", "C"]}]}


def overlapping_detector(frame):
    """One card at a spot; from the 8th frame on the same spot also reads as another code (2 readings)."""
    overlapping_detector.calls += 1
    boxes, codes = [[100, 100, 160, 190]], ["SJ"]
    if overlapping_detector.calls > 8:
        boxes.append([101, 101, 161, 191])
        codes.append("3S")
    return Detections(np.array(boxes, np.float32), np.array([0.9] * len(codes), np.float32), tuple(codes))
