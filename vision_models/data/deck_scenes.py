"""Photos of one deck for the learned-deck check: whole-deck spreads to learn from, labelled table scenes to score.

    python -m vision_models.data.deck_scenes --deck var/artwork/lattmann --out var/deckcheck/lattmann
    companion deck learn --name lattmann var/deckcheck/lattmann/learn/spread-0.jpg --data var/deckcheck/data
    companion evaluate var/deckcheck/lattmann/test --split all --deck lattmann --data var/deckcheck/data

``learn/spread-K.jpg``: the whole deck face up in overlapping rows (each card's top-left index
showing), a face-down card beside it, 1600×1200, light and angle varying with K. ``test/``: a
labelled folder in the YOLO layout that ``companion evaluate`` reads: scattered cards at any angle,
solitaire-style cascades (only the top index of a covered card shows) and face-down cards, 960×720.
The deck is any card-image folder (``companion.synthetic.deck.ArtDeck``); its ``index_boxes.json``
(written by ``vision_models.data.artwork``) gives the index boxes, else the usual printed place.
"""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import cv2
import numpy as np

from companion.cards import CLASS_NAMES
from companion.synthetic.deck import ArtDeck

CARD_ASPECT = 1.4
TEST_NAMES = list(CLASS_NAMES)       # data.yaml class order: 54 codes then BACK


def _index_fractions(deck: ArtDeck) -> dict[str, list[tuple[float, float, float, float]]]:
    measured = deck.folder / "index_boxes.json"
    out = {}
    if measured.is_file():
        boxes = json.loads(measured.read_text())["index_boxes"]
        for code, found in boxes.items():
            art = cv2.imread(str(deck.images[code]), cv2.IMREAD_UNCHANGED)
            h, w = art.shape[:2]
            if len(found) == 2:
                out[code] = [(x1 / w, y1 / h, x2 / w, y2 / h) for x1, y1, x2, y2 in found]
    return out


class Table:
    def __init__(self, width: int, height: int, rng: np.random.Generator):
        self.rng = rng
        base = rng.integers(30, 150, 3)
        self.image = np.empty((height, width, 3), np.uint8)
        self.image[:] = base
        grain = rng.normal(0, 6, (height, width, 1))
        self.image = np.clip(self.image + grain, 0, 255).astype(np.uint8)
        self.labels: list[tuple[str, np.ndarray]] = []   # (code, 4x2 corner points) per label
        self.covered = np.zeros((height, width), np.float32)   # how much of each pixel the cards hide

    def paste(self, deck: ArtDeck, code: str, centre, width: float, angle: float, face_up: bool = True) -> np.ndarray:
        """Draw a card; returns the 3x3 map from card pixels (width x height) to the frame."""
        w, h = int(round(width)), int(round(width * CARD_ASPECT))
        art = deck.render(code if face_up else "BACK", w * 2, h * 2)
        mask = deck.mask(code if face_up else "BACK", w * 2, h * 2)
        a = math.radians(angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]) * 0.5
        shift = np.asarray(centre, np.float64) - rot @ np.array([w, h], np.float64)
        matrix = np.hstack([rot, shift[:, None]])
        size = self.image.shape[1::-1]
        patch = cv2.warpAffine(art, matrix, size, flags=cv2.INTER_AREA)
        alpha = cv2.warpAffine(mask, matrix, size, flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255
        np.maximum(self.covered, alpha[..., 0], out=self.covered)
        self.image = (self.image * (1 - 0.3 * alpha)).astype(np.uint8)     # a little shadow
        self.image = (self.image * (1 - alpha) + patch * alpha).astype(np.uint8)
        return np.vstack([np.hstack([rot * 2, shift[:, None]]), [0, 0, 1]])

    def finish(self, blur: float, noise: float, gain: float) -> np.ndarray:
        image = self.image.astype(np.float32) * gain
        if blur > 0:
            image = cv2.GaussianBlur(image, (0, 0), blur)
        image += self.rng.normal(0, noise, image.shape)
        return np.clip(image, 0, 255).astype(np.uint8)


def _index_points(card_map: np.ndarray, fraction, w: float, h: float) -> np.ndarray:
    x1, y1, x2, y2 = fraction
    corners = np.array([[x1 * w, y1 * h, 1], [x2 * w, y1 * h, 1], [x2 * w, y2 * h, 1], [x1 * w, y2 * h, 1]])
    return (card_map @ corners.T).T[:, :2]


def _covered(point, covers: list[tuple[np.ndarray, float, float]]) -> bool:
    for card_map, w, h in covers:
        local = np.linalg.inv(card_map) @ np.array([point[0], point[1], 1.0])
        if 0 <= local[0] <= w and 0 <= local[1] <= h:
            return True
    return False


def _fractions_for(code, fractions):
    default = [(0.03, 0.02, 0.19, 0.27), (0.81, 0.73, 0.97, 0.98)]
    return fractions.get(code, default)


def spread_photo(deck: ArtDeck, seed: int, with_jokers: bool = True,
                 second_copy: tuple[str | None, str] | None = None) -> tuple[np.ndarray, list[dict]]:
    """The whole deck face up in overlapping rows, each card's top-left index in view.

    ``second_copy=("7H", "QS")``: the 7 of hearts is replaced by a second queen of spades (a bad
    learning photo: the learner must say "two copies of QS"); ``(None, "QS")``: a second queen of
    spades is dealt after the deck.
    """
    rng = np.random.default_rng(seed)
    table = Table(1600, 1200, rng)
    codes = list(CLASS_NAMES[:52]) + ([c for c in ("BJ", "SJ") if c in deck.images] if with_jokers else [])
    rng.shuffle(codes)
    if second_copy is not None and second_copy[0] is None:
        codes.append(second_copy[1])
    elif second_copy is not None:
        codes[codes.index(second_copy[0])] = second_copy[1]
    columns = 11
    width = 112.0
    rows = math.ceil(len(codes) / columns)
    tilt = rng.uniform(-4, 4)
    truth = []
    for n, code in enumerate(codes):
        row, column = divmod(n, columns)
        cx = 110 + column * (width * 1.2) + rng.uniform(-6, 6)
        cy = 150 + row * (width * CARD_ASPECT * 0.62) + rng.uniform(-6, 6)
        card_map = table.paste(deck, code, (cx, cy), width, tilt + rng.uniform(-3, 3))
        corner = card_map @ np.array([0.1 * width, 0.12 * width * CARD_ASPECT, 1.0])
        truth.append({"code": code, "top_index": [round(float(corner[0]), 1), round(float(corner[1]), 1)]})
    table.paste(deck, "BACK", (1500, 150 + rows * width * CARD_ASPECT * 0.62), width, rng.uniform(-10, 10), face_up=False)
    return table.finish(blur=rng.uniform(0.4, 1.0), noise=rng.uniform(2, 5), gain=rng.uniform(0.8, 1.15)), truth


def test_scene(deck: ArtDeck, seed: int, fractions) -> tuple[np.ndarray, list[tuple[str, tuple[float, float, float, float]]]]:
    """A labelled 960x720 scene: scattered cards, a cascade, face-down cards."""
    image, labels, _ = scene_with_distractors(deck, seed, fractions, None)
    return image, labels


def scene_with_distractors(deck: ArtDeck, seed: int, fractions, distractor_rng: np.random.Generator | None,
                           kinds: tuple[str, ...] | None = None):
    """:func:`test_scene`, and with ``distractor_rng`` one of each of ``kinds`` (default all) of
    :mod:`vision_models.data.distractors` on the bare table: (image, labels, distractors drawn).

    The distractors come from their own stream and lie under the cards, so the labels (and every
    pixel a card covers) are those of ``test_scene(deck, seed, fractions)``.
    """
    rng = np.random.default_rng(10_000 + seed)
    table = Table(960, 720, rng)
    width = rng.uniform(70, 100)
    h = width * CARD_ASPECT
    codes = list(CLASS_NAMES[:52]) + [c for c in ("BJ", "SJ") if c in deck.images]
    rng.shuffle(codes)
    drawn: list[tuple[str, bool, np.ndarray]] = []
    placed: list[np.ndarray] = []
    kind = seed % 2
    if kind == 0:      # scattered, any angle, not overlapping
        for code in codes[:rng.integers(6, 12)]:
            for _ in range(40):
                centre = rng.uniform([h * 0.7, h * 0.7], [960 - h * 0.7, 720 - h * 0.7])
                if all(np.linalg.norm(centre - other) > h * 1.05 for other in placed):
                    break
            else:
                continue
            placed.append(centre)
            face_up = rng.random() > 0.15
            card_map = table.paste(deck, code, centre, width, rng.uniform(0, 360), face_up)
            drawn.append((code, face_up, card_map))
    else:              # cascades: columns of overlapping cards, the last whole
        columns = int(rng.integers(3, 6))
        k = 0
        for column in range(columns):
            x = 80 + column * (width * 1.35) + rng.uniform(-5, 5)
            for depth in range(int(rng.integers(2, 5))):
                code = codes[k]
                k += 1
                face_up = depth > 0 or rng.random() > 0.4
                y = 40 + h / 2 + depth * h * 0.33
                card_map = table.paste(deck, code, (x + width / 2, y), width, rng.uniform(-3, 3), face_up)
                drawn.append((code, face_up, card_map))
    distractors = []
    if distractor_rng is not None:
        from vision_models.data.distractors import KINDS, draw_distractors

        order = list(kinds or KINDS)
        distractor_rng.shuffle(order)
        for kind in order:
            distractors += draw_distractors(distractor_rng, table.image, table.covered, width, count=1, kinds=(kind,))
    labels = []
    for n, (code, face_up, card_map) in enumerate(drawn):
        covers = [(m, width, h) for _, _, m in drawn[n + 1:]]
        outline = (card_map @ np.array([[0, 0, 1], [width, 0, 1], [width, h, 1], [0, h, 1]], float).T).T[:, :2]
        if not face_up:
            # a face-down card is on the table while its middle or the strip along its top shows
            # (a solitaire cascade's covered cards): the game counts it, so the detector should
            strip = card_map @ np.array([width / 2, 0.12 * h, 1.0])
            if not _covered(outline.mean(0), covers) or not _covered(strip[:2], covers):
                lo, hi = outline.min(0), outline.max(0)
                labels.append(("BACK", (*lo, *hi)))
            continue
        visible = []
        for fraction in _fractions_for(code, fractions):
            points = _index_points(card_map, fraction, width, h)
            if not _covered(points.mean(0), covers):
                visible.append((code, (*points.min(0), *points.max(0))))
        # a joker's two measured indices can lie further apart than the scorer pairs a card's corners
        # (6.5 index sizes): label one, or the scorer counts one joker as two cards
        labels += visible[:1] if code in ("BJ", "SJ") else visible
    image = table.finish(blur=rng.uniform(0.3, 0.9), noise=rng.uniform(2, 6), gain=rng.uniform(0.75, 1.2))
    return image, labels, distractors


def write(deck_dir: Path, out: Path, spreads: int, scenes: int) -> None:
    deck = ArtDeck(deck_dir)
    fractions = _index_fractions(deck)
    (out / "learn").mkdir(parents=True, exist_ok=True)
    for k in range(spreads):
        image, truth = spread_photo(deck, k)
        cv2.imwrite(str(out / "learn" / f"spread-{k}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        (out / "learn" / f"spread-{k}.json").write_text(json.dumps(truth))
    images, labels_dir = out / "test" / "images", out / "test" / "labels"
    images.mkdir(parents=True, exist_ok=True)
    labels_dir.mkdir(parents=True, exist_ok=True)
    (out / "test" / "data.yaml").write_text("names: [" + ", ".join(TEST_NAMES) + "]\n")
    for seed in range(scenes):
        image, labels = test_scene(deck, seed, fractions)
        cv2.imwrite(str(images / f"scene-{seed:03d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        H, W = image.shape[:2]
        lines = []
        for code, (x1, y1, x2, y2) in labels:
            x1, x2 = max(0, x1), min(W, x2)
            y1, y2 = max(0, y1), min(H, y2)
            if x2 <= x1 or y2 <= y1:
                continue
            lines.append(f"{TEST_NAMES.index(code)} {(x1 + x2) / 2 / W:.5f} {(y1 + y2) / 2 / H:.5f} {(x2 - x1) / W:.5f} {(y2 - y1) / H:.5f}")
        (labels_dir / f"scene-{seed:03d}.txt").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deck", required=True, help="card-image folder (e.g. var/artwork/lattmann)")
    parser.add_argument("--out", required=True)
    parser.add_argument("--spreads", type=int, default=3)
    parser.add_argument("--scenes", type=int, default=40)
    args = parser.parse_args(argv)
    write(Path(args.deck), Path(args.out), args.spreads, args.scenes)


if __name__ == "__main__":
    main()
