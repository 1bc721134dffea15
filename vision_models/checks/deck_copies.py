"""The "two copies of a card" check of deck learning: how often a normal whole-deck photo is flagged,
and how often a photo with one card replaced by a second copy of another names that copy.

    python -m vision_models.checks.deck_copies lattmann tigullio neoclassical_4_color plastic

For each held-out deck (artwork rendered by ``vision_models.data.artwork`` into ``var/artwork/<deck>``) it
renders whole-deck spreads (``vision_models.data.deck_scenes.spread_photo``, seeds 0..N-1), the same
spreads with one card replaced by a second copy of another (a seeded draw; then a card replaced by a
copy of its left neighbour, and of the card above it) and with the seeded copy dealt after the whole
deck, stored as JPEG (quality
90, as ``deck_scenes`` writes them; ``--lossless``: as drawn), learns each alone
(``companion deck learn``'s code path), and counts the "two copies of X?" problems. With ``--span``
it tries several ``decks.copies.ONE_CARD_SPAN`` values on the same readings (the detector runs once),
with ``--unlikely`` several ``UNLIKELY_PLACE_COST``.
"""
from __future__ import annotations

import argparse
import itertools

import cv2
import numpy as np

from vision_models.data.artwork import ARTWORK_DIR, render_deck

ROW = 11            # cards to a row in deck_scenes.spread_photo
JOKERS = ("BJ", "SJ")
COPY_KINDS = ("replaced", "beside", "below", "extra")
# The learner's problem that names a second copy (``companion.vision.decks.photos``), told by its message
# id, so the count does not hang on the English wording or the language it is shown in.
TWO_COPIES = "two copies of %(code)s?"


def copies_named(problems) -> set[str]:
    """The codes a learning result's problems call two copies of."""
    return {p.params["code"] for p in problems if TWO_COPIES in p.id}


def spread_photos(detector, art, deck: str, seeds, lossless: bool = False, kinds=("normal", *COPY_KINDS)) -> list[tuple]:
    """Each seed's whole-deck spread read once: normal, one card replaced by a second copy of another, a copy
    of its left neighbour, of the card above, and a copy added (those of ``kinds``).
    ``(deck, seed, kind, copied code or None, readings)``."""
    from companion.cards import CLASS_NAMES
    from companion.vision.decks import photo_reading
    from vision_models.data.deck_scenes import spread_photo

    photos = []
    for seed in seeds:
        gone, copied = (str(c) for c in np.random.default_rng(100 + seed).choice(CLASS_NAMES[:52], 2, replace=False))
        photo_kinds = [("normal", None), ("replaced", (gone, copied)), ("extra", (None, copied))]
        _, truth = spread_photo(art, seed)
        order = [t["code"] for t in truth]          # as dealt: 11 to a row
        for kind, step in (("beside", 1), ("below", ROW)):
            n = 13 + 7 * seed                        # a card with a neighbour to its right and below
            while order[n] in JOKERS or order[n + step] in JOKERS or (step == 1 and n % ROW == ROW - 1):
                n += 1
            photo_kinds.append((kind, (order[n + step], order[n])))
        for kind, second_copy in (k for k in photo_kinds if k[0] in kinds):
            image, _ = spread_photo(art, seed, second_copy=second_copy)
            if not lossless:     # stored as deck_scenes.write stores its spreads (and a phone its photos)
                image = cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1], cv2.IMREAD_COLOR)
            readings = photo_reading.read_photos(detector, [("spread", image)])
            photos.append((deck, seed, kind, second_copy and second_copy[1], readings))
    return photos


def count(detector, photos: list[tuple], report=print) -> dict[str, int]:
    """What learning makes of the photos (at the ``decks.copies`` constants in force): normal photos flagged,
    those kept from saving by this rule alone, the copy named per kind, another code named, a copy saved."""
    from companion.vision.decks.photos import learn_from_photos

    counts = dict.fromkeys(("flagged", "blocked", "wrong", "saved", *COPY_KINDS), 0)
    for deck, seed, kind, copied, readings in photos:
        result = learn_from_photos(detector, [("spread", None)], "check", readings=readings)
        found = copies_named(result.problems)
        if kind == "normal":
            counts["flagged"] += bool(found)
            # kept from saving by this rule alone: every problem the photo has is a "two copies"
            counts["blocked"] += bool(found) and all(TWO_COPIES in p.id for p in result.problems)
            if found:
                report(f"  {deck} spread {seed}: flagged {sorted(found)}; its other problems: "
                       f"{[str(p)[:80] for p in result.problems if TWO_COPIES not in p.id]}")
        else:
            counts[kind] += copied in found
            counts["wrong"] += bool(found - {copied})
            counts["saved"] += result.complete          # a photo with a copy that would be saved all the same
            if found != {copied}:
                report(f"  {deck} spread {seed} with a second {copied} ({kind}): named {sorted(found) or 'nothing'}")
    return counts


def main(argv: list[str] | None = None) -> None:
    from companion.synthetic.deck import ArtDeck
    from companion.vision import Detector
    from companion.vision.decks import copies

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("decks", nargs="+")
    parser.add_argument("--spreads", type=int, default=3, help="photos per deck, each normal and with a copy (default 3)")
    parser.add_argument("--span", type=float, nargs="+", default=[copies.ONE_CARD_SPAN],
                        help="ONE_CARD_SPAN values to try (index sizes)")
    parser.add_argument("--unlikely", type=float, nargs="+", default=[copies.UNLIKELY_PLACE_COST],
                        help="UNLIKELY_PLACE_COST values to try (nats)")
    parser.add_argument("--lossless", action="store_true", help="the rendered photos as drawn, not as JPEG (quality 90)")
    args = parser.parse_args(argv)
    detector = Detector.load(tile="auto")
    photos = []
    for deck in args.decks:
        photos += spread_photos(detector, ArtDeck(render_deck(deck, ARTWORK_DIR)), deck, range(args.spreads), args.lossless)
    defaults = copies.ONE_CARD_SPAN, copies.UNLIKELY_PLACE_COST
    print("| ONE_CARD_SPAN | UNLIKELY_PLACE_COST | normal photos flagged | of them kept from saving by it alone | "
          "copy named: one card replaced | ... by a copy of its left neighbour | ... of the card above | a copy added | "
          "another code named too | photos with a copy saved all the same |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    n = sum(1 for p in photos if p[2] == "normal")
    try:
        for span, unlikely in itertools.product(args.span, args.unlikely):
            copies.ONE_CARD_SPAN, copies.UNLIKELY_PLACE_COST = span, unlikely
            counts = count(detector, photos)
            print(f"| {span:g} | {unlikely:g} | {counts['flagged']} of {n} | {counts['blocked']} | "
                  + " | ".join(f"{counts[kind]} of {n}" for kind in COPY_KINDS)
                  + f" | {counts['wrong']} of {len(COPY_KINDS) * n} | {counts['saved']} of {len(COPY_KINDS) * n} |", flush=True)
    finally:
        copies.ONE_CARD_SPAN, copies.UNLIKELY_PLACE_COST = defaults


if __name__ == "__main__":
    main()
