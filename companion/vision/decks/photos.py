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
from companion.vision.decks.photo_reading import CARD_EXTENT_SHARE, PhotoReading, cards_of_photo, read_photos
from companion.vision.grouping import CORNER_SPAN
from companion.vision.decks.profile import DECK_CODES, STANDARD_CODES, DeckError, build_profile, self_check
from companion.vision.decks.result import COMMAND_LINE_ADVICE, Advice, LearnedCard, LearnResult
from companion.vision.decks.store import DeckStore
from companion.messages import Message

# More cards than this found in one photo (or the parts together) is more than one deck. Not 60:
# a normal deal of the drawn deck in overlapping rows is found as 62 cards (corners left unpaired,
# deck_scenes seed 0); two decks give over 100. A second copy of a card is named by two_copies.
MORE_THAN_ONE_DECK = 81
# A lone box this many times smaller than the photo's median index is no corner index (small_lone_boxes);
# looser than the grouping's one-card size ratio (1.3), so a corner partly hidden in a row still counts.
SMALL_BOX_RATIO = 1.5


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



def far_second_corners(read: list[PhotoReading], cards: list[LearnedCard], group: list[int], corrections: dict[int, str]) -> None:
    """A code's second holder (a lone corner in the code's second place) is sure only within one card of
    the first: further away it is no corner of that card (a box in a court card's art read as an ace)
    and must teach nothing. "One card": every reading within ``CARD_EXTENT_SHARE`` times the first
    holder's own span (its corners' diagonal; ``CORNER_SPAN`` index sizes for a lone first holder)."""
    holders: dict[tuple[int, str], list[int]] = {}
    for k in group:
        if cards[k].code is not None:
            holders.setdefault((cards[k].photo, cards[k].code), []).append(k)
    for (photo, _code), numbers in holders.items():
        if len(numbers) < 2:
            continue
        first = max(numbers, key=lambda k: (k in corrections, len(cards[k].readings), cards[k].margin))
        index = read[photo].readings
        own = [index[r] for r in cards[first].readings]
        scale = max(r.scale for r in own)
        span = max([float(np.linalg.norm(a.center - b.center)) for a in own for b in own] + [CORNER_SPAN * scale])
        for k in numbers:
            if k == first or k in corrections:
                continue
            furthest = max(float(np.linalg.norm(index[r].center - o.center)) for r in cards[k].readings for o in own)
            if furthest > CARD_EXTENT_SHARE * span:
                cards[k].sure = False


def small_lone_boxes(read: list[PhotoReading], cards: list[LearnedCard], group: list[int], corrections: dict[int, str]) -> None:
    """A card found as one box ``SMALL_BOX_RATIO`` times smaller than the photo's indices teaches nothing:
    one deck's corner indices are of one size in one photo, and a box that small is a pip or a piece of a
    court card's art (a drawn 4000×3000 spread placed one inside the 4 of hearts surely as the big joker)."""
    for photo in {cards[k].photo for k in group}:
        scales = [r.scale for r in read[photo].readings]
        if not scales:
            continue
        median = float(np.median(scales))
        for k in group:
            if cards[k].photo == photo and len(cards[k].readings) == 1 and k not in corrections:
                if read[photo].readings[cards[k].readings[0]].scale * SMALL_BOX_RATIO < median:
                    cards[k].sure = False


def learn_from_photos(detector, photos: list[tuple[str, np.ndarray]], name: str, parts: bool = False,
                      corrections: dict[int, str] | None = None,
                      readings: list[PhotoReading] | None = None, advice: Advice = COMMAND_LINE_ADVICE) -> LearnResult:
    """Learn a deck from photos of it, every card face up once per photo (or once over all photos: ``parts``).

    ``corrections`` names cards by their number in an earlier result's ``cards`` (the same photos in
    the same order give the same numbering): those are placed as told. ``readings``: the photos'
    :func:`read_photos` from before, to learn again without reading them again. ``advice``: how the
    problems tell the player to name a card or add a photo (the command line's flags by default).
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
    split = pairs_to_split(read, parts)
    for photo, (label, _) in enumerate(photos):
        found, cost, turn_rows = cards_of_photo(photo, read[photo], split[photo])
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
        placed, margins = assign(np.asarray([costs[k] for k in group]), fixed, [len(cards[k].readings) == 1 for k in group])
        for local, k in enumerate(group):
            cards[k].code = DECK_CODES[placed[local]] if placed[local] is not None else None
            cards[k].margin = float(min(margins[local], 99.0))
            cards[k].sure = bool(cards[k].code is not None and margins[local] >= SURE_MARGIN)
            if k in corrections:
                cards[k].sure = True
        far_second_corners(read, cards, group, corrections)
        small_lone_boxes(read, cards, group, corrections)
        for code, numbers in two_copies(read, cards, costs, group, corrections):
            where = (Message("cards %(others)s and %(last)s", others=[f"#{k}" for k in numbers[:-1]], last=f"#{numbers[-1]}")
                     if len(numbers) > 1 else Message("card #%(number)s is two cards side by side", number=numbers[0]))
            problems.append(Message("%(photo)s: two copies of %(code)s? (%(where)s) — photograph one deck, each card once (%(advice)s)",
                                    photo=label, code=code, where=where, advice=Message(advice.name_copy, code=code)))
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
            problems.append(Message("not found: %(not_found)s (%(advice)s)", not_found=' '.join(not_found),
                                    advice=Message(advice.add_missing_together if parts else advice.add_missing)))
        if unsure:
            listed = [Message("#%(number)s read %(code)s?", number=k, code=cards[k].code) for k in unsure[:12]]
            problems.append(Message("not sure of %(count)s cards: %(cards)s%(more)s (%(advice)s)",
                                    count=len(unsure), cards=listed, more=" …" if len(unsure) > 12 else "", advice=Message(advice.name_cards)))
    codes, embeddings, colours, general = [], [], [], []
    for k, card in enumerate(cards):
        if not (card.code and card.sure):
            continue
        column = DECK_CODES.index(card.code)
        photo = read[card.photo]
        for reading_index, turn_row in zip(card.readings, rows[k]):
            codes.append(card.code)
            embeddings.append(photo.embeddings[reading_index][turn_row[column]])
            colours.append(photo.colours[reading_index])
            general.append(photo.general[reading_index] if photo.general else (None, 0.0, 0))
    backs = [hist for photo in read for hist in photo.backs]
    profile = None
    if codes:
        profile = build_profile(name, codes, embeddings, backs, {
            "created": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "photos": [label for label, _ in photos],
            "source": "photos" + (" (parts)" if parts else ""), "cards": len({c for c in codes})}, colours)
    if profile is not None:
        profile.info["self_check"] = self_check(profile, general)
    seconds = time.perf_counter() - start
    if profile is not None:
        profile.info["learn_seconds"] = round(seconds, 2)
    return LearnResult(name, [label for label, _ in photos], cards, problems, profile, seconds)
