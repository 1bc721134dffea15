"""Reading a recording's frames in tests (the browser tests stream them to a page or read them there)."""
from __future__ import annotations

from pathlib import Path

import cv2


def video_frames(path: Path) -> list:
    """Every frame of a video file, in order (BGR arrays)."""
    capture = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        frames.append(frame)
    capture.release()
    return frames
