"""Learning a deck from photos of it, every card face up once per photo (or once over all photos: ``parts``).

A photo of a whole deck labels itself: each card appears once, so readings are assigned to codes
under that constraint (:mod:`companion.vision.decks.assignment`), and what the assignment cannot
place surely is listed for the player to re-photograph or name; a card in twice
(:mod:`companion.vision.decks.copies`) is named and blocks saving like a missing card.
"""
from __future__ import annotations

import time

import numpy as np

from companion.vision.decks.assignment import SURE_MARGIN, assign
from companion.vision.decks.copies import two_copies
from companion.vision.decks.photo_reading import PhotoReading, cards_of_photo, read_photos
from companion.vision.decks.profile import DECK_CODES, STANDARD_CODES, build_profile
from companion.vision.decks.result import LearnedCard, LearnResult
from companion.vision.decks.store import DeckStore

# More cards than this found in one photo (or the parts together) is more than one deck. Not 60:
# a normal deal of the drawn deck in overlapping rows is found as 62 cards (corners left unpaired,
# deck_scenes seed 0); two decks give over 100. A second copy of a card is named by two_copies.
MORE_THAN_ONE_DECK = 81


def pairs_to_split(read: list[PhotoReading], parts: bool) -> list[set[tuple[int, ...]]]:
    """Pairs the grouping made that the assignment cannot place as one card: two neighbours' indices.

    In a spread deck one card's top index sits near the next card's, and a misread can make them
    look like one card's two corners. Such a pair fits no code well, so it is left unplaced; read
    as two cards, each finds its code.
    """
    split: list[set[tuple[int, ...]]] = [set() for _ in read]
    cards, costs = [], []
    for photo, reading in enumerate(read):
        found, cost, _ = cards_of_photo(photo, reading)
        cards += found
        costs += cost
    groups = [list(range(len(cards)))] if parts else [[k for k, c in enumerate(cards) if c.photo == p] for p in range(len(read))]
    for group in groups:
        if not group:
            continue
        placed, _ = assign(np.asarray([costs[k] for k in group]), {}, [len(cards[k].readings) == 1 for k in group])
        for local, k in enumerate(group):
            if placed[local] is None and len(cards[k].readings) == 2:
                split[cards[k].photo].add(tuple(cards[k].readings))
    return split



def learn_from_photos(detector, photos: list[tuple[str, np.ndarray]], name: str, parts: bool = False,
                      corrections: dict[int, str] | None = None,
                      readings: list[PhotoReading] | None = None) -> LearnResult:
    """Learn a deck from photos of it, every card face up once per photo (or once over all photos: ``parts``).

    ``corrections`` names cards by their number in an earlier result's ``cards`` (the same photos in
    the same order give the same numbering): those are placed as told. ``readings``: the photos'
    :func:`read_photos` from before, to learn again without reading them again.
    """
    DeckStore.check_name(name)
    if not photos:
        raise ValueError("no photos given: photograph the whole deck face up (each card once)")
    start = time.perf_counter()
    corrections = dict(corrections or {})
    for code in corrections.values():
        if code not in DECK_CODES:
            raise ValueError(f"{code!r} is not a card code (e.g. AS, 10H, QD, BJ)")
    read = readings if readings is not None else read_photos(detector, photos)
    problems: list[str] = []
    cards: list[LearnedCard] = []
    costs: list[np.ndarray] = []
    rows: list[list[list[int]]] = []
    split = pairs_to_split(read, parts)
    for photo, (label, _) in enumerate(photos):
        found, cost, turn_rows = cards_of_photo(photo, read[photo], split[photo])
        if not found:
            problems.append(f"{label}: no cards found (is the deck face up, in focus and in the light?)")
        cards += found
        costs += cost
        rows += turn_rows
    for number in corrections:
        if not 0 <= number < len(cards):
            raise ValueError(f"there is no card number {number} (the photos show {len(cards)} cards, numbered from 0)")
    groups = [list(range(len(cards)))] if parts else [
        [k for k, card in enumerate(cards) if card.photo == photo] for photo in range(len(photos))]
    for group in groups:
        if not group:
            continue
        label = "the photos together" if parts else photos[cards[group[0]].photo][0]
        if len(group) > MORE_THAN_ONE_DECK:
            problems.append(f"{label}: {len(group)} cards found, more than one deck holds: "
                            "two decks, or a card in twice? Photograph one deck, each card once")
        fixed = {group.index(k): code for k, code in corrections.items() if k in group}
        codes_fixed = list(fixed.values())
        if len(set(codes_fixed)) < len(codes_fixed):
            raise ValueError("the corrections name one code for two cards: each card is in the deck once")
        placed, margins = assign(np.asarray([costs[k] for k in group]), fixed, [len(cards[k].readings) == 1 for k in group])
        for local, k in enumerate(group):
            cards[k].code = DECK_CODES[placed[local]] if placed[local] is not None else None
            cards[k].margin = float(min(margins[local], 99.0))
            cards[k].sure = bool(cards[k].code is not None and margins[local] >= SURE_MARGIN)
            if k in corrections:
                cards[k].sure = True
        for code, numbers in two_copies(read, cards, costs, group, corrections):
            where = (f"cards {' and '.join(f'#{k}' for k in numbers)}" if len(numbers) > 1
                     else f"card #{numbers[0]} is two cards side by side")
            problems.append(f"{label}: two copies of {code}? ({where}) — photograph one deck, each card once "
                            f"(or name the card that is not {code} with --set NUMBER=CODE)")
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
            problems.append(f"not found: {' '.join(not_found)} (photograph the whole deck, each card's corner index "
                            "visible; or, with --parts, add a photo of the missing cards)")
        if unsure:
            problems.append(f"not sure of {len(unsure)} cards: " + ", ".join(
                f"#{k} read {cards[k].code}?" for k in unsure[:12]) + (" …" if len(unsure) > 12 else "")
                + " (name them with --set NUMBER=CODE, or add another photo)")
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
