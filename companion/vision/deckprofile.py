"""A player's own deck, learned from photos: prototypes in the classifier's feature space, and its back.

    store = DeckStore(data_dir)                       # <data>/decks/<name>/
    result = learn_from_photos(detector, [("deal.jpg", frame)], "home")
    if result.complete: store.save(result.profile)
    detector = detector.with_deck(store.load("home"))

A deck the models never saw is read at a card-level F1 near 0.87; its own cards are easy to tell
apart once a few of them are known. Learning needs no torch: each corner index the detector finds
is cut exactly as the classifier sees it, and the classifier's pooled features (the 1280 numbers
before its last layer, exposed by :mod:`companion.vision.models`) describe it. A photo of a whole
deck labels itself: each card appears once, so readings are assigned to codes under that constraint
(SciPy's ``linear_sum_assignment``), and what the assignment cannot place surely is listed for the
player to re-photograph or name; a card in twice (two cards of one size reading one code surely,
too far apart to be one card's corners, that the assignment cannot both place) is named, "two
copies of QS?", and blocks saving like a missing card. Reading with a deck compares each index
with the deck's own prototypes (cosine similarity) instead of trusting the general classifier's
verdict.

Each prototype also keeps the colours of its index's ink (:mod:`companion.vision.ink`): the two jokers of
most decks differ only in colour, and a four-colour deck's suits by colour first; a reading whose
ink disagrees with a prototype's is that much less similar to it.

The back is kept as a hue/saturation histogram: a face-down box whose colours are far from the
deck's back (a chip, a phone, the strip of a fanned card) is dropped.
"""
from __future__ import annotations

import collections
import copy
import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from companion.cards import CLASS_NAMES
from companion.messages import Message, MessageError
from companion.vision.deck_folder import art_index_fractions, card_images
from companion.vision.ink import INK_HUE_BINS
from companion.vision.grouping import (
    DISAGREEING_BEARING_DEG,
    MIN_SPAN,
    OPPOSITE_CORNER_SIZE_RATIO,
    ROTATIONS,
    IndexReading,
    choose_pairs,
    rotate_clockwise,
)

DATA_ENV = "COMPANION_DATA"
DEFAULT_DATA_DIR = "companion-data"     # the folder `companion serve` uses when given none
DECK_CODES: tuple[str, ...] = CLASS_NAMES[:54]        # 52 + BJ, SJ
STANDARD_CODES: tuple[str, ...] = CLASS_NAMES[:52]
JOKERS = ("BJ", "SJ")
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,39}$")

# Softmax temperature over cosine similarities: similarities of one deck's indices to the right
# prototype sit around 0.9, to the nearest wrong one 0.6-0.8, so 0.05 turns that gap into a
# confidence near 1 and a near tie into about 0.5.
SIMILARITY_TEMPERATURE = 0.05
# A reading whose best similarity to any prototype is below the deck's floor holds no index of
# this deck (a pip, a corner of art): the floor is this share of the 5th percentile of the
# prototypes' own leave-one-out similarities.
NONE_FLOOR_SHARE = 0.8
# A card whose code the assignment would change for less than this much total cost (in nats of
# the classifier's probabilities) is not placed surely: the player is asked.
SURE_MARGIN = 1.0
# Extra cost for a lone index reading to be a second corner of a code another reading already holds:
# one card's two corners that the grouping did not pair (a fan, a cascade, a corner misread).
SECOND_CORNER_COST = 1.0
# Cost of leaving a card unplaced (a stray box, a second copy): a card whose best code is less
# likely than about e^-6 under the classifier is better left out than forced into a code.
UNPLACED_COST = 6.0
# How much a complete disagreement of ink colours (histogram intersection 0) lowers a cosine
# similarity. Right prototypes sit near 0.9 and the nearest wrong ones at 0.6-0.8, so 0.25 lets
# colour decide between two codes the shapes cannot tell apart (the jokers, a 4-colour deck's J♠/J♣)
# without overruling a clear shape match.
INK_COLOUR_WEIGHT = 0.25
# Back model: hue x saturation histogram; a box further than this Bhattacharyya distance from the
# deck's back is not this deck's back.
BACK_BINS = (18, 8)
BACK_MAX_DISTANCE = 0.6
# The detector's index threshold while learning: the assignment leaves stray boxes unplaced, and a
# missed index is a card the player must name. In a whole-deck spread of the held-out 'plastic' deck
# the shipped 0.6 found none of its court cards' indices and 0.3 all of them (vision_models.deck_check).
LEARN_INDEX_CONF = 0.3
# A card scan is laid on a 416 px table at these heights in turn until the detector finds its indices
# (the drawn deck's 10s and jokers are found at 220 px, not at 300).
SCAN_CARD_HEIGHTS = (300, 220, 380, 160)
# A back scan is seen as a camera would see it (_back_scan_histograms): cards this tall in pixels (a
# table camera's 70-100 px wide cards, and a close one), under these light gains (the deck check's
# scenes vary light 0.75-1.2), with this much sensor noise (grey levels, standard deviation).
BACK_VIEW_CARD_HEIGHTS = (100, 140, 300)
BACK_VIEW_GAINS = (0.75, 1.0, 1.2)
BACK_VIEW_NOISE = 6.0
# More cards than this found in one photo (or the parts together) is more than one deck. Not 60:
# a normal deal of the drawn deck in overlapping rows is found as 62 cards (corners left unpaired,
# deck_scenes seed 0); two decks give over 100. A second copy of a card is named by _two_copies.
MORE_THAN_ONE_DECK = 81
# A face-down card in a learning photo is taken as the deck's back only when this sure.
LEARN_BACK_CONF = 0.6
# Two copies of one card in a photo of "each card once" (``_two_copies``). An index reads a code
# strongly when the classifier, at the turn it reads best, gives that code at least
# STRONG_READING_PROB and beats its second guess by CLEAR_READING_MARGIN nats. Strong readings of one
# code are one card when the grouping joined them as a card's two corners (``_corners_of_one_card``)
# or they lie closer than ONE_CARD_SPAN index sizes (a second box on one corner); otherwise two
# cards. The copy must be of one size with the first (COPY_SIZE_RATIO, as grouping's one-card
# corners: a box in a court card's art is smaller) and the assignment must have had no likely place
# for it: left out or pushed UNLIKELY_PLACE_COST nats below its strong code (no likelier than leaving
# it out: the drawn deck's 8C, read 8S at 0.97 at both corners, rightly fills the 8C hole 3.25 nats
# below), or given the code's second-corner place although it is a whole card (both corners read),
# or while a code of the deck went unplaced (the card the copy replaced), or while neither card is
# sure. Measured with ``python -m vision_models.deck_copies lattmann tigullio neoclassical_4_color
# plastic [--lossless]`` (EVALUATION.md, held-out decks, 12 spreads of each kind): normal photos
# flagged 0 (as JPEG) and 2 (as drawn), none saveable without the rule either; a card replaced by a
# copy named in 12 / 11 (a seeded card), 12 / 11 (its left neighbour's copy), 10 / 11 (the copy of
# the card above); a copy added to the deck 6 / 6. ONE_CARD_SPAN 4 named 8 and 0 of the neighbours'
# copies (one above the other they are 3.2 index sizes apart), the grouping's 6.5 none;
# UNLIKELY_PLACE_COST 3-6 the same.
STRONG_READING_PROB = 0.9
CLEAR_READING_MARGIN = 3.0
ONE_CARD_SPAN = MIN_SPAN
UNLIKELY_PLACE_COST = UNPLACED_COST
COPY_SIZE_RATIO = OPPOSITE_CORNER_SIZE_RATIO


def default_data_dir(data: str | os.PathLike | None = None) -> Path:
    """``--data`` when given, else ``$COMPANION_DATA``, else the folder ``companion serve`` uses."""
    if data:
        return Path(data)
    return Path(os.environ.get(DATA_ENV) or DEFAULT_DATA_DIR)


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


# ----------------------------------------------------------------------------- storage

class DeckStore:
    """Deck profiles under ``<data>/decks/<name>/`` (profile.json + prototypes.npz)."""

    def __init__(self, data_dir: str | os.PathLike | None = None):
        self.root = default_data_dir(data_dir) / "decks"

    @staticmethod
    def check_name(name: str) -> str:
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            raise DeckError(Message("deck name %(name)s: use 1-40 letters, digits, spaces, '.', '_' or '-', starting with a letter or digit",
                                    name=repr(name)))
        return name

    def path(self, name: str) -> Path:
        return self.root / self.check_name(name)

    def exists(self, name: str) -> bool:
        return (self.path(name) / "profile.json").is_file()

    def names(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if (p / "profile.json").is_file())

    def save(self, profile: DeckProfile, replace: bool = False) -> Path:
        """Write atomically (a temporary folder renamed into place): a failure leaves what was there."""
        target = self.path(profile.name)
        if self.exists(profile.name) and not replace:
            raise DeckError(Message("a deck named %(name)s already exists in %(root)s (remove it first, or pick another name)",
                                    name=repr(profile.name), root=self.root))
        self.root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{profile.name}.", dir=self.root))
        try:
            arrays = {"prototypes": profile.prototypes}
            if profile.back is not None:
                arrays["back"] = profile.back
            if profile.colours is not None:
                arrays["colours"] = profile.colours
            np.savez_compressed(staging / "prototypes.npz", **arrays)
            (staging / "profile.json").write_text(json.dumps(
                {"name": profile.name, "codes": list(profile.codes), "info": profile.info}, indent=1))
            if target.exists():
                old = target.with_name(f".{profile.name}.old")
                target.rename(old)
                staging.rename(target)
                shutil.rmtree(old)
            else:
                staging.rename(target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return target

    def load(self, name: str) -> DeckProfile:
        folder = self.path(name)
        if not (folder / "profile.json").is_file():
            raise self._no_such(name)
        try:
            meta = json.loads((folder / "profile.json").read_text())
            with np.load(folder / "prototypes.npz") as arrays:
                prototypes = arrays["prototypes"]
                back = arrays["back"] if "back" in arrays else None
                colours = arrays["colours"] if "colours" in arrays else None
            return DeckProfile(meta["name"], tuple(meta["codes"]), prototypes, back, meta.get("info", {}), colours)
        except (OSError, KeyError, ValueError, json.JSONDecodeError) as error:
            raise DeckError(Message('deck %(name)s in %(folder)s is damaged (%(error)s)', name=repr(name), folder=folder, error=error)) from None

    def remove(self, name: str) -> None:
        if not self.exists(name):
            raise self._no_such(name)
        shutil.rmtree(self.path(name))

    def _no_such(self, name: str) -> ValueError:
        known = self.names()
        return ValueError(f"no deck named {name!r} in {self.root}"
                          + (f" (known: {', '.join(known)})" if known else " (none learned yet: companion deck learn)"))


def load_deck(name: str | None, data_dir: str | os.PathLike | None = None) -> DeckProfile | None:
    """The named deck from the data folder, or None when no name is given."""
    return None if not name else DeckStore(data_dir).load(name)


# ----------------------------------------------------------------------------- learning

@dataclass
class LearnedCard:
    """One card found in the learning photos, and what the assignment made of it."""

    photo: int
    box: tuple[float, float, float, float]
    readings: list[int]                    # rows of the photo's index readings
    code: str | None = None                # placed code, None when left unplaced
    sure: bool = False
    margin: float = 0.0
    guesses: list[str] = field(default_factory=list)   # the classifier's own top codes

    def to_json(self) -> dict:
        return {"photo": int(self.photo), "box": [round(float(v), 1) for v in self.box], "code": self.code,
                "sure": bool(self.sure), "margin": round(float(self.margin), 2), "guesses": list(self.guesses)}


@dataclass
class LearnResult:
    name: str
    photos: list[str]
    cards: list[LearnedCard]
    problems: list[Message]                # why the deck cannot be saved as it stands (translated where shown)
    profile: DeckProfile | None
    seconds: float = 0.0

    @property
    def notes(self) -> list[Message]:
        """What the player should know though the deck can be saved: the jokers it has not learned.

        Jokers are optional in the photos, so a joker not found does not block saving; but a game
        that uses them (Kingdoms, The Chosen) cannot read one the deck never learned: a joker whose
        index is a star or a picture may be found by no box at all, and this says so.
        """
        learned = set(self.profile.codes) if self.profile is not None else set()
        missing = [code for code in JOKERS if code not in learned]
        if not missing or self.profile is None:
            return []
        return [Message("jokers not learned: %(cards)s (not in the photos, or their index was not found; if your "
                        "games use them, add a photo of them, or learn the deck from its card images)", cards=" ".join(missing))]

    @property
    def complete(self) -> bool:
        return self.profile is not None and not self.problems

    def unsure(self) -> list[tuple[int, LearnedCard]]:
        return [(k, c) for k, c in enumerate(self.cards) if not c.sure]

    def asked(self) -> list[tuple[int, LearnedCard]]:
        """The unsure cards that keep the deck from being saved: their code is placed surely nowhere
        (or they were not placed at all while some code is still missing)."""
        if not self.problems:
            return []
        surely = {c.code for c in self.cards if c.sure and c.code}
        return [(k, c) for k, c in self.unsure() if c.code not in surely]

    def to_json(self) -> dict:
        return {"name": self.name, "photos": self.photos, "complete": self.complete,
                "problems": [problem.to_json() for problem in self.problems], "notes": [note.to_json() for note in self.notes],
                "seconds": round(self.seconds, 2), "cards": [c.to_json() for c in self.cards]}


@dataclass
class _PhotoReading:
    readings: list[IndexReading]
    probabilities: list[np.ndarray]        # per reading: T x 55, one row per tried turn
    embeddings: list[np.ndarray]           # per reading: T x D
    turns: list[tuple[int, ...]]
    colours: list[np.ndarray]              # per reading: its ink colours
    backs: list[np.ndarray]                # histograms of sure face-down cards


def _read_photo(detector, frame: np.ndarray) -> _PhotoReading:
    from companion.vision.detector import BACK_CLASS, INDEX_CLASS, best_rotation

    raw = detector.detect_boxes(frame)
    index_boxes = raw.boxes[raw.classes == INDEX_CLASS]
    index_scores = raw.scores[raw.classes == INDEX_CLASS]
    embedded = detector.embed_boxes(frame, index_boxes)
    colours = detector.ink_colours(frame, index_boxes)
    classes = detector.manifest.classifier.classes
    readings, probabilities, embeddings, turns = [], [], [], []
    for box, score, (wanted, probs, embeds) in zip(index_boxes, index_scores, embedded):
        full = np.zeros((len(ROTATIONS), len(classes)), np.float32)
        for row, turn in enumerate(wanted):
            full[ROTATIONS.index(turn)] = probs[row]
        code, confidence, rotation = best_rotation(full, classes)
        if code is None:
            # NONE outvoted every face at every turn: still a reading, placed by the assignment on its faces
            faces = full.copy()
            faces[:, classes.index("NONE")] = -1
            turn_row, column = np.unravel_index(int(faces.argmax()), faces.shape)
            code, confidence, rotation = classes[column], float(faces[turn_row, column]), ROTATIONS[turn_row]
        readings.append(IndexReading(tuple(float(v) for v in box), float(score), code, confidence, rotation))
        probabilities.append(probs)
        embeddings.append(embeds)
        turns.append(wanted)
    backs = []
    back_mask = (raw.classes == BACK_CLASS) & (raw.scores >= LEARN_BACK_CONF)
    if back_mask.any():
        best = int(np.argmax(np.where(back_mask, raw.scores, -1)))
        hist = back_histogram(frame, raw.boxes[best])
        if hist is not None:
            backs.append(hist)
    return _PhotoReading(readings, probabilities, embeddings, turns, colours=colours, backs=backs)


def _facing_turn(reading_center: np.ndarray, toward: np.ndarray, turns: tuple[int, ...]) -> int:
    """Of the tried turns, the row whose 'toward the card centre' direction best points along ``toward``."""
    from companion.vision.grouping import CENTRE_BEARING_DEG

    upright = (np.cos(np.radians(CENTRE_BEARING_DEG)), np.sin(np.radians(CENTRE_BEARING_DEG)))
    best, best_row = -2.0, 0
    norm = float(np.linalg.norm(toward)) or 1.0
    for row, turn in enumerate(turns):
        direction = np.array(rotate_clockwise(upright, (360 - turn) % 360))
        cosine = float(direction @ toward) / norm
        if cosine > best:
            best, best_row = cosine, row
    return best_row


def _cards_of_photo(photo: int, reading: _PhotoReading, split: set[tuple[int, ...]] = frozenset()
                    ) -> tuple[list[LearnedCard], list[np.ndarray], list[list[int]]]:
    """Group a photo's readings into cards; per card a 54-code cost vector and the turn row each reading is read at.

    A pair's turns are fixed by its geometry (each index faces the other), which tells a 6 from a 9
    where the classifier alone cannot; a lone reading may be read at any turn it allows.
    """
    # Learning keeps the rotation-checked pairs only: its assignment already weighs each reading's
    # probabilities, and a wrongly joined pair would take a card away from a whole-deck photo.
    same, different = choose_pairs(reading.readings, one_card_geometry=False)
    paired = {k for pair in same + different for k in pair}
    groups = [list(p) for p in same + different if tuple(p) not in split]
    groups += [[k] for pair in same + different if tuple(pair) in split for k in pair]
    groups += [[k] for k in range(len(reading.readings)) if k not in paired]
    cards, costs, rows = [], [], []
    for group in groups:
        cost = np.zeros(len(DECK_CODES), np.float64)
        group_rows = []
        for k in group:
            probs = reading.probabilities[k][:, :len(DECK_CODES)]
            if len(group) == 2:
                other = reading.readings[group[1] if k == group[0] else group[0]]
                row = _facing_turn(reading.readings[k].center, other.center - reading.readings[k].center, reading.turns[k])
                per_code = probs[row]
                group_rows.append([row] * len(DECK_CODES))
            else:
                per_code = probs.max(0)
                group_rows.append(list(probs.argmax(0)))
            cost += -np.log(np.clip(per_code, 1e-6, 1.0))
        box = tuple(float(v) for v in (
            min(reading.readings[k].box[0] for k in group), min(reading.readings[k].box[1] for k in group),
            max(reading.readings[k].box[2] for k in group), max(reading.readings[k].box[3] for k in group)))
        order = np.argsort(cost)[:3]
        cards.append(LearnedCard(photo, box, group, guesses=[DECK_CODES[c] for c in order]))
        costs.append(cost / len(group))
        rows.append(group_rows)
    return cards, costs, rows


def _assign(costs: np.ndarray, fixed: dict[int, str], lone: np.ndarray | None = None
            ) -> tuple[list[int | None], np.ndarray]:
    """Codes for cards (row → code column or None), each code once; plus each placed card's margin.

    A ``lone`` row (one index reading, its card's other corner not paired with it) may also take a
    code's second place at ``SECOND_CORNER_COST`` more: it can be the other corner of a card read
    elsewhere. A card's margin is how much the best assignment loses when that card may not have
    its code at all.
    """
    from scipy.optimize import linear_sum_assignment

    n, codes = len(costs), len(DECK_CODES)
    big = 1e6
    lone = np.zeros(n, bool) if lone is None else np.asarray(lone, bool)
    matrix = np.full((n, 2 * codes + n), big)
    matrix[:, :codes] = costs
    matrix[lone, codes:2 * codes] = costs[lone] + SECOND_CORNER_COST
    matrix[np.arange(n), 2 * codes + np.arange(n)] = UNPLACED_COST
    for row, code in fixed.items():
        column = DECK_CODES.index(code)
        matrix[row, :] = big
        matrix[:, column] = big
        matrix[row, column] = 0.0
    rows, columns = linear_sum_assignment(matrix)
    total = matrix[rows, columns].sum()
    placed: list[int | None] = [None] * n
    for r, c in zip(rows, columns):
        placed[r] = int(c) % codes if c < 2 * codes else None
    margins = np.zeros(n)
    for r, c in enumerate(placed):
        if c is None:
            continue
        if r in fixed:
            margins[r] = np.inf
            continue
        saved = matrix[r, [c, c + codes]].copy()
        matrix[r, [c, c + codes]] = big
        again_rows, again_columns = linear_sum_assignment(matrix)
        margins[r] = matrix[again_rows, again_columns].sum() - total
        matrix[r, [c, c + codes]] = saved
    return placed, margins


def _strong_code(reading: _PhotoReading, k: int) -> int | None:
    """The code column index ``k`` reads strongly at the turn it reads best (see STRONG_READING_PROB), else None."""
    turns = reading.turns[k]
    rotation = reading.readings[k].rotation
    if rotation not in turns:
        return None
    probs = reading.probabilities[k][turns.index(rotation)]
    faces = probs[:len(DECK_CODES)]
    column = int(faces.argmax())
    others = np.delete(probs, column)
    second = float(others.max()) if len(others) else 0.0
    if faces[column] < STRONG_READING_PROB or np.log(faces[column] / max(second, 1e-6)) < CLEAR_READING_MARGIN:
        return None
    return column


def _corners_of_one_card(a: IndexReading, b: IndexReading) -> bool:
    """Whether two readings the grouping joined can be one card's two corners, not two cards lying alike.

    Read the same way up, one of them is misread by half a turn; one card's other corner then lies
    along the card's diagonal from either (within ``DISAGREEING_BEARING_DEG``), while a copy dealt
    beside or below lies across it (53° or 37° off in a row or a column).
    """
    if a.rotation != b.rotation:
        return True
    between = b.center - a.center
    diagonal = a.toward_center
    cosine = abs(float(between @ diagonal)) / max(float(np.linalg.norm(between)) * float(np.linalg.norm(diagonal)), 1e-9)
    return bool(np.degrees(np.arccos(min(1.0, cosine))) <= DISAGREEING_BEARING_DEG)


def _cards_by_code(reading: _PhotoReading, groups: list[list[int]]) -> dict[int, list[list[int]]]:
    """Per code column, the physical cards that read it strongly, each as its readings' indices.

    ``groups`` are the grouping's cards (pairs and lone readings, before any split): readings it
    joined are one card; other strong readings of one code are one card when within
    ``ONE_CARD_SPAN`` index sizes of each other (one card's two corners the grouping did not pair,
    or a second box on one corner).
    """
    strong = {k: c for k in range(len(reading.readings)) if (c := _strong_code(reading, k)) is not None}
    parent = {k: k for k in strong}

    def root(k: int) -> int:
        while parent[k] != k:
            k = parent[k]
        return k

    for group in groups:
        members = [k for k in group if k in strong]
        for k in members[1:]:
            if strong[k] == strong[members[0]] and _corners_of_one_card(reading.readings[members[0]], reading.readings[k]):
                parent[root(k)] = root(members[0])
    for a in strong:
        for b in strong:
            if a < b and strong[a] == strong[b]:
                ra, rb = reading.readings[a], reading.readings[b]
                if float(np.linalg.norm(ra.center - rb.center)) <= ONE_CARD_SPAN * (ra.scale + rb.scale) / 2:
                    parent[root(b)] = root(a)
    cards: dict[int, dict[int, list[int]]] = {}
    for k, column in strong.items():
        cards.setdefault(column, {}).setdefault(root(k), []).append(k)
    return {column: sorted(found.values()) for column, found in cards.items()}


def _index_size(read: list[_PhotoReading], cards: list[LearnedCard], numbers: list[int]) -> float:
    return float(np.median([read[cards[k].photo].readings[r].scale for k in numbers for r in cards[k].readings]))


def _two_copies(read: list[_PhotoReading], cards: list[LearnedCard], costs: list[np.ndarray], group: list[int],
                corrections: dict[int, str]) -> list[tuple[str, list[int]]]:
    """Codes that two physical cards of ``group`` read strongly where one deck holds one: (code, card numbers).

    The classifier is sometimes sure and wrong on a deck it never saw, so a strong reading alone
    proves nothing: a card of a code read strongly elsewhere that the assignment placed on a likely
    other code is a misread. It is a second copy when, of one size with the first (a second copy
    lies on the table like the first; a box in a court card's art is smaller), it was left
    unplaced or pushed onto an unlikely code (``UNLIKELY_PLACE_COST``), or it took the code's
    second-corner place far from the first card while some code of the deck went unplaced (the
    card the copy replaced). Jokers are left out: many decks print two alike. A card the player
    named settles its code.
    """
    number = {(cards[k].photo, r): k for k in group for r in cards[k].readings}
    claims: dict[int, list[list[int]]] = {}
    whole: set[tuple[int, ...]] = set()     # two corners read strongly: a whole card, no other card's second corner
    for photo in sorted({cards[k].photo for k in group}):
        unsplit, _, _ = _cards_of_photo(photo, read[photo])
        for column, found in _cards_by_code(read[photo], [c.readings for c in unsplit]).items():
            for readings in found:
                numbers = sorted({number[(photo, r)] for r in readings if (photo, r) in number})
                if numbers:
                    claims.setdefault(column, []).append(numbers)
                    if len(readings) >= 2:
                        whole.add(tuple(numbers))
    holders = collections.Counter(cards[k].code for k in group)
    something_missing = any(c not in holders for c in STANDARD_CODES)
    out = []
    for column, found in sorted(claims.items()):
        code = DECK_CODES[column]
        if code in JOKERS or len(found) < 2 or any(k in corrections for numbers in found for k in numbers):
            continue
        holding = [numbers for numbers in found if any(cards[k].code == code for k in numbers)]
        if not holding:
            continue
        size = _index_size(read, cards, holding[0])
        sizes = {tuple(numbers): _index_size(read, cards, numbers) for numbers in found}
        alike = {key for key, other in sizes.items() if max(other, size) <= COPY_SIZE_RATIO * min(other, size)}
        pushed = [numbers for numbers in found if numbers not in holding and tuple(numbers) in alike and all(
            cards[k].code is None
            or costs[k][DECK_CODES.index(cards[k].code)] - costs[k][column] >= UNLIKELY_PLACE_COST
            or (tuple(numbers) in whole and holders[cards[k].code] > 1) for k in numbers)]
        twice = [numbers for numbers in holding[1:]
                 if tuple(numbers) in alike and (something_missing or tuple(numbers) in whole or not any(
                     cards[k].sure for k in numbers + holding[0]))]
        if pushed or twice:
            out.append((code, sorted({numbers[0] for numbers in holding[:1] + twice + pushed})))
    return out


def _pairs_to_split(read: list[_PhotoReading], parts: bool) -> list[set[tuple[int, ...]]]:
    """Pairs the grouping made that the assignment cannot place as one card: two neighbours' indices.

    In a spread deck one card's top index sits near the next card's, and a misread can make them
    look like one card's two corners. Such a pair fits no code well, so it is left unplaced; read
    as two cards, each finds its code.
    """
    split: list[set[tuple[int, ...]]] = [set() for _ in read]
    cards, costs = [], []
    for photo, reading in enumerate(read):
        found, cost, _ = _cards_of_photo(photo, reading)
        cards += found
        costs += cost
    groups = [list(range(len(cards)))] if parts else [[k for k, c in enumerate(cards) if c.photo == p] for p in range(len(read))]
    for group in groups:
        if not group:
            continue
        placed, _ = _assign(np.asarray([costs[k] for k in group]), {}, [len(cards[k].readings) == 1 for k in group])
        for local, k in enumerate(group):
            if placed[local] is None and len(cards[k].readings) == 2:
                split[cards[k].photo].add(tuple(cards[k].readings))
    return split


def read_photos(detector, photos: list[tuple[str, np.ndarray]]) -> list[_PhotoReading]:
    """What the detector and classifier see in learning photos (the slow part of learning)."""
    if detector.conf > LEARN_INDEX_CONF:
        detector = copy.copy(detector)
        detector.conf = LEARN_INDEX_CONF
    return [_read_photo(detector, frame) for _, frame in photos]


def learn_from_photos(detector, photos: list[tuple[str, np.ndarray]], name: str, parts: bool = False,
                      corrections: dict[int, str] | None = None,
                      readings: list[_PhotoReading] | None = None) -> LearnResult:
    """Learn a deck from photos of it, every card face up once per photo (or once over all photos: ``parts``).

    ``corrections`` names cards by their number in an earlier result's ``cards`` (the same photos in
    the same order give the same numbering): those are placed as told. ``readings``: the photos'
    :func:`read_photos` from before, to learn again without reading them again.
    """
    DeckStore.check_name(name)
    if not photos:
        raise DeckError(Message("no photos given: photograph the whole deck face up (each card once)"))
    start = time.perf_counter()
    corrections = dict(corrections or {})
    for code in corrections.values():
        if code not in DECK_CODES:
            raise DeckError(Message('%(code)s is not a card code (e.g. AS, 10H, QD, BJ)', code=repr(code)))
    read = readings if readings is not None else read_photos(detector, photos)
    problems: list[Message] = []
    cards: list[LearnedCard] = []
    costs: list[np.ndarray] = []
    rows: list[list[list[int]]] = []
    split = _pairs_to_split(read, parts)
    for photo, (label, _) in enumerate(photos):
        found, cost, turn_rows = _cards_of_photo(photo, read[photo], split[photo])
        if not found:
            problems.append(Message('%(label)s: no cards found (is the deck face up, in focus and in the light?)', label=label))
        cards += found
        costs += cost
        rows += turn_rows
    for number in corrections:
        if not 0 <= number < len(cards):
            raise DeckError(Message("there is no card number %(number)s (the photos show %(count)s cards, numbered from 0)",
                                    number=number, count=len(cards)))
    groups = [list(range(len(cards)))] if parts else [
        [k for k, card in enumerate(cards) if card.photo == photo] for photo in range(len(photos))]
    for group in groups:
        if not group:
            continue
        label = Message("the photos together") if parts else photos[cards[group[0]].photo][0]
        if len(group) > MORE_THAN_ONE_DECK:
            problems.append(Message("%(label)s: %(count)s cards found, more than one deck holds: two decks, or a card in twice? Photograph "
                                    "one deck, each card once",
                                    label=label, count=len(group)))
        fixed = {group.index(k): code for k, code in corrections.items() if k in group}
        codes_fixed = list(fixed.values())
        if len(set(codes_fixed)) < len(codes_fixed):
            raise DeckError(Message("the corrections name one code for two cards: each card is in the deck once"))
        placed, margins = _assign(np.asarray([costs[k] for k in group]), fixed, [len(cards[k].readings) == 1 for k in group])
        for local, k in enumerate(group):
            cards[k].code = DECK_CODES[placed[local]] if placed[local] is not None else None
            cards[k].margin = float(min(margins[local], 99.0))
            cards[k].sure = bool(cards[k].code is not None and margins[local] >= SURE_MARGIN)
            if k in corrections:
                cards[k].sure = True
        for code, numbers in _two_copies(read, cards, costs, group, corrections):
            where = (Message("cards %(others)s and %(last)s", others=[f"#{k}" for k in numbers[:-1]], last=f"#{numbers[-1]}") if len(numbers) > 1
                     else Message("card #%(number)s is two cards side by side", number=numbers[0]))
            problems.append(Message("%(photo)s: two copies of %(code)s? (%(where)s) — photograph one deck, each card once "
                                    "(or name the card that is not %(code)s with --set NUMBER=CODE)", photo=label, code=code, where=where))
    # Each photo of a whole deck (or the photos together, with parts) must account for every card;
    # with several whole-deck photos a card placed surely in one of them is learned, so what one
    # photo missed or was unsure of only blocks when no photo placed it surely.
    surely = {card.code for card in cards if card.code and card.sure}
    missing = [c for c in STANDARD_CODES if c not in surely]
    if missing:
        unsure = [k for k, card in enumerate(cards) if card.code in missing and not card.sure]
        found = {cards[k].code for k in unsure}
        not_found = [c for c in missing if c not in found]
        if not_found:
            problems.append(Message("not found: %(not_found)s (photograph the whole deck, each card's corner index visible; or, with "
                                    "--parts, add a photo of the missing cards)",
                                    not_found=' '.join(not_found)))
        if unsure:
            listed = [Message("#%(number)s read %(code)s?", number=k, code=cards[k].code) for k in unsure[:12]]
            problems.append(Message("not sure of %(count)s cards: %(cards)s%(more)s (name them with --set NUMBER=CODE, or add another photo)",
                                    count=len(unsure), cards=listed, more=" …" if len(unsure) > 12 else ""))
    codes, embeddings, colours = [], [], []
    for k, card in enumerate(cards):
        if not (card.code and card.sure):
            continue
        column = DECK_CODES.index(card.code)
        photo = read[card.photo]
        for reading_index, turn_row in zip(card.readings, rows[k]):
            codes.append(card.code)
            embeddings.append(photo.embeddings[reading_index][turn_row[column]])
            colours.append(photo.colours[reading_index])
    backs = [hist for photo in read for hist in photo.backs]
    profile = None
    if codes:
        profile = build_profile(name, codes, embeddings, backs, {
            "created": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "photos": [label for label, _ in photos],
            "source": "photos" + (" (parts)" if parts else ""), "cards": len({c for c in codes})}, colours)
    seconds = time.perf_counter() - start
    if profile is not None:
        profile.info["learn_seconds"] = round(seconds, 2)
    return LearnResult(name, [label for label, _ in photos], cards, problems, profile, seconds)


def _on_table(card: np.ndarray, card_height: int = 300, canvas: int = 416) -> np.ndarray:
    """A card scan (BGR or BGRA) laid on a plain grey-green table, scaled so its indices are the size the detector knows."""
    if card.ndim == 2:
        card = cv2.cvtColor(card, cv2.COLOR_GRAY2BGR)
    scale = card_height / card.shape[0]
    card = cv2.resize(card, (max(8, round(card.shape[1] * scale)), card_height), interpolation=cv2.INTER_AREA)
    table = np.full((canvas, canvas, 3), (70, 110, 60), np.uint8)
    h, w = card.shape[:2]
    y, x = (canvas - h) // 2, (canvas - w) // 2
    if card.shape[2] == 4:
        alpha = card[..., 3:4].astype(np.float32) / 255
        table[y:y + h, x:x + w] = (card[..., :3] * alpha + table[y:y + h, x:x + w] * (1 - alpha)).astype(np.uint8)
    else:
        table[y:y + h, x:x + w] = card
    return table


def _back_scan_histograms(image: np.ndarray) -> list[np.ndarray]:
    """The back's colours from a clean scan, as a camera would see the card: at a few sizes and lights, with sensor noise.

    A scan's pattern keeps its colours apart; a camera sees a card 70-100 px wide, where they blend,
    under dimmer or brighter light and with noise. One clean histogram kept only 36 of 81 real backs
    of the held-out lattmann deck (`python -m vision_models.negatives_check --learn-from images`).
    """
    rng = np.random.default_rng(0)
    histograms = []
    for card_height in BACK_VIEW_CARD_HEIGHTS:
        table = _on_table(image, card_height, canvas=max(416, card_height + 40))
        h, w = table.shape[:2]
        card_w = image.shape[1] * card_height / image.shape[0]
        box = (w / 2 - card_w / 2, h / 2 - card_height / 2, w / 2 + card_w / 2, h / 2 + card_height / 2)
        for gain in BACK_VIEW_GAINS:
            seen = table.astype(np.float32) * gain + rng.normal(0, BACK_VIEW_NOISE, table.shape)
            hist = back_histogram(np.clip(seen, 0, 255).astype(np.uint8), box)
            if hist is not None:
                histograms.append(hist)
    return histograms


def learn_from_folder(detector, folder: str | os.PathLike, name: str) -> LearnResult:
    """Learn a deck from one image per card named by code (``10c.jpg``, ``QH.png``, ``BJ.png``, ``back.png``)."""
    from companion.vision.detector import INDEX_CLASS
    from companion.vision.frames import load_image

    DeckStore.check_name(name)
    start = time.perf_counter()
    images = card_images(folder)
    codes, embeddings, colours, backs, problems, cards = [], [], [], [], [], []
    ordered = sorted(images.items(), key=lambda item: DECK_CODES.index(item[0]) if item[0] in DECK_CODES else 99)
    for photo, (code, path) in enumerate(ordered):
        image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if image is None:
            try:
                load_image(path)
            except ValueError as error:
                raise ValueError(f"{path.name}: {error}") from None
            raise ValueError(f"{path.name}: not a readable image")
        if code == "BACK":
            backs += _back_scan_histograms(image)
            continue
        boxes = np.zeros((0, 4), np.float32)
        for card_height in SCAN_CARD_HEIGHTS:
            table = _on_table(image, card_height)
            raw = detector.detect_boxes(table)
            boxes = raw.boxes[raw.classes == INDEX_CLASS]
            if len(boxes):
                break
        if len(boxes) == 0:
            # the printed place of a corner index, when the detector finds none on the scan
            table = _on_table(image, SCAN_CARD_HEIGHTS[0])
            h, w = SCAN_CARD_HEIGHTS[0], image.shape[1] * SCAN_CARD_HEIGHTS[0] / image.shape[0]
            left, top = (table.shape[1] - w) / 2, (table.shape[0] - h) / 2
            boxes = np.array([[left + x1 * w, top + y1 * h, left + x2 * w, top + y2 * h]
                              for x1, y1, x2, y2 in art_index_fractions()], np.float32)
        centre = np.array(table.shape[1::-1], np.float64) / 2
        for box, (turns, _, embeds), ink in zip(boxes, detector.embed_boxes(table, boxes), detector.ink_colours(table, boxes)):
            middle = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
            codes.append(code)
            embeddings.append(embeds[_facing_turn(middle, centre - middle, turns)])
            colours.append(ink)
        cards.append(LearnedCard(photo, tuple(float(v) for v in boxes[0]), list(range(len(boxes))), code, True, 99.0))
    profile = None
    if codes:
        profile = build_profile(name, codes, embeddings, backs, {
            "created": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "photos": [str(folder)],
            "source": "card images", "cards": len(set(codes))}, colours)
        profile.info["learn_seconds"] = round(time.perf_counter() - start, 2)
    return LearnResult(name, [path.name for _, path in ordered], cards, problems, profile, time.perf_counter() - start)
