"""One typed value for what the eyes saw in one frame (supervision style): one entry per physical card."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from companion.cards import Card


@dataclass(frozen=True)
class Detections:
    """Cards found in one image, in pixel coordinates of that image.

    ``boxes`` are ``x1, y1, x2, y2``; ``centers`` the best estimate of each card's centre (the
    box centre unless something better was known, e.g. the midpoint of its two corner indices).
    ``codes`` use the card model's codes; a face-down card is ``"BACK"``. ``other_centers`` is
    where a card's centre would be if the one index it was read from faces the other way (NaN
    when the centre does not hang on a facing): a tracker may find a known card there.
    """

    boxes: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))
    confidences: np.ndarray = field(default_factory=lambda: np.zeros((0,), np.float32))
    codes: tuple[str, ...] = ()
    centers: np.ndarray | None = None
    other_centers: np.ndarray | None = None

    def __post_init__(self) -> None:
        boxes = np.asarray(self.boxes, np.float32).reshape(-1, 4)
        confidences = np.asarray(self.confidences, np.float32).reshape(-1)
        codes = tuple(Card.parse(c).code for c in self.codes)
        if not len(boxes) == len(confidences) == len(codes):
            raise ValueError(f"detections disagree in length: {len(boxes)} boxes, {len(confidences)} confidences, {len(codes)} codes")
        centers = self.centers
        if centers is None:
            centers = np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], axis=1) if len(boxes) \
                else np.zeros((0, 2), np.float32)
        centers = np.asarray(centers, np.float32).reshape(-1, 2)
        if len(centers) != len(boxes):
            raise ValueError("one centre per detection is needed")
        other = np.full_like(centers, np.nan) if self.other_centers is None else np.asarray(self.other_centers, np.float32).reshape(-1, 2)
        if len(other) != len(boxes):
            raise ValueError("one other centre (or NaN) per detection is needed")
        object.__setattr__(self, "other_centers", other)
        object.__setattr__(self, "boxes", boxes)
        object.__setattr__(self, "confidences", confidences)
        object.__setattr__(self, "codes", codes)
        object.__setattr__(self, "centers", centers)

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, selector: Any) -> "Detections":
        """Select by boolean mask, index array or slice; returns a new Detections."""
        indices = np.arange(len(self))[selector]
        indices = np.atleast_1d(indices)
        return Detections(self.boxes[indices], self.confidences[indices], tuple(self.codes[i] for i in indices),
                          self.centers[indices], self.other_centers[indices])

    @classmethod
    def empty(cls) -> "Detections":
        return cls()

    @classmethod
    def merge(cls, parts: "list[Detections]") -> "Detections":
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls()
        return cls(np.concatenate([p.boxes for p in parts]), np.concatenate([p.confidences for p in parts]),
                   tuple(c for p in parts for c in p.codes), np.concatenate([p.centers for p in parts]),
                   np.concatenate([p.other_centers for p in parts]))

    def to_json(self) -> list[dict]:
        return [
            {"code": code, "confidence": round(float(conf), 4), "box": [round(float(v), 1) for v in box]}
            for code, conf, box in zip(self.codes, self.confidences, self.boxes)
        ]


@runtime_checkable
class ScaleAwareDetector(Protocol):
    """A detector that can be told how large a card's corner index is in frame pixels.

    A table pipeline on a mat knows it from the mat's scale; :class:`companion.vision.Detector` uses
    it to choose its closer look (tiling) even when the whole-frame pass finds nothing.
    """

    index_px: float | None

    def __call__(self, frame: np.ndarray) -> Detections: ...

    def expecting_index_px(self, index_px: float) -> ScaleAwareDetector: ...
