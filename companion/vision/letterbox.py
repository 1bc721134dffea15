"""Letterboxing exactly as ultralytics does it, so exported models see what they saw in validation.

Mirrors ``ultralytics.data.augment.LetterBox(auto=False, center=True, scaleup=True)`` (the mode
its predictor uses for a static-shape export) and ``ultralytics.utils.ops.scale_boxes`` on the way back.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

PAD_VALUE = 114


@dataclass(frozen=True)
class Letterbox:
    """How one frame was fitted into the model's input: resize by ``gain`` then pad ``left``/``top``."""

    source_shape: tuple[int, int]   # (height, width) of the original frame
    target_shape: tuple[int, int]   # (height, width) of the model input
    resized_shape: tuple[int, int]  # (height, width) after resizing, before padding
    top: int
    bottom: int
    left: int
    right: int

    @classmethod
    def fit(cls, source_shape: tuple[int, int], target_shape: tuple[int, int] | int) -> "Letterbox":
        if isinstance(target_shape, int):
            target_shape = (target_shape, target_shape)
        height, width = source_shape[:2]
        gain = min(target_shape[0] / height, target_shape[1] / width)
        new_width, new_height = max(round(width * gain), 1), max(round(height * gain), 1)
        pad_w, pad_h = (target_shape[1] - new_width) / 2, (target_shape[0] - new_height) / 2
        # The ±0.1 puts the odd pixel at the bottom/right, as ultralytics does.
        return cls((height, width), tuple(target_shape), (new_height, new_width),
                   round(pad_h - 0.1), round(pad_h + 0.1), round(pad_w - 0.1), round(pad_w + 0.1))

    @property
    def gain_x(self) -> float:
        return self.resized_shape[1] / self.source_shape[1]

    @property
    def gain_y(self) -> float:
        return self.resized_shape[0] / self.source_shape[0]

    def apply(self, frame: np.ndarray) -> np.ndarray:
        """Resize and pad ``frame`` (H×W×3) to ``target_shape``."""
        if frame.shape[:2] != self.source_shape:
            raise ValueError(f"letterbox made for {self.source_shape}, got a frame of {frame.shape[:2]}")
        if frame.shape[:2] != self.resized_shape:
            frame = cv2.resize(frame, (self.resized_shape[1], self.resized_shape[0]), interpolation=cv2.INTER_LINEAR)
        return cv2.copyMakeBorder(frame, self.top, self.bottom, self.left, self.right, cv2.BORDER_CONSTANT,
                                  value=(PAD_VALUE, PAD_VALUE, PAD_VALUE))

    def boxes_to_source(self, boxes: np.ndarray) -> np.ndarray:
        """Map ``x1 y1 x2 y2`` boxes from model-input pixels back to the original frame, clipped to it."""
        boxes = np.array(boxes, np.float32, copy=True).reshape(-1, 4)
        boxes[:, [0, 2]] = (boxes[:, [0, 2]] - self.left) / self.gain_x
        boxes[:, [1, 3]] = (boxes[:, [1, 3]] - self.top) / self.gain_y
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, self.source_shape[1])
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, self.source_shape[0])
        return boxes

    def boxes_to_input(self, boxes: np.ndarray) -> np.ndarray:
        """The inverse of :meth:`boxes_to_source` (without clipping): original frame → model-input pixels."""
        boxes = np.array(boxes, np.float32, copy=True).reshape(-1, 4)
        boxes[:, [0, 2]] = boxes[:, [0, 2]] * self.gain_x + self.left
        boxes[:, [1, 3]] = boxes[:, [1, 3]] * self.gain_y + self.top
        return boxes


def to_model_input(image_bgr: np.ndarray) -> np.ndarray:
    """H×W×3 BGR uint8 → 1×3×H×W float32 RGB in 0…1, the layout ultralytics exports expect."""
    rgb = image_bgr[:, :, ::-1]
    tensor = np.ascontiguousarray(rgb.transpose(2, 0, 1)[None], dtype=np.float32)
    tensor /= 255  # divide (not multiply by 1/255) to stay bit-identical with ultralytics
    return tensor
