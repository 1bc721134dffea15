"""Frames in: the one place that decides what counts as an image the eyes can read.

Every entry point (the detector, the CLI, the evaluation) goes through here, so a bad
input fails the same clear way everywhere and nothing downstream has to re-check.
"""
from __future__ import annotations

import io
import os
from pathlib import Path

import cv2
import numpy as np

from companion.messages import Message, MessageError

# Below this the letterboxed frame holds no readable corner index; above it cv2 refuses anyway.
MIN_SIDE = 8
# The largest photo a phone takes (a 200 MP mode, 16320×12240) fits; a header that claims more is
# damaged or a decompression bomb (a 1.5 kB JPEG claiming 30000×30000 decodes to 2.7 GB), refused
# from the header before anything is decoded.
MAX_IMAGE_PIXELS = 200_000_000


class ImageError(MessageError, ValueError):
    """A file or upload that is no image the eyes can read; its message names it and says why (translated where shown)."""


def check_frame(frame: object) -> np.ndarray:
    """Return ``frame`` if it is a usable BGR image (H×W×3 uint8), else raise a clear :class:`ImageError`.

    Its messages are translated: a phone's photo too small to read reaches a player through here."""
    if not isinstance(frame, np.ndarray):
        raise ImageError(Message("a frame must be a numpy array (H×W×3 uint8, BGR), got %(type)s", type=type(frame).__name__))
    if frame.dtype != np.uint8:
        raise ImageError(Message("a frame must have dtype uint8, got %(dtype)s; scale floats with (frame * 255).astype(np.uint8)",
                                 dtype=str(frame.dtype)))
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise ImageError(Message("a frame must be H×W×3 (BGR), got shape %(shape)s; convert grey or BGRA images with cv2.cvtColor first",
                                 shape=str(frame.shape)))
    if frame.shape[0] < MIN_SIDE or frame.shape[1] < MIN_SIDE:
        raise ImageError(Message("the image is %(width)s×%(height)s pixels: too small to read cards from (it takes at least %(min)s×%(min)s)",
                                 width=frame.shape[1], height=frame.shape[0], min=MIN_SIDE))
    return frame


def decode_image(data: bytes, name: str = "image") -> np.ndarray:
    """Decode encoded image bytes (JPEG, PNG, …) to a BGR frame."""
    if not data:
        raise ImageError(Message("%(name)s: empty file, not an image", name=name))
    _check_header(data, name)
    try:
        frame = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except cv2.error:       # OpenCV's own size limit, or a header it refuses
        frame = None
    if frame is None:
        raise ImageError(Message("%(name)s: not a readable image (corrupt, truncated, or not a photo format)", name=name))
    try:
        return check_frame(frame)
    except ImageError as error:     # a tiny picture: say which of the photos it is
        raise ImageError(Message("%(name)s: %(error)s", name=name, error=error.message)) from None


def _check_header(data: bytes, name: str) -> None:
    """Refuse an image whose header claims more than MAX_IMAGE_PIXELS, before anything is decoded.

    Pillow reads the size from the header alone; bytes Pillow cannot identify are left to OpenCV.
    """
    import warnings

    import PIL.Image

    too_large = ImageError(Message("%(name)s: its header claims more pixels than any camera takes (at most %(mp)s megapixels): "
                                   "a damaged file", name=name, mp=MAX_IMAGE_PIXELS // 1_000_000))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # Pillow's decompression-bomb warning: the size is judged here
            with PIL.Image.open(io.BytesIO(data)) as image:
                width, height = image.size
    except PIL.Image.DecompressionBombError:
        raise too_large from None
    except Exception:       # not a format Pillow knows (OpenCV may), or a header it cannot read
        return
    if width * height > MAX_IMAGE_PIXELS:
        raise too_large


def load_image(path: str | os.PathLike) -> np.ndarray:
    """Read an image file to a BGR frame; a missing, empty or corrupt file is a :class:`ValueError`."""
    path = Path(path)
    if not path.is_file():
        raise ImageError(Message("%(path)s: no such image file", path=str(path)))
    return decode_image(path.read_bytes(), str(path))
