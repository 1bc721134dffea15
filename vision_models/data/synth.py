"""Synthetic table scenes and index crops, drawn from the rendered card artwork.

A scene is a table texture seen by a slightly tilted camera, with cards placed in one of a few
layouts (scatter, hand fan, pile, top-down grid, close-up), some face down, some covered by other
cards or by hands, then lit, shadowed, blurred, noised and JPEG-compressed. Labels are YOLO boxes:
``index`` (class 0) around each corner index that is at least half visible, ``back`` (class 1)
around each face-down card of which at least 15 % shows (a strip of a column of backs). Cards are rotated through the full
0-360 degrees and never mirrored (a mirrored index is not a card).

Every random choice comes from one ``numpy.random.Generator`` seeded per item, so the same seed
gives byte-identical images and labels.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

INDEX_CLASS, BACK_CLASS = 0, 1
DETECTOR_CLASSES = ("index", "back")
# Issue 28 item 1 (b): a face-up card boxed whole, so a card is found at the detector's scale and its corners
# read at the frame's full resolution; only the chain's card ending labels it (``card_class=True``).
CARD_CLASS = 2
VISIBLE_FRACTION = 0.5
# A face-down card is labelled when this share of it shows. Half (the index's rule) left the strip each
# back shows in a solitaire column or a fanned face-down hand unlabelled, so the detector learned those
# strips as table: real photos of seven columns of backs reported none (issue 28). A column's strip is
# 15-30 % of a card; a squared-up pile shows only its top card, so it stays one back.
BACK_VISIBLE_FRACTION = 0.15
# ...but only where other cards hide the rest (a column, a spread hand): a back mostly under a hand or
# out of the frame needs VISIBLE_FRACTION like an index. The chain's candidate, taught strips wherever
# they showed, read weak backs beside the hands laying the Chosen's chips and lost 4 of 6 development
# Chosen recordings the shipped detector (never taught strips) reads (EVALUATION.md, "The table ending").
# Share of a card that may be hidden by something other than cards for its strip to still count.
BACK_STRIP_OTHER_COVER = 0.05
CROP_EXPAND = 0.10
CROP_SIZE = 64


def progress(items, label: str, every: float = 10.0):
    """Yield items, printing ``label i/n`` at most every ``every`` seconds (tqdm is not guaranteed)."""
    import time

    items = list(items)
    last = 0.0
    for i, item in enumerate(items):
        now = time.time()
        if now - last >= every or i == len(items) - 1:
            print(f"[{label}] {i + 1}/{len(items)}", flush=True)
            last = now
        yield item


# --------------------------------------------------------------------------- artwork in memory


@dataclass
class Face:
    code: str
    image: np.ndarray  # BGRA
    index_points: list[np.ndarray]  # per corner index: (N, 2) ink pixel coordinates in card pixels
    index_boxes: list[tuple[int, int, int, int]]


@dataclass
class Deck:
    name: str
    faces: dict[str, Face]
    back: np.ndarray


def _ink_points(card: np.ndarray, box: tuple[int, int, int, int], limit: int = 160) -> np.ndarray:
    x1, y1, x2, y2 = box
    region = card[y1:y2, x1:x2].astype(np.int16)
    h, w = card.shape[:2]
    paper = np.median(card[int(0.45 * h):int(0.55 * h), int(0.04 * w):int(0.08 * w), :3].reshape(-1, 3), axis=0)
    ink = (np.abs(region[:, :, :3] - paper).max(axis=2) > 60) & (region[:, :, 3] > 200)
    ys, xs = np.nonzero(ink)
    if len(xs) == 0:
        ys, xs = np.mgrid[0:y2 - y1, 0:x2 - x1].reshape(2, -1)
    points = np.stack([xs + x1 + 0.5, ys + y1 + 0.5], axis=1).astype(np.float32)
    if len(points) > limit:  # an evenly spread subset keeps the extremes close enough
        points = points[np.linspace(0, len(points) - 1, limit).astype(int)]
    # make sure the measured box corners themselves are represented
    corners = np.array([[x1, y1], [x2, y1], [x1, y2], [x2, y2]], np.float32)
    return np.concatenate([points, corners[:0]], axis=0)


def load_decks(deck_dirs: list[Path], with_faces: bool = True, for_scenes: bool = False) -> list[Deck]:
    """Decks from rendered artwork. ``for_scenes`` keeps only faces whose every index is labelled."""
    import cv2

    from vision_models.data.artwork import FOUR_INDEX_DECKS

    decks = []
    for deck_dir in deck_dirs:
        manifest = json.loads((deck_dir / "index_boxes.json").read_text())
        faces: dict[str, Face] = {}
        if for_scenes and deck_dir.name in FOUR_INDEX_DECKS:
            with_faces_here = False
        else:
            with_faces_here = with_faces and manifest.get("faces", True)
        if with_faces_here:
            for code, boxes in manifest["index_boxes"].items():
                if not boxes or (for_scenes and len(boxes) < 2):
                    continue
                image = cv2.imread(str(deck_dir / f"{code}.png"), cv2.IMREAD_UNCHANGED)
                boxes = [tuple(b) for b in boxes]
                faces[code] = Face(code, image, [_ink_points(image, b) for b in boxes], boxes)
        back = cv2.imread(str(deck_dir / "back.png"), cv2.IMREAD_UNCHANGED)
        decks.append(Deck(deck_dir.name, faces, back))
    return decks


# --------------------------------------------------------------------------- tables and light


def table_texture(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    import cv2

    kind = rng.integers(0, 5)
    base = rng.integers(0, 256, 3).astype(np.float32)
    if kind == 0:  # felt: one colour, fine noise
        felt = np.array([[40, 110, 30], [120, 60, 20], [30, 30, 140], [60, 60, 60], [20, 90, 110]], np.float32)
        image = np.ones((height, width, 3), np.float32) * (felt[rng.integers(0, 5)] * rng.uniform(0.6, 1.4))
        image += rng.normal(0, rng.uniform(3, 12), (height, width, 1))
    elif kind == 1:  # wood: warped stripes
        ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
        angle = rng.uniform(0, math.pi)
        u = xs * math.cos(angle) + ys * math.sin(angle)
        warp = cv2.resize(rng.normal(0, 1, (8, 8)).astype(np.float32), (width, height)) * rng.uniform(5, 30)
        stripes = 0.5 + 0.5 * np.sin((u + warp) / rng.uniform(3, 15))
        wood = np.array([rng.uniform(20, 90), rng.uniform(50, 130), rng.uniform(90, 200)], np.float32)
        image = wood * (0.7 + 0.5 * stripes[:, :, None])
    elif kind == 2:  # blotches: low-resolution noise blown up, like cloth or stone
        small = rng.uniform(0, 255, (rng.integers(3, 24), rng.integers(3, 24), 3)).astype(np.float32)
        image = cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC)
        image = image * rng.uniform(0.3, 1.0) + base * rng.uniform(0, 0.7)
    elif kind == 3:  # cloth stripes or checks
        period = rng.uniform(8, 60)
        ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
        a = (np.floor(ys / period) % 2)
        if rng.random() < 0.5:
            a = (a + np.floor(xs / period) % 2) % 2
        other = rng.integers(0, 256, 3).astype(np.float32)
        image = base * a[:, :, None] + other * (1 - a[:, :, None])
    else:  # smooth gradient between two colours, like a photo's out-of-focus background
        other = rng.integers(0, 256, 3).astype(np.float32)
        t = np.linspace(0, 1, width, dtype=np.float32)[None, :, None] * np.ones((height, 1, 1), np.float32)
        if rng.random() < 0.5:
            t = t.transpose(1, 0, 2)[:height, :width] if height == width \
                else np.linspace(0, 1, height, dtype=np.float32)[:, None, None] * np.ones((1, width, 1), np.float32)
        image = base * (1 - t) + other * t
    image += rng.normal(0, rng.uniform(1, 8), image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


def photometric(rng: np.random.Generator, image: np.ndarray, jpeg: bool = True) -> np.ndarray:
    """Uneven light, a soft shadow, colour cast, blur, sensor noise and JPEG artefacts."""
    import cv2

    h, w = image.shape[:2]
    out = image.astype(np.float32)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, 2 * math.pi)
    ramp = (xs * math.cos(angle) + ys * math.sin(angle)) / max(h, w)
    ramp = (ramp - ramp.min()) / max(1e-6, ramp.max() - ramp.min())
    low, high = rng.uniform(0.45, 1.0), rng.uniform(0.9, 1.35)
    out *= (low + (high - low) * ramp)[:, :, None]
    if rng.random() < 0.4:
        mask = np.zeros((h, w), np.float32)
        center = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        axes = (int(rng.uniform(0.1, 0.5) * w), int(rng.uniform(0.1, 0.5) * h))
        cv2.ellipse(mask, center, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(3, 20))
        out *= (1 - rng.uniform(0.2, 0.55) * mask)[:, :, None]
    out *= rng.uniform(0.85, 1.15, 3)[None, None, :]
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.4))
    elif rng.random() < 0.3:
        length = int(rng.integers(3, 7))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rotation = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kernel = cv2.warpAffine(kernel, rotation, (length, length))
        out = cv2.filter2D(out, -1, kernel / max(kernel.sum(), 1e-6))
    noise = rng.normal(0, rng.uniform(0, 8), out.shape)
    out = np.clip(out.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    if jpeg:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 96))])
        out = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return out


# --------------------------------------------------------------------------- geometry


def card_homography(card_w: int, card_h: int, center, width: float, angle_deg: float,
                    rng: np.random.Generator, skew: float = 0.04) -> np.ndarray:
    """Map card pixels to a quad of the given width, centre and rotation, with slight perspective."""
    import cv2

    scale = width / card_w
    hw, hh = card_w * scale / 2, card_h * scale / 2
    corners = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]], np.float32)
    corners += rng.uniform(-skew, skew, corners.shape).astype(np.float32) * width
    a = math.radians(angle_deg)
    rotation = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], np.float32)
    quad = corners @ rotation.T + np.asarray(center, np.float32)
    source = np.array([[0, 0], [card_w, 0], [card_w, card_h], [0, card_h]], np.float32)
    return cv2.getPerspectiveTransform(source, quad.astype(np.float32))


def apply_homography(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.concatenate([points, np.ones((len(points), 1), np.float32)], axis=1) @ matrix.T
    return pts[:, :2] / pts[:, 2:3]


def camera_tilt(rng: np.random.Generator, size: int, strength: float) -> np.ndarray:
    """A mild whole-scene perspective: the table seen from a camera not quite overhead."""
    import cv2

    source = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
    target = source + rng.uniform(-strength, strength, (4, 2)).astype(np.float32) * size
    return cv2.getPerspectiveTransform(source, target)


# --------------------------------------------------------------------------- scenes


@dataclass
class Placement:
    image: np.ndarray  # BGRA card art
    face: Face | None  # None for a face-down card
    center: tuple[float, float]
    width: float
    angle: float


def _layout(rng: np.random.Generator, size: int, decks: list[Deck], backs: list[np.ndarray]) -> list[Placement]:
    deck = decks[rng.integers(0, len(decks))]
    codes = list(deck.faces)
    back = backs[rng.integers(0, len(backs))]
    back_rate = rng.choice([0.0, 0.1, 0.3, 0.6])

    def pick(face_down: bool | None = None) -> tuple[np.ndarray, Face | None]:
        down = rng.random() < back_rate if face_down is None else face_down
        if down or not codes:
            return back, None
        face = deck.faces[codes[rng.integers(0, len(codes))]]
        return face.image, face

    placements: list[Placement] = []
    layout = rng.choice(["scatter", "fan", "pile", "grid", "closeup"], p=[0.3, 0.2, 0.15, 0.2, 0.15])
    if layout == "scatter":
        width = size * math.exp(rng.uniform(math.log(0.1), math.log(0.35)))
        for _ in range(int(rng.integers(2, 11))):
            image, face = pick()
            placements.append(Placement(image, face, tuple(rng.uniform(0.05, 0.95, 2) * size), width * rng.uniform(0.9, 1.1), rng.uniform(0, 360)))
    elif layout == "fan":
        for _ in range(int(rng.integers(1, 3))):
            width = size * rng.uniform(0.12, 0.35)
            pivot = rng.uniform(0.2, 0.8, 2) * size
            base = rng.uniform(0, 360)
            count = int(rng.integers(3, 9))
            spread = rng.uniform(6, 18)
            radius = width * rng.uniform(0.8, 1.3)
            for k in range(count):
                angle = base + (k - (count - 1) / 2) * spread
                a = math.radians(angle - 90)
                center = (pivot[0] + radius * math.cos(a), pivot[1] + radius * math.sin(a))
                image, face = pick(face_down=False if rng.random() < 0.9 else None)
                placements.append(Placement(image, face, center, width, angle))
    elif layout == "pile":
        width = size * rng.uniform(0.12, 0.3)
        for _ in range(int(rng.integers(1, 4))):
            center = rng.uniform(0.2, 0.8, 2) * size
            down = rng.random() < 0.4
            for _ in range(int(rng.integers(2, 7))):
                jitter = rng.normal(0, width * 0.15, 2)
                image, face = pick(face_down=down)
                placements.append(Placement(image, face, tuple(center + jitter), width, rng.uniform(0, 360)))
    elif layout == "grid":
        cols, rows = int(rng.integers(2, 7)), int(rng.integers(1, 6))
        width = size * min(0.9 / cols / 1.1, 0.9 / rows / 1.5) * rng.uniform(0.6, 1.0)
        base = rng.choice([0, 90, 180, 270]) + rng.uniform(-10, 10)
        a = math.radians(base)
        ux, uy = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        origin = np.array([size / 2, size / 2])
        for r in range(rows):
            for c in range(cols):
                offset = (c - (cols - 1) / 2) * width * 1.15 * ux + (r - (rows - 1) / 2) * width * 1.55 * uy
                image, face = pick()
                at = tuple(origin + offset + rng.normal(0, width * 0.03, 2))   # drawn before the angle, as always
                angle = base + rng.normal(0, 3) + (180 if rng.random() < 0.3 else 0)
                placements.append(Placement(image, face, at, width, angle))
    else:  # close-up: a few big cards, often running off the frame
        width = size * rng.uniform(0.35, 0.75)
        for _ in range(int(rng.integers(1, 4))):
            image, face = pick()
            placements.append(Placement(image, face, tuple(rng.uniform(0.0, 1.0, 2) * size), width, rng.uniform(0, 360)))
    return placements


BACK_LAYOUTS = ("cascade", "dealt", "beside", "far_edge", "under_hand")


def back_layout(rng: np.random.Generator, size: int, decks: list[Deck], backs: list[np.ndarray]):
    """Face-down cards as players lay them (issue 28): (placements, camera tilt or None, hands or None).

    ``cascade``: solitaire columns, each a few overlapping backs showing a strip and a face-up card on
    top; ``dealt``: squared-up face-down piles (one back each) and a face-down hand spread a little;
    ``beside``: a row of backs and face-up cards touching; ``far_edge``: small backs along the far edge
    of a steeply tilted view; ``under_hand``: backs with a hand resting over them.
    """
    deck = decks[rng.integers(0, len(decks))]
    codes = list(deck.faces)
    back = backs[rng.integers(0, len(backs))]
    aspect = back.shape[0] / back.shape[1]

    def face() -> tuple[np.ndarray, Face | None]:
        chosen = deck.faces[codes[rng.integers(0, len(codes))]]
        return chosen.image, chosen

    def along(angle: float) -> np.ndarray:  # the card's own downward direction on the table
        a = math.radians(angle)
        return np.array([-math.sin(a), math.cos(a)])

    placements: list[Placement] = []
    tilt, hands = None, None
    layout = BACK_LAYOUTS[rng.integers(0, len(BACK_LAYOUTS))]
    base = float(rng.choice([0, 90, 180, 270]) + rng.uniform(-8, 8))
    if layout == "cascade":
        columns = int(rng.integers(3, 8))
        width = size * rng.uniform(0.6, 0.9) / columns / 1.15
        step_back, step_face = width * aspect * rng.uniform(0.12, 0.28), width * aspect * rng.uniform(0.22, 0.35)
        across = -along(base + 90)
        start = np.array([size / 2, size / 2]) - across * (columns - 1) / 2 * width * 1.15 - along(base) * size * 0.25
        for c in range(columns):
            at = start + across * c * width * 1.15 + rng.normal(0, width * 0.02, 2)
            for _ in range(int(rng.integers(0, 7)) if c else int(rng.integers(1, 4))):
                placements.append(Placement(back, None, tuple(at), width, base + rng.normal(0, 1.5)))
                at = at + along(base) * step_back
            for _ in range(int(rng.integers(0, 3))):
                image, card = face()
                placements.append(Placement(image, card, tuple(at), width, base + rng.normal(0, 1.5)))
                at = at + along(base) * step_face
    elif layout == "dealt":
        width = size * rng.uniform(0.12, 0.28)
        for _ in range(int(rng.integers(1, 5))):
            center = rng.uniform(0.2, 0.8, 2) * size
            angle = base + rng.uniform(-30, 30)
            spread = rng.random() < 0.35   # a face-down hand pushed out a little, each card's edge showing
            for k in range(int(rng.integers(2, 9))):
                jitter = rng.normal(0, width * (0.02 if not spread else 0.0), 2)
                shift = along(angle + 90) * k * width * rng.uniform(0.18, 0.3) if spread else 0.0
                placements.append(Placement(back, None, tuple(center + jitter + shift), width,
                                            angle + rng.normal(0, 2 if not spread else 5)))
    elif layout == "beside":
        count = int(rng.integers(3, 8))
        width = size * rng.uniform(0.5, 0.85) / count
        across = -along(base + 90)
        start = np.array([size / 2, size / 2]) - across * (count - 1) / 2 * width * rng.uniform(1.0, 1.08)
        gap = width * rng.uniform(1.0, 1.08)
        for k in range(count):
            image, card = (back, None) if rng.random() < 0.5 else face()
            placements.append(Placement(image, card, tuple(start + across * k * gap + rng.normal(0, width * 0.02, 2)),
                                        width, base + rng.normal(0, 2)))
    elif layout == "far_edge":
        tilt = camera_tilt(rng, size, rng.uniform(0.15, 0.28))
        width = size * rng.uniform(0.07, 0.14)
        for _ in range(int(rng.integers(3, 10))):
            image, card = (back, None) if rng.random() < 0.7 else face()
            at = (rng.uniform(0.08, 0.92) * size, rng.uniform(0.03, 0.3) * size)
            placements.append(Placement(image, card, at, width, rng.uniform(0, 360) if rng.random() < 0.3 else base))
    else:  # under_hand
        hands = int(rng.integers(1, 3))
        width = size * rng.uniform(0.15, 0.3)
        for _ in range(int(rng.integers(2, 7))):
            image, card = (back, None) if rng.random() < 0.75 else face()
            placements.append(Placement(image, card, tuple(rng.uniform(0.15, 0.85, 2) * size), width, rng.uniform(0, 360)))
    return placements, tilt, hands


def _draw_hand(rng: np.random.Generator, canvas: np.ndarray, owner: np.ndarray, size: int) -> None:
    import cv2

    skin = np.array([rng.uniform(60, 180), rng.uniform(90, 200), rng.uniform(140, 240)])
    mask = np.zeros((size, size), np.uint8)
    center = rng.uniform(0, 1, 2) * size
    palm = size * rng.uniform(0.08, 0.2)
    cv2.ellipse(mask, tuple(int(v) for v in center), (int(palm), int(palm * 1.2)), rng.uniform(0, 180), 0, 360, 255, -1)
    base_angle = rng.uniform(0, 2 * math.pi)
    for k in range(int(rng.integers(0, 5))):
        a = base_angle + (k - 2) * 0.35
        tip = center + np.array([math.cos(a), math.sin(a)]) * palm * rng.uniform(1.6, 2.4)
        cv2.line(mask, tuple(int(v) for v in center), tuple(int(v) for v in tip), 255, int(max(2, palm * 0.35)))
    shade = rng.uniform(0.8, 1.1, (size, size, 1))
    where = mask > 0
    canvas[where] = np.clip(skin * shade[where], 0, 255).astype(np.uint8)
    owner[where] = -1


def render_scene(rng: np.random.Generator, decks: list[Deck], backs: list[np.ndarray], size: int = 416,
                 placements: list[Placement] | None = None, tilt: np.ndarray | None = None, hands: int | None = None,
                 distractor_rng: np.random.Generator | None = None, card_class: bool = False):
    """One scene: (BGR image, list of (class, x1, y1, x2, y2) in pixels).

    ``card_class``: each face-up card showing at least ``VISIBLE_FRACTION`` of itself is boxed whole too
    (``CARD_CLASS``, the box of what shows); the image is the same either way.

    ``placements``, ``tilt`` and ``hands`` are drawn from ``rng`` unless given (tests fix them).
    With ``distractor_rng``, chips, coins, dice, phones or fanned-card strips
    (:mod:`vision_models.data.distractors`, unlabelled) are drawn from it onto the bare table under the
    cards: ``rng`` is not touched for them, so the labels are those of the scene without them.
    """
    import cv2

    canvas = table_texture(rng, size, size)
    owner = np.full((size, size), -1, np.int32)
    covered = np.zeros((size, size), np.float32)
    if tilt is None:
        tilt = camera_tilt(rng, size, rng.uniform(0.0, 0.12))
    if placements is None:
        placements = _layout(rng, size, decks, backs)
    homographies = []
    footprints: dict[int, np.ndarray] = {}
    for k, placement in enumerate(placements):
        h, w = placement.image.shape[:2]
        matrix = tilt @ card_homography(w, h, placement.center, placement.width, placement.angle, rng)
        homographies.append(matrix)
        warped = cv2.warpPerspective(placement.image, matrix, (size, size), flags=cv2.INTER_AREA if placement.width < w else cv2.INTER_LINEAR)
        alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
        canvas = (canvas * (1 - alpha) + warped[:, :, :3] * alpha).astype(np.uint8)
        owner[alpha[:, :, 0] > 0.5] = k
        if placement.face is None:
            footprints[k] = alpha[:, :, 0] > 0.5
        np.maximum(covered, alpha[:, :, 0], out=covered)
    if distractor_rng is not None:
        from vision_models.data.distractors import draw_distractors

        card_width = float(np.median([p.width for p in placements])) if placements else size * 0.2
        draw_distractors(distractor_rng, canvas, covered, card_width)
    under_cards = owner.copy()   # who shows before any hand: what cards alone hide
    for _ in range(int(rng.choice([0, 0, 1, 2])) if hands is None else hands):
        _draw_hand(rng, canvas, owner, size)

    labels = []
    for k, (placement, matrix) in enumerate(zip(placements, homographies)):
        if placement.face is None or card_class:
            h, w = placement.image.shape[:2]
            quad = apply_homography(matrix, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32))
            full = _polygon_area(quad)
            shown = _without_slivers(owner == k, placement.width)
            visible = float(shown.sum())
        if placement.face is None:
            if full > 0 and _back_labelled(visible / full, float((footprints[k] & (under_cards != k)).sum()) / full):
                ys, xs = np.nonzero(shown)
                labels.append((BACK_CLASS, xs.min(), ys.min(), xs.max() + 1, ys.max() + 1))
            continue
        if card_class and full > 0 and visible / full >= VISIBLE_FRACTION:
            ys, xs = np.nonzero(shown)
            labels.append((CARD_CLASS, xs.min(), ys.min(), xs.max() + 1, ys.max() + 1))
        for points in placement.face.index_points:
            mapped = apply_homography(matrix, points)
            xi, yi = np.floor(mapped[:, 0]).astype(int), np.floor(mapped[:, 1]).astype(int)
            inside = (xi >= 0) & (yi >= 0) & (xi < size) & (yi < size)
            seen = np.zeros(len(mapped), bool)
            seen[inside] = owner[yi[inside], xi[inside]] == k
            if seen.mean() < VISIBLE_FRACTION:
                continue
            box = mapped[seen]
            x1, y1 = box.min(axis=0)
            x2, y2 = box.max(axis=0)
            if x2 - x1 < 3 or y2 - y1 < 3:
                continue  # too small to be readable: teaching it as an index would only add noise
            labels.append((INDEX_CLASS, max(0.0, x1 - 0.5), max(0.0, y1 - 0.5), min(size, x2 + 0.5), min(size, y2 + 0.5)))
    return photometric(rng, canvas), labels


# Thinner than this share of a card's width, what shows of a face-down card is a sliver beside the card
# over it (two cards' edges a pixel or two apart), not a strip a camera reads: a column's labels
# stretched along the whole card with it.
SLIVER_FRACTION = 0.06


def _back_labelled(shown: float, hidden_by_cards: float) -> bool:
    """Whether a face-down card showing ``shown`` of itself, ``hidden_by_cards`` of it under other cards, is a back."""
    if shown >= VISIBLE_FRACTION:
        return True
    hidden_otherwise = 1.0 - shown - hidden_by_cards   # under a hand, or out of the frame
    return shown >= BACK_VISIBLE_FRACTION and hidden_otherwise <= BACK_STRIP_OTHER_COVER


def _without_slivers(mask: np.ndarray, card_width: float) -> np.ndarray:
    import cv2

    side = max(3, int(round(card_width * SLIVER_FRACTION)) | 1)
    kernel = np.ones((side, side), np.uint8)
    return cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, kernel).astype(bool)


def _polygon_area(quad: np.ndarray) -> float:
    x, y = quad[:, 0], quad[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))))


def yolo_lines(labels, width: int, height: int) -> list[str]:
    lines = []
    for cls, x1, y1, x2, y2 in labels:
        lines.append(f"{cls} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} {(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")
    return lines


# The distractors' own random stream per scene: ``[seed, i, DISTRACTOR_STREAM]`` beside the scene's ``[seed, i]``.
DISTRACTOR_STREAM = 7


def write_scenes(out_dir: Path, decks: list[Deck], backs: list[np.ndarray], count: int, seed: int, size: int = 416,
                 start: int = 0, distractor_share: float = 0.0, backs_only: bool = False, card_class: bool = False) -> None:
    """Write ``images/scene_NNNNNN.jpg`` and ``labels/scene_NNNNNN.txt``; existing files are kept (cache).

    ``distractor_share`` of the scenes (chosen per scene from its own stream) also show things
    that are not cards (:mod:`vision_models.data.distractors`; ``DISTRACTOR_SHARE`` there is the recipe's
    share); 0 gives the scenes the shipped weights were trained on. ``backs_only``: scenes of
    :func:`back_layout` (face-down cards as players lay them), named ``backscene_...``.
    """
    if not 0.0 <= distractor_share <= 1.0:
        raise ValueError(f"distractor_share must be in [0, 1], got {distractor_share}")
    import cv2

    (out_dir / "images").mkdir(parents=True, exist_ok=True)
    (out_dir / "labels").mkdir(parents=True, exist_ok=True)
    for i in progress(range(start, start + count), f"scenes {out_dir.name}"):
        name = f"{'backscene' if backs_only else 'scene'}_{seed}_{i:06d}"
        label_file = out_dir / "labels" / f"{name}.txt"
        if label_file.exists():
            continue
        rng = np.random.default_rng([seed, i])
        distractor_rng = np.random.default_rng([seed, i, DISTRACTOR_STREAM])
        with_distractors = distractor_share > 0 and distractor_rng.random() < distractor_share
        placements, tilt, hands = back_layout(rng, size, decks, backs) if backs_only else (None, None, None)
        image, labels = render_scene(rng, decks, backs, size, placements=placements, tilt=tilt, hands=hands,
                                     distractor_rng=distractor_rng if with_distractors else None, card_class=card_class)
        cv2.imwrite(str(out_dir / "images" / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        label_file.write_text("\n".join(yolo_lines(labels, size, size)) + ("\n" if labels else ""))


# --------------------------------------------------------------------------- classifier crops


def crop_box(image: np.ndarray, box, expand: float = CROP_EXPAND, size: int = CROP_SIZE) -> np.ndarray:
    """The contract's crop: box grown by ``expand`` of its width/height per side, stretched to size x size."""
    import cv2

    x1, y1, x2, y2 = box
    bw, bh = x2 - x1, y2 - y1
    x1, x2 = x1 - expand * bw, x2 + expand * bw
    y1, y2 = y1 - expand * bh, y2 + expand * bh
    # sample with an affine map so boxes running off the image are padded, not shifted
    source = np.array([[x1, y1], [x2, y1], [x1, y2]], np.float32)
    target = np.array([[0, 0], [size, 0], [0, size]], np.float32)
    matrix = cv2.getAffineTransform(source, target)
    return cv2.warpAffine(image, matrix, (size, size), flags=cv2.INTER_AREA if bw > size else cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def jitter_box(rng: np.random.Generator, box, amount: float = 0.08):
    """A box as an imperfect detector would draw it."""
    x1, y1, x2, y2 = box
    bw, bh = x2 - x1, y2 - y1
    d = rng.normal(0, amount, 4)
    return (x1 + d[0] * bw, y1 + d[1] * bh, x2 + d[2] * bw, y2 + d[3] * bh)


def render_index_crop(rng: np.random.Generator, face: Face, corner: int, background: np.ndarray) -> np.ndarray:
    """One classifier crop of a card's corner index, the index within +-45 degrees of upright."""
    import cv2

    h, w = face.image.shape[:2]
    bx1, by1, bx2, by2 = face.index_boxes[corner]
    index_h = by2 - by1
    target_h = math.exp(rng.uniform(math.log(12), math.log(56)))  # index height in camera pixels
    card_width = w * target_h / index_h
    upright = 0.0 if corner == 0 else 180.0
    angle = upright + rng.uniform(-45, 45)
    canvas_size = 160
    # put the index centre at the canvas centre
    probe = card_homography(w, h, (0, 0), card_width, angle, rng, skew=0.05)
    index_center = apply_homography(probe, np.array([[(bx1 + bx2) / 2, (by1 + by2) / 2]], np.float32))[0]
    shift = np.array([[1, 0, canvas_size / 2 - index_center[0]], [0, 1, canvas_size / 2 - index_center[1]], [0, 0, 1]], np.float32)
    matrix = shift @ probe
    warped = cv2.warpPerspective(face.image, matrix, (canvas_size, canvas_size), flags=cv2.INTER_AREA)
    alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
    scene = (background * (1 - alpha) + warped[:, :, :3] * alpha).astype(np.uint8)
    scene = photometric(rng, scene)
    mapped = apply_homography(matrix, face.index_points[corner])
    box = (*mapped.min(axis=0), *mapped.max(axis=0))
    return crop_box(scene, jitter_box(rng, box, 0.06))


def render_none_crop(rng: np.random.Generator, decks: list[Deck], background: np.ndarray) -> np.ndarray:
    """A crop the classifier must call NONE: pips, face art, card edges, backs or bare table."""
    import cv2

    canvas_size = background.shape[0]
    choice = rng.random()
    if choice < 0.25:
        scene = photometric(rng, background)
    else:
        deck = decks[rng.integers(0, len(decks))]
        image = deck.back if choice < 0.35 or not deck.faces else list(deck.faces.values())[rng.integers(0, len(deck.faces))].image
        h, w = image.shape[:2]
        width = w * rng.uniform(0.3, 1.2)
        matrix = card_homography(w, h, rng.uniform(0.2, 0.8, 2) * canvas_size, width, rng.uniform(0, 360), rng)
        warped = cv2.warpPerspective(image, matrix, (canvas_size, canvas_size), flags=cv2.INTER_AREA)
        alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
        scene = photometric(rng, (background * (1 - alpha) + warped[:, :, :3] * alpha).astype(np.uint8))
        # avoid the corner indices: their crops belong to a code, not to NONE
        owner_points = []
        face = next((f for f in deck.faces.values() if f.image is image), None)
        if face is not None:
            for points in face.index_points:
                owner_points.append(apply_homography(matrix, points))
        for _ in range(20):
            bh = rng.uniform(10, 50)
            bw = bh * rng.uniform(0.4, 0.9)
            x1, y1 = rng.uniform(0, canvas_size - bw), rng.uniform(0, canvas_size - bh)
            box = (x1, y1, x1 + bw, y1 + bh)
            if not any(_overlap(box, pts) > 0.3 for pts in owner_points):
                return crop_box(scene, box)
    bh = rng.uniform(10, 50)
    bw = bh * rng.uniform(0.4, 0.9)
    x1, y1 = rng.uniform(0, canvas_size - bw), rng.uniform(0, canvas_size - bh)
    return crop_box(scene, (x1, y1, x1 + bw, y1 + bh))


def _overlap(box, points: np.ndarray) -> float:
    """Fraction of the index's ink points that fall inside box."""
    x1, y1, x2, y2 = box
    inside = (points[:, 0] >= x1) & (points[:, 0] <= x2) & (points[:, 1] >= y1) & (points[:, 1] <= y2)
    return float(inside.mean()) if len(points) else 0.0


def procedural_deck(style_seed: int = 0, width: int = 120) -> Deck:
    """The project's drawn deck as an in-memory ``Deck`` (no rendered artwork needed: tests use it)."""
    from companion.synthetic import deck as procedural

    from vision_models.data.artwork import FACE_CELLS

    height = round(width * 1.4)
    alpha = procedural.card_mask(width, height)
    faces = {}
    for code, _, _ in FACE_CELLS:
        image = np.dstack([procedural.render_card(code, width, height, style_seed=style_seed), alpha])
        boxes = [tuple(int(v) for v in b) for b in procedural.index_boxes(code, width, height)]
        faces[code] = Face(code, image, [_ink_points(image, b) for b in boxes], boxes)
    back = np.dstack([procedural.render_card("BACK", width, height, style_seed=style_seed), alpha])
    return Deck(f"procedural_{style_seed}", faces, back)
