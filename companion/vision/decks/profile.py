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
# Where a learned deck recognises no index (below its none-floor), the general classifier's reading
# stands where it is more than this sure (see arbitrate). Measured on the real decks (python -m
# vision_models.checks.real_deck_check; EVALUATION.md, "Real decks"), learned F1 on the other photos with
# 0.5 / 0.8 / 0.9 / 0.95: piercebriney taught by iPhone read by the Pi camera 0.840 / 0.840 / 0.825 /
# 0.835, the other way 0.966 / 0.977 / 1.000 / 1.000 (unlearned 0.500 and 0.976); kentdoan and
# camdowless alike at every value (0.958, 1.000).
ABSTAIN_CONFIDENCE = 0.9
# A profile is not trusted when its arbitrated answers read its own held-out indices this much worse than
# the general classifier: a clear loss, not one reading in the 30-100 a deck's photos hold (one in 30 is
# 0.033: the one-photo lattmann deck's 0.933 against 0.967, which read its scenes 0.958 trusted and
# 0.944 not).
UNTRUSTED_LOSS = 0.05
BACK_MAX_DISTANCE = 0.6
# The back's colours are taken from a box's inner 70 %: its edges carry the table and the card's border.
BACK_INNER_MARGIN = 0.15


def back_histogram(frame: np.ndarray, box) -> np.ndarray | None:
    """Normalised hue/saturation histogram of a box's inner 70 % (the edges carry table and border)."""
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = x2 - x1, y2 - y1
    margin = BACK_INNER_MARGIN
    xa, ya = int(max(0, x1 + margin * w)), int(max(0, y1 + margin * h))
    xb, yb = int(min(frame.shape[1], x2 - margin * w)), int(min(frame.shape[0], y2 - margin * h))
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

    def arbitrate(self, general: tuple[str | None, float, int], learned: tuple[str | None, float, int]
                  ) -> tuple[str | None, float, int]:
        """One index's reading by :func:`arbitrate`; the prototypes of a profile that is not trusted abstain.

        A profile whose check on its own photos (``info["self_check"]``) found the arbitrated answers
        clearly worse than the general ones (``UNTRUSTED_LOSS``) reads with the general classifier's
        answers where they are more than ``ABSTAIN_CONFIDENCE`` sure (its back is still its own), not
        with all of them at the deck's lower detection thresholds (the piercebriney deck taught by its Pi
        camera, read so, gave 0.966 on the iPhone's photos; with its prototypes abstaining 1.000).
        """
        return arbitrate(general, learned if self.trusted else (None, 0.0, learned[2]))

    @property
    def trusted(self) -> bool:
        """Whether the check on its own photos found the arbitrated answers about as good as the general ones
        (not ``UNTRUSTED_LOSS`` worse)."""
        check = self.info.get("self_check")
        return not check or check.get("arbitrated", 1.0) >= check.get("general", 0.0) - UNTRUSTED_LOSS

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



def arbitrate(general: tuple[str | None, float, int], learned: tuple[str | None, float, int]
              ) -> tuple[str | None, float, int]:
    """One index's reading from the general classifier's (code or None, confidence, turn) and the
    learned prototypes': the learned answer only where it is the surer one.

    The learned deck is the surer where it recognises the index (its best similarity above the deck's
    none-floor): it has seen this deck's indices, and the general classifier's confidence on a deck it
    never saw is no measure (on the kentdoan deck's play photos it read A♠ as A♣ and 2♠ as 2♣ at 1.00,
    where the learned deck read both right at 0.99). Where the deck does not recognise the index (a pip
    or art, or the deck seen by another camera than it was taught by: the Pi camera's photos of the
    piercebriney deck taught by an iPhone fall below its floor nearly all), the general classifier's
    answer stands where it is more than ``ABSTAIN_CONFIDENCE`` sure; else nothing is read there.
    """
    if learned[0] is not None:
        return learned
    return general if general[0] is not None and general[1] > ABSTAIN_CONFIDENCE else learned


def self_check(profile: DeckProfile, general: list[tuple[str | None, float, int]]) -> dict:
    """The profile checked on its own photos, each reading held out: how often the learned prototypes,
    the general classifier and their arbitration (:meth:`DeckProfile.arbitrate`) read it right.

    Row ``i`` of the profile is read against every prototype but its own (the same card's other
    corners, and the rest of the deck), with its own ink colours; ``general`` is the general
    classifier's reading of the same index at its plausible turns, as read time gives it. Only
    codes learned from two indices or more can be held out (a whole deck dealt in overlapping rows shows
    each card's top index alone: counted as misread, a one-photo lattmann deck "checked" 0.46 against the
    general classifier's 0.97 and lost its prototypes, 0.958 -> 0.944 on its scenes); with none, no check. Stored as ``info["self_check"]``; a profile
    whose arbitration reads worse than the general classifier alone is not trusted
    (:attr:`DeckProfile.trusted`).
    """
    n = len(profile.codes)
    if n == 0 or len(general) != n:
        return {"readings": 0}
    counts = {code: profile.codes.count(code) for code in set(profile.codes)}
    held_out = [i for i in range(n) if counts[profile.codes[i]] > 1]
    if not held_out:
        return {"readings": 0}
    sims = profile.prototypes @ profile.prototypes.T
    if profile.colours is not None:
        known = profile.colours.sum(1) > 0
        overlap = np.minimum(profile.colours[:, None, :], profile.colours[None, :, :]).sum(-1)
        sims = sims - np.where(known[:, None] & known[None, :], INK_COLOUR_WEIGHT * (1.0 - overlap), 0.0)
    np.fill_diagonal(sims, -2.0)
    columns = profile._columns
    right = {"learned": 0, "general": 0, "arbitrated": 0}
    for i in held_out:
        best = np.full(len(DECK_CODES), -1.0)
        for column in np.unique(columns):
            best[column] = sims[i, columns == column].max()
        column = int(best.argmax())
        if best[column] < profile.none_floor or best[column] <= -1.0:
            learned = (None, 0.0, 0)
        else:
            logits = (best - best[column]) / SIMILARITY_TEMPERATURE
            learned = (DECK_CODES[column], 1.0 / float(np.exp(logits[best > -1]).sum()), 0)
        truth = profile.codes[i]
        right["learned"] += learned[0] == truth
        right["general"] += general[i][0] == truth
        right["arbitrated"] += arbitrate(general[i], learned)[0] == truth
    return {"readings": len(held_out), **{k: round(v / len(held_out), 4) for k, v in right.items()}}
