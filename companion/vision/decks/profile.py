"""A learned deck's profile and how it reads: prototypes in the classifier's feature space, and its back.

Reading with a deck compares each corner index with the deck's own prototypes (cosine similarity)
instead of trusting the general classifier's verdict. Each prototype also keeps the colours of its
index's ink (:mod:`companion.vision.ink`): the two jokers of most decks differ only in colour, and a
four-colour deck's suits by colour first; a reading whose ink disagrees with a prototype's is that
much less similar to it.

The back is kept as a hue/saturation histogram: a face-down box whose colours are far from the
deck's back (a chip, a phone, the strip of a fanned card) is dropped.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.cards import CLASS_NAMES
from companion.vision.ink import INK_HUE_BINS
from companion.messages import MessageError

DECK_CODES: tuple[str, ...] = CLASS_NAMES[:54]        # 52 + BJ, SJ
STANDARD_CODES: tuple[str, ...] = CLASS_NAMES[:52]
JOKERS = ("BJ", "SJ")

# Softmax temperature over cosine similarities: similarities of one deck's indices to the right
# prototype sit around 0.9, to the nearest wrong one 0.6-0.8, so 0.05 turns that gap into a
# confidence near 1 and a near tie into about 0.5.
SIMILARITY_TEMPERATURE = 0.05
# A reading whose best similarity to any prototype is below the deck's floor holds no index of
# this deck (a pip, a corner of art): the floor is this share of the 5th percentile of the
# prototypes' own leave-one-out similarities.
NONE_FLOOR_SHARE = 0.8
# How much a complete disagreement of ink colours (histogram intersection 0) lowers a cosine
# similarity. Right prototypes sit near 0.9 and the nearest wrong ones at 0.6-0.8, so 0.25 lets
# colour decide between two codes the shapes cannot tell apart (the jokers, a 4-colour deck's J♠/J♣)
# without overruling a clear shape match.
INK_COLOUR_WEIGHT = 0.25
# Back model: hue x saturation histogram; a box further than this Bhattacharyya distance from the
# deck's back is not this deck's back.
BACK_BINS = (18, 8)
BACK_MAX_DISTANCE = 0.6


def back_histogram(frame: np.ndarray, box) -> np.ndarray | None:
    """Normalised hue/saturation histogram of a box's inner 70 % (the edges carry table and border)."""
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = x2 - x1, y2 - y1
    xa, ya = int(max(0, x1 + 0.15 * w)), int(max(0, y1 + 0.15 * h))
    xb, yb = int(min(frame.shape[1], x2 - 0.15 * w)), int(min(frame.shape[0], y2 - 0.15 * h))
    if xb - xa < 4 or yb - ya < 4:
        return None
    hsv = cv2.cvtColor(np.ascontiguousarray(frame[ya:yb, xa:xb]), cv2.COLOR_BGR2HSV)
    hist = cv2.calcHist([hsv], [0, 1], None, list(BACK_BINS), [0, 180, 0, 256]).astype(np.float32)
    total = float(hist.sum())
    return hist / total if total > 0 else None


def back_distance(a: np.ndarray, b: np.ndarray) -> float:
    return float(cv2.compareHist(a.astype(np.float32), b.astype(np.float32), cv2.HISTCMP_BHATTACHARYYA))


class DeckError(MessageError, ValueError):
    """A deck that cannot be learned, saved or read as asked (the message says why, translated where shown)."""


@dataclass
class DeckProfile:
    """What a learned deck knows: one prototype per learned index crop, and its back's colours."""

    name: str
    codes: tuple[str, ...]                 # the code of each prototype row
    prototypes: np.ndarray                 # N x D float32, unit length
    back: np.ndarray | None = None         # BACK_BINS histogram, or None when no back was seen
    info: dict = field(default_factory=dict)
    colours: np.ndarray | None = None      # N x (INK_HUE_BINS + 1) ink colours per prototype (None: a profile from before they were kept)

    def __post_init__(self) -> None:
        self.prototypes = np.asarray(self.prototypes, np.float32)
        if self.prototypes.ndim != 2 or len(self.prototypes) != len(self.codes):
            raise ValueError(f"deck {self.name!r}: {len(self.codes)} codes but prototypes of shape {self.prototypes.shape}")
        if self.colours is not None:
            self.colours = np.asarray(self.colours, np.float32)
            if self.colours.shape != (len(self.codes), INK_HUE_BINS + 1):
                raise ValueError(f"deck {self.name!r}: ink colours of shape {self.colours.shape} for {len(self.codes)} prototypes")
        unknown = sorted(set(self.codes) - set(DECK_CODES))
        if unknown:
            raise ValueError(f"deck {self.name!r}: unknown codes {unknown}")
        self._columns = np.array([DECK_CODES.index(c) for c in self.codes])
        self.none_floor = float(self.info.get("none_floor", 0.0))

    @property
    def learned_codes(self) -> list[str]:
        return [c for c in DECK_CODES if c in set(self.codes)]

    def similarities(self, embeddings: np.ndarray, colours: np.ndarray | None = None) -> np.ndarray:
        """M x 54: each embedding's best similarity to a prototype of each code (-1 where none).

        The cosine similarity, lowered by ``INK_COLOUR_WEIGHT`` times how far the reading's ink
        colours (:func:`ink_colours`, one row for the whole index) are from the prototype's, where both are known.
        """
        unit = embeddings / np.maximum(np.linalg.norm(embeddings, axis=1, keepdims=True), 1e-9)
        sims = unit.astype(np.float32) @ self.prototypes.T
        if colours is not None and self.colours is not None and float(np.sum(colours)) > 0:
            known = self.colours.sum(1) > 0
            overlap = np.minimum(np.asarray(colours, np.float32)[None, :], self.colours).sum(1)
            sims = sims - np.where(known, INK_COLOUR_WEIGHT * (1.0 - overlap), 0.0)[None, :].astype(np.float32)
        best = np.full((len(unit), len(DECK_CODES)), -1.0, np.float32)
        for column in np.unique(self._columns):
            best[:, column] = sims[:, self._columns == column].max(1)
        return best

    def read(self, embeddings: np.ndarray, colours: np.ndarray | None = None) -> tuple[str | None, float, int]:
        """From T embeddings of one index (one per tried turn) and its ink colours: (code or None, confidence, row of the best turn)."""
        sims = self.similarities(embeddings, colours)
        row, column = np.unravel_index(int(sims.argmax()), sims.shape)
        best = float(sims[row, column])
        if best < self.none_floor:
            return None, 0.0, int(row)
        logits = (sims[row] - best) / SIMILARITY_TEMPERATURE
        confidence = 1.0 / float(np.exp(logits[sims[row] > -1]).sum())
        return DECK_CODES[column], confidence, int(row)

    def is_back(self, frame: np.ndarray, box) -> bool:
        """Whether a face-down box has this deck's back colours (always True when the back is unknown)."""
        if self.back is None:
            return True
        hist = back_histogram(frame, box)
        return hist is not None and back_distance(hist, self.back) <= BACK_MAX_DISTANCE


def build_profile(name: str, codes: list[str], embeddings: list[np.ndarray], backs: list[np.ndarray],
                  info: dict, colours: list[np.ndarray] | None = None) -> DeckProfile:
    """Prototypes (unit embeddings) and the mean back histogram; the none-floor from leave-one-out similarities."""
    matrix = np.asarray(embeddings, np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
    sims = matrix @ matrix.T
    np.fill_diagonal(sims, -1)
    same = np.array(codes)[:, None] == np.array(codes)[None, :]
    own = np.where(same, sims, -1).max(1)
    own = own[own > -1]
    floor = NONE_FLOOR_SHARE * float(np.percentile(own, 5)) if len(own) else 0.5
    back = np.mean(backs, axis=0).astype(np.float32) if backs else None
    ink = np.asarray(colours, np.float32) if colours is not None and len(colours) == len(codes) else None
    return DeckProfile(name, tuple(codes), matrix, back, dict(info, none_floor=round(floor, 4)), ink)

