"""Learning a deck from a folder of one image per card named by code (``10c.jpg``, ``QH.png``, ``BJ.png``, ``back.png``)."""
from __future__ import annotations

import os
import time

import cv2
import numpy as np

from companion.vision.deck_folder import art_index_fractions, card_images
from companion.vision.decks.photo_reading import facing_turn
from companion.vision.decks.profile import DECK_CODES, STANDARD_CODES, back_histogram, build_profile, self_check
from companion.vision.decks.result import LearnedCard, LearnResult
from companion.vision.decks.store import DeckStore
from companion.messages import Message

# A card scan is laid on a 416 px table at these heights in turn until the detector finds its indices
# (the drawn deck's 10s and jokers are found at 220 px, not at 300).
SCAN_CARD_HEIGHTS = (300, 220, 380, 160)
# A back scan is seen as a camera would see it (back_scan_histograms): cards this tall in pixels (a
# table camera's 70-100 px wide cards, and a close one), under these light gains (the deck check's
# scenes vary light 0.75-1.2), with this much sensor noise (grey levels, standard deviation).
BACK_VIEW_CARD_HEIGHTS = (100, 140, 300)
BACK_VIEW_GAINS = (0.75, 1.0, 1.2)
BACK_VIEW_NOISE = 6.0


def on_table(card: np.ndarray, card_height: int = 300, canvas: int = 416) -> np.ndarray:
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


def back_scan_histograms(image: np.ndarray) -> list[np.ndarray]:
    """The back's colours from a clean scan, as a camera would see the card: at a few sizes and lights, with sensor noise.

    A scan's pattern keeps its colours apart; a camera sees a card 70-100 px wide, where they blend,
    under dimmer or brighter light and with noise. One clean histogram kept only 36 of 81 real backs
    of the held-out lattmann deck (`python -m vision_models.checks.negatives_check --learn-from images`).
    """
    rng = np.random.default_rng(0)
    histograms = []
    for card_height in BACK_VIEW_CARD_HEIGHTS:
        table = on_table(image, card_height, canvas=max(416, card_height + 40))
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
    images = card_images(folder, complete=False)
    from companion.vision.detector import best_rotation
    from companion.vision.grouping import ROTATIONS

    classes = detector.manifest.classifier.classes
    codes, embeddings, colours, backs, problems, cards, general = [], [], [], [], [], [], []
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
            backs += back_scan_histograms(image)
            continue
        boxes = np.zeros((0, 4), np.float32)
        for card_height in SCAN_CARD_HEIGHTS:
            table = on_table(image, card_height)
            raw = detector.detect_boxes(table)
            boxes = raw.boxes[raw.classes == INDEX_CLASS]
            if len(boxes):
                break
        if len(boxes) == 0:
            # the printed place of a corner index, when the detector finds none on the scan
            table = on_table(image, SCAN_CARD_HEIGHTS[0])
            h, w = SCAN_CARD_HEIGHTS[0], image.shape[1] * SCAN_CARD_HEIGHTS[0] / image.shape[0]
            left, top = (table.shape[1] - w) / 2, (table.shape[0] - h) / 2
            boxes = np.array([[left + x1 * w, top + y1 * h, left + x2 * w, top + y2 * h]
                              for x1, y1, x2, y2 in art_index_fractions()], np.float32)
        centre = np.array(table.shape[1::-1], np.float64) / 2
        for box, (turns, probs, embeds), ink in zip(boxes, detector.embed_boxes(table, boxes), detector.ink_colours(table, boxes)):
            middle = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
            full = np.zeros((len(ROTATIONS), len(classes)), np.float32)
            for row, turn in enumerate(turns):
                full[ROTATIONS.index(turn)] = probs[row]
            general.append(best_rotation(full, classes))
            codes.append(code)
            embeddings.append(embeds[facing_turn(middle, centre - middle, turns)])
            colours.append(ink)
        cards.append(LearnedCard(photo, tuple(float(v) for v in boxes[0]), list(range(len(boxes))), code, True, 99.0))
    profile = None
    if codes:
        profile = build_profile(name, codes, embeddings, backs, {
            "created": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "photos": [str(folder)],
            "source": "card images", "cards": len(set(codes))}, colours)
        profile.info["self_check"] = self_check(profile, general)
        profile.info["learn_seconds"] = round(time.perf_counter() - start, 2)
    result = LearnResult(name, [path.name for _, path in ordered], cards, problems, profile, time.perf_counter() - start)
    missing = [c for c in STANDARD_CODES if c not in images]
    if missing:
        # A partial folder still teaches the cards it shows; the general models read the others.
        result.more_notes.append(Message("no image of %(cards)s in the folder: those cards are read by the general models",
                                         cards=" ".join(missing)))
    return result
