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


@dataclass(frozen=True)
class IndexScale:
    """How large a card's corner index is in frame pixels, across a frame that sees the table at a slant.

    A plane seen through a homography H (image -> mat) is magnified by det H / w^3 in area at pixel
    (x, y), where w = h31 x + h32 y + h33; so an index ``centre_px`` tall at ``centre`` is
    ``centre_px * (w / w_centre) ** 1.5`` tall elsewhere. One figure for the whole frame measured a
    card at the far edge by the middle's size: on a tilted camera over the Kingdoms grid (seed 81) the
    top row's indices are 18 px where the middle's are 26.5, so two jokers in one column were read as
    one card's two indices and the card's own two as too close to be one card. ``perspective`` (0, 0, 1),
    the default, is one size everywhere (a camera looking straight down, or a scale without a mat)."""

    centre_px: float
    centre: tuple[float, float] = (0.0, 0.0)
    perspective: tuple[float, float, float] = (0.0, 0.0, 1.0)

    def __post_init__(self) -> None:
        if not (np.isfinite(self.centre_px) and self.centre_px > 0):
            raise ValueError(f"an index size must be a positive number of pixels, got {self.centre_px}")
        if not self._w(self.centre) > 0:
            raise ValueError("the perspective must not vanish at the centre")

    @classmethod
    def of(cls, scale: "IndexScale | float | None") -> "IndexScale | None":
        """A scale as given: one size everywhere for a plain number, None for none."""
        if scale is None or isinstance(scale, IndexScale):
            return scale
        return cls(float(scale))

    @classmethod
    def through(cls, matrix: np.ndarray, centre: tuple[float, float], centre_px: float) -> "IndexScale":
        """The scale of a mat whose image -> mat homography is ``matrix``, ``centre_px`` at ``centre``."""
        h = np.asarray(matrix, np.float64).reshape(3, 3)[2]
        return cls(float(centre_px), (float(centre[0]), float(centre[1])), (float(h[0]), float(h[1]), float(h[2])))

    def _w(self, point: tuple[float, float] | np.ndarray) -> float:
        a, b, c = self.perspective
        return abs(a * float(point[0]) + b * float(point[1]) + c)

    def at(self, point: tuple[float, float] | np.ndarray) -> float:
        """The index size at a pixel."""
        if self.perspective == (0.0, 0.0, 1.0):
            return self.centre_px
        return self.centre_px * (self._w(point) / self._w(self.centre)) ** 1.5


@runtime_checkable
class ScaleAwareDetector(Protocol):
    """A detector that can be told how large a card's corner index is in frame pixels.

    A table pipeline on a mat knows it from the mat's scale; :class:`companion.vision.Detector` uses
    it to choose its closer look (tiling) even when the whole-frame pass finds nothing.
    """

    index_px: float | None

    def __call__(self, frame: np.ndarray) -> Detections: ...

    def expecting_index_px(self, index_px: float | IndexScale) -> ScaleAwareDetector: ...
