"""Learning a deck from a folder of one image per card named by code (``10c.jpg``, ``QH.png``, ``BJ.png``, ``back.png``)."""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.vision.deck_folder import art_index_fractions, card_images
from companion.vision.decks.photo_reading import facing_turn
from companion.vision.decks.profile import DECK_CODES, STANDARD_CODES, DeckError, back_histogram, build_profile, self_check
from companion.vision.decks.result import COMMAND_LINE_ADVICE, Advice, LearnedCard, LearnResult
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
    """A card scan (BGR or BGRA) laid on a plain grey-green table (``canvas`` px square, wider for a wide
    image), scaled so its indices are the size the detector knows."""
    if card.ndim == 2:
        card = cv2.cvtColor(card, cv2.COLOR_GRAY2BGR)
    scale = card_height / card.shape[0]
    card = cv2.resize(card, (max(8, round(card.shape[1] * scale)), card_height), interpolation=cv2.INTER_AREA)
    h, w = card.shape[:2]
    # a landscape photo of one card is wider than it is tall: the table grows to hold it
    table = np.full((max(canvas, h), max(canvas, w), 3), (70, 110, 60), np.uint8)
    y, x = (table.shape[0] - h) // 2, (table.shape[1] - w) // 2
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


@dataclass
class CardScan:
    """What the models see in one card's image (a scan of a folder, or a phone's photo of one card):
    each corner index found (its embedding at the turn it faces, its ink colours, the general models'
    reading) and, per deck code, how unlikely the classifier finds the card to be it."""

    code: str | None                 # from the file name ("4S.jpg"), "BACK", or None: named by the classifier
    box: tuple[float, float, float, float]    # the first index, in the photo's own pixels
    embeddings: list[np.ndarray] = field(default_factory=list)
    colours: list[np.ndarray] = field(default_factory=list)
    general: list[tuple] = field(default_factory=list)
    costs: np.ndarray | None = None  # -log p of each DECK_CODES code, the best over the indices and turns
    found: bool = False              # the detector found an index (else the printed places were read)
    backs: list[np.ndarray] = field(default_factory=list)   # a back's colours (code BACK)

    def guesses(self, count: int = 3) -> list[str]:
        return [DECK_CODES[k] for k in np.argsort(self.costs)[:count]] if self.costs is not None else []


def read_card_image(detector, image: np.ndarray, code: str | None) -> CardScan:
    """One card's image as ``companion deck learn DIR`` reads each of its files: laid on a 416 px table at
    ``SCAN_CARD_HEIGHTS`` in turn until the detector finds its indices (else the indices' printed place)."""
    from companion.vision.detector import INDEX_CLASS, best_rotation
    from companion.vision.grouping import ROTATIONS

    if code == "BACK":
        return CardScan("BACK", (0.0, 0.0, float(image.shape[1]), float(image.shape[0])), backs=back_scan_histograms(image))
    classes = detector.manifest.classifier.classes
    columns = [classes.index(c) if c in classes else None for c in DECK_CODES]
    boxes = np.zeros((0, 4), np.float32)
    for card_height in SCAN_CARD_HEIGHTS:
        table = on_table(image, card_height)
        raw = detector.detect_boxes(table)
        boxes = raw.boxes[raw.classes == INDEX_CLASS]
        if len(boxes):
            break
    found = bool(len(boxes))
    if not found:
        # the printed place of a corner index, when the detector finds none on the scan
        card_height = SCAN_CARD_HEIGHTS[0]
        table = on_table(image, card_height)
        h, w = card_height, image.shape[1] * card_height / image.shape[0]
        left, top = (table.shape[1] - w) / 2, (table.shape[0] - h) / 2
        boxes = np.array([[left + x1 * w, top + y1 * h, left + x2 * w, top + y2 * h]
                          for x1, y1, x2, y2 in art_index_fractions()], np.float32)
    scale = image.shape[0] / card_height
    offset = np.array([(table.shape[1] - image.shape[1] / scale) / 2, (table.shape[0] - card_height) / 2] * 2)
    first = (boxes[0] - offset) * scale
    scan = CardScan(code, tuple(float(v) for v in first), found=found)
    centre = np.array(table.shape[1::-1], np.float64) / 2
    best = np.zeros(len(DECK_CODES))
    for box, (turns, probs, embeds), ink in zip(boxes, detector.embed_boxes(table, boxes), detector.ink_colours(table, boxes)):
        middle = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
        full = np.zeros((len(ROTATIONS), len(classes)), np.float32)
        for row, turn in enumerate(turns):
            full[ROTATIONS.index(turn)] = probs[row]
        scan.general.append(best_rotation(full, classes))
        scan.embeddings.append(embeds[facing_turn(middle, centre - middle, turns)])
        scan.colours.append(ink)
        best = np.maximum(best, [full[:, c].max() if c is not None else 0.0 for c in columns])
    scan.costs = -np.log(np.clip(best, 1e-6, 1.0))
    return scan


def learn_from_card_scans(name: str, scans: list[tuple[str, CardScan]], info: dict, corrections: dict[int, str] | None = None,
                          seconds: float = 0.0, advice: Advice = COMMAND_LINE_ADVICE) -> LearnResult:
    """Learn a deck from one image per card, as read by :func:`read_card_image`: a card named by its file
    name is that card; the others (a phone's ``IMG_0001.jpg``) are named by the classifier, each code
    once over all images, and those it cannot place surely are asked (``corrections`` names them, by
    their number in the result's ``cards``). ``info`` goes into the profile (``photos``, ``source``)."""
    from companion.vision.decks.assignment import SURE_MARGIN, assign

    DeckStore.check_name(name)
    start = time.perf_counter()
    corrections = dict(corrections or {})
    for code in corrections.values():
        if code not in DECK_CODES:
            raise DeckError(Message('%(code)s is not a card code (e.g. AS, 10H, QD, BJ)', code=repr(code)))
    cards_at = [k for k, (_label, scan) in enumerate(scans) if scan.code != "BACK"]
    cards: list[LearnedCard] = [LearnedCard(k, scans[k][1].box, list(range(len(scans[k][1].embeddings))), scans[k][1].code,
                                            True, 99.0, scans[k][1].guesses()) for k in cards_at]
    for number in corrections:
        if not 0 <= number < len(cards):
            raise DeckError(Message("there is no card number %(number)s (the photos show %(count)s cards, numbered from 0)",
                                    number=number, count=len(cards)))
    problems: list[Message] = []
    fixed = {number: corrections.get(number) or card.code for number, card in enumerate(cards) if corrections.get(number) or card.code}
    named: dict[str, list[int]] = {}
    for number, code in fixed.items():
        named.setdefault(code, []).append(number)
    for code, numbers in named.items():
        if len(numbers) > 1:
            problems.append(Message("two photos of %(code)s: %(photos)s (one photo of each card)", code=code,
                                    photos=[scans[cards[k].photo][0] for k in numbers]))
            for k in numbers[1:]:
                del fixed[k]
                cards[k].code, cards[k].sure = None, False
    unnamed = [k for k in range(len(cards)) if k not in fixed and cards[k].code is None]
    if unnamed:
        costs = np.asarray([scans[cards[k].photo][1].costs for k in range(len(cards))])
        placed, margins = assign(costs, {k: code for k, code in fixed.items()})
        for k in unnamed:
            cards[k].code = DECK_CODES[placed[k]] if placed[k] is not None else None
            cards[k].margin = float(min(margins[k], 99.0))
            cards[k].sure = bool(cards[k].code is not None and margins[k] >= SURE_MARGIN and scans[cards[k].photo][1].found)
    for number, code in corrections.items():
        cards[number].code, cards[number].sure = code, True
    asked = [k for k, card in enumerate(cards) if not card.sure]
    if asked:
        listed = [Message("#%(number)s read %(code)s?", number=k, code=cards[k].code) if cards[k].code else
                  Message("#%(number)s not placed", number=k) for k in asked[:12]]
        problems.append(Message("not sure of %(count)s cards: %(cards)s%(more)s (%(advice)s)", count=len(asked), cards=listed,
                                more=" …" if len(asked) > 12 else "", advice=Message(advice.name_cards)))
    codes, embeddings, colours, general = [], [], [], []
    for card in cards:
        if not (card.code and card.sure):
            continue
        scan = scans[card.photo][1]
        codes += [card.code] * len(scan.embeddings)
        embeddings += scan.embeddings
        colours += scan.colours
        general += scan.general
    backs = [hist for _label, scan in scans for hist in scan.backs]
    profile = None
    if codes:
        profile = build_profile(name, codes, embeddings, backs, {
            "created": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
            **info, "cards": len(set(codes))}, colours)
        profile.info["self_check"] = self_check(profile, general)
    seconds += time.perf_counter() - start
    if profile is not None:
        profile.info["learn_seconds"] = round(seconds, 2)
    result = LearnResult(name, [label for label, _scan in scans], cards, problems, profile, seconds)
    missing = [c for c in STANDARD_CODES if c not in set(codes)]
    if missing:
        # A partial deck still teaches the cards it shows; the general models read the others.
        result.more_notes.append(Message(advice.no_image_of, cards=" ".join(missing)))
    return result


def learn_from_folder(detector, folder: str | os.PathLike, name: str, corrections: dict[int, str] | None = None) -> LearnResult:
    """Learn a deck from one image per card named by code (``10c.jpg``, ``QH.png``, ``BJ.png``, ``back.png``)."""
    from companion.vision.frames import ImageError, load_image

    DeckStore.check_name(name)
    start = time.perf_counter()
    images = card_images(folder, complete=False)
    ordered = sorted(images.items(), key=lambda item: DECK_CODES.index(item[0]) if item[0] in DECK_CODES else 99)
    scans = []
    for code, path in ordered:
        image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if image is None:
            load_image(path)    # says why, naming the file, in the reader's language
            raise ImageError(Message("%(name)s: not a readable image (corrupt, truncated, or not a photo format)", name=str(path)))
        scans.append((path.name, read_card_image(detector, image, code)))
    return learn_from_card_scans(name, scans, {"photos": [str(folder)], "source": "card images"}, corrections,
                                 time.perf_counter() - start)
