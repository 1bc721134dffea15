"""Cards the index detector misses entirely, and whether a whole-card proposal reads them from the card's corners.

    python -m vision_models.checks.card_proposal_check                  # rf100-test and rf100-valid
    python -m vision_models.checks.card_proposal_check --source rf100-test --json var/card-proposal.json

Measured on real photos with whole-card labels (poker-cards-rf100, 321 photos of one deck on cloths
and tables, fans and overlaps: ``vision_models.checks.real_check``'s ``rf100-*`` sources, labels renumbered
as there). For every labelled card:

* **outlined**: a card some proposal outlines (box IoU at least ``MATCH_IOU``), the proposal's own recall;
* **missed entirely**: no index box the detector found (any code, NONE included) has its centre in
  the card's labelled box; **not read**: no reading of the card's own code there; **missed
  outlined**: a missed card that some proposal outlines (box IoU at least ``MATCH_IOU``).

The proposal (:func:`propose_cards`, OpenCV only): a card face is a bright, unsaturated, card-shaped
region. Pixels of low saturation and high value (above the photo's own Otsu level) are closed into
blobs; a blob becomes a proposal when its minimum-area rectangle is card-shaped (long/short side
within ``CARD_ASPECT``) and filled (convex hull area over rectangle area at least ``MIN_FILL``), and
large enough (``MIN_AREA_SHARE`` of the photo). Each proposal is warped upright (portrait) and its
four corners are cut where a corner index sits (``INDEX_REGION`` of the card, the top two as they
are and the bottom two turned half a turn: two-index decks print them top-left and bottom-right,
four-index decks all four) and read by the shipped classifier at its plausible turns; the most
confident face read is the proposal's code.

A proposal is only news where the index path found nothing: **proposal-only** proposals hold no
index box centre. They are scored against the labelled cards by box overlap (IoU of the axis-aligned
boxes at least ``MATCH_IOU``): *recovered* (a card the index path did not read, read right),
*misread* (a labelled card, wrong code), *phantom* (no labelled card there, a code read anyway).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

CARD_ASPECT = (1.25, 1.7)     # a poker card is 88/63 = 1.40 on its long side; perspective and bridge size widen it
# a lone card's hull less its rounded corners and edge-touching indices (down to 0.8 on a four-index deck);
# overlapping cards fill less
MIN_FILL = 0.78
MIN_AREA_SHARE = 0.004        # of the photo: smaller blobs are pips, glare, paper scraps
MAX_AREA_SHARE = 0.5
SATURATION_MAX = 70           # card stock is near-grey; felts, wood and cloths are coloured
WHITE_SHARE = 0.72            # of the 99.5th percentile of value: what still counts as the card's white
KERNEL_SHARE = 0.01           # of the photo's short side: closing/opening kernel
MATCH_IOU = 0.5
WARP_SIZE = (240, 336)        # an upright card's warp, 63:88
# Where a corner index sits on an upright card, as a share of the card (x1, y1, x2, y2): the print
# varies by deck, so a few sizes around it are tried and the surest read kept.
INDEX_REGION = (0.015, 0.015, 0.175, 0.26)
REGION_SCALES = (0.8, 1.0, 1.25)


def _order_portrait(box: np.ndarray) -> np.ndarray:
    """The rectangle's corners clockwise from a top-left, its first side the short one (a portrait card)."""
    centre = box.mean(axis=0)
    angles = np.arctan2(box[:, 1] - centre[1], box[:, 0] - centre[0])
    points = box[np.argsort(angles)]                      # clockwise in image coordinates (y down)
    if np.linalg.norm(points[1] - points[0]) > np.linalg.norm(points[2] - points[1]):
        points = np.roll(points, -1, axis=0)              # start so that 0->1 is a short side
    return points.astype(np.float32)


def propose_cards(frame: np.ndarray) -> list[np.ndarray]:
    """Card-shaped bright regions of a BGR frame: each a 4×2 float array of corners (clockwise, portrait)."""
    height, width = frame.shape[:2]
    hsv = cv2.cvtColor(cv2.GaussianBlur(frame, (5, 5), 0), cv2.COLOR_BGR2HSV)
    saturation, value = hsv[..., 1], hsv[..., 2]
    # Card stock is the photo's white: Otsu alone splits "light" from "dark" and takes a pale cloth or
    # a grey couch with the cards, so the level is also held near the brightest pixels' value.
    otsu, _ = cv2.threshold(value, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    level = max(otsu, WHITE_SHARE * float(np.percentile(value, 99.5)))
    mask = ((saturation < SATURATION_MAX) & (value > level)).astype(np.uint8) * 255
    side = max(3, int(round(KERNEL_SHARE * min(height, width))) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)   # the pips and index ink are holes in a card
    # cards touching at a corner, or a bright seam between them, would merge: opening cuts thin necks
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * side + 1, 2 * side + 1)))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    proposals = []
    for contour in contours:
        filled = cv2.contourArea(cv2.convexHull(contour))
        if not MIN_AREA_SHARE * width * height <= filled <= MAX_AREA_SHARE * width * height:
            continue
        (cx, cy), (w, h), angle = cv2.minAreaRect(contour)
        if min(w, h) <= 0:
            continue
        aspect = max(w, h) / min(w, h)
        if not CARD_ASPECT[0] <= aspect <= CARD_ASPECT[1]:
            continue
        if filled / (w * h) < MIN_FILL:   # the hull: index ink at a card's edge bites into its outline
            continue
        proposals.append(_order_portrait(cv2.boxPoints(((cx, cy), (w, h), angle))))
    return proposals


def corner_boxes(size: tuple[int, int] = WARP_SIZE) -> list[tuple[float, float, float, float]]:
    """Index boxes in the upright warp: top-left and top-right as printed, and the bottom two (read turned)."""
    width, height = size
    x1, y1, x2, y2 = INDEX_REGION
    boxes = []
    for scale in REGION_SCALES:
        w, h = (x2 - x1) * scale, (y2 - y1) * scale
        for left, top in ((x1, y1), (1 - x1 - w, y1), (1 - x1 - w, 1 - y1 - h), (x1, 1 - y1 - h)):
            boxes.append((left * width, top * height, (left + w) * width, (top + h) * height))
    return boxes


def read_proposal(detector, frame: np.ndarray, quad: np.ndarray) -> tuple[str | None, float]:
    """The proposal's code (None: no corner reads as a face) and the classifier's confidence."""
    width, height = WARP_SIZE
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    warp = cv2.warpPerspective(frame, cv2.getPerspectiveTransform(quad, target), (width, height))
    best: tuple[str | None, float] = (None, 0.0)
    for code, confidence, _ in detector.classify_boxes(warp, np.array(corner_boxes(), np.float32)):
        if code is not None and confidence > best[1]:
            best = (code, confidence)
    return best


def _inside(point, box) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def _iou(a, b) -> float:
    x1, y1, x2, y2 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    inter = max(0.0, x2 - x1) * max(0.0, y2 - y1)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def check_photo(detector, photo, min_confidence: float = 0.5) -> dict:
    from companion.vision import load_image
    from vision_models.checks.real_check import truth_of

    frame = load_image(photo.path)
    height, width = frame.shape[:2]
    cards = [(card.code, card.parts[0].box) for card in truth_of(photo, width, height) if card.code != "BACK"]
    reading = detector.read(frame)
    centres = [((r.box[0] + r.box[2]) / 2, (r.box[1] + r.box[3]) / 2, r.code) for r in reading.indices]
    missed = [not any(_inside(c[:2], box) for c in centres) for _, box in cards]
    unread = [not any(_inside(c[:2], box) and c[2] == code for c in centres) for code, box in cards]
    counts = {"cards": len(cards), "missed_entirely": sum(missed), "not_read": sum(unread), "proposals": 0,
              "proposal_only": 0, "recovered_missed": 0, "recovered_unread": 0, "misread": 0, "phantom": 0,
              "read_none": 0, "duplicate": 0}
    quads = propose_cards(frame)
    counts["proposals"] = len(quads)
    boxes = [(*quad.min(axis=0), *quad.max(axis=0)) for quad in quads]
    # how many cards, and how many of the missed ones, a proposal even outlines (whatever it then reads):
    # the proposal's own recall, apart from the classifier's reading of its corners
    outlined = [any(_iou(box, card_box) >= MATCH_IOU for box in boxes) for _, card_box in cards]
    counts["outlined"] = sum(outlined)
    counts["missed_outlined"] = sum(1 for hit, gone in zip(outlined, missed) if hit and gone)
    for quad in quads:
        box = (*quad.min(axis=0), *quad.max(axis=0))
        polygon = quad.reshape(-1, 1, 2)
        if any(cv2.pointPolygonTest(polygon, (float(c[0]), float(c[1])), False) >= 0 for c in centres):
            continue                                       # the index path already reads this card
        counts["proposal_only"] += 1
        code, confidence = read_proposal(detector, frame, quad)
        if code is None or confidence < min_confidence:
            counts["read_none"] += 1
            continue
        match = max(range(len(cards)), key=lambda k: _iou(box, cards[k][1]), default=None)
        if match is None or _iou(box, cards[match][1]) < MATCH_IOU:
            counts["phantom"] += 1
        elif cards[match][0] != code:
            counts["misread"] += 1
        elif unread[match]:
            counts["recovered_unread"] += 1
            counts["recovered_missed"] += int(missed[match])
        else:
            counts["duplicate"] += 1   # right, but the index path had read that card already (its index outside the quad)
    return counts


def main(argv: list[str] | None = None) -> int:
    from companion.vision import Detector
    from vision_models.checks.real_check import photos_of

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", action="append", default=None,
                        help="real_check sources with whole-card labels (default: rf100-test, rf100-valid)")
    parser.add_argument("--weights", default=None)
    parser.add_argument("--min-confidence", type=float, default=0.5, help="a proposal's corner read below this is no card")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    sources = args.source or ["rf100-test", "rf100-valid"]
    detector = Detector.load(args.weights, tile="auto")
    totals: dict[str, dict[str, int]] = {}
    photos = photos_of(sources)
    for n, photo in enumerate(photos, 1):
        if photo.labels != "whole":
            raise SystemExit(f"{photo.source}: card_proposal_check needs whole-card labels")
        counts = check_photo(detector, photo, args.min_confidence)
        for key in (photo.source, "all"):
            total = totals.setdefault(key, {})
            for name, value in counts.items():
                total[name] = total.get(name, 0) + value
            total["photos"] = total.get("photos", 0) + 1
        if n % 50 == 0 or n == len(photos):
            print(f"[card proposals] {n}/{len(photos)} photos", file=sys.stderr, flush=True)
    totals["all"] = totals.pop("all")                      # the sum after its sources
    columns = ("photos", "cards", "outlined", "missed_entirely", "missed_outlined", "not_read", "proposals", "proposal_only", "recovered_missed",
               "recovered_unread", "misread", "phantom", "read_none", "duplicate")
    print("| source | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    for source, total in totals.items():
        print(f"| {source} | " + " | ".join(str(total.get(c, 0)) for c in columns) + " |")
    if args.json is not None:
        args.json.write_text(json.dumps(totals, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
