"""The real-deck check: teach each real deck as a player would, then read its other real photos, learned and not.

    python -m vision_models.checks.real_deck_check                    # every real deck, a Markdown table
    python -m vision_models.checks.real_deck_check --deck kentdoan --json
    python -m vision_models.checks.real_deck_check --cache var/real-deck-readings.pkl   # keep the unlearned readings

Each deck in ``../shared/datasets/real/decks`` (see its README; never committed) is taught from its
teaching material by :func:`companion.vision.decks.teaching.teach`, the code path of ``companion
deck learn`` (a folder of one photo per card, or a photo of the whole deck). Where learning asks about
cards, the player answers from the photo's truth (as ``vision_models.checks.deck_check`` does) and it learns
again; "cards asked" is how many it asked on the first try. Then the deck's *other* photos (held out:
another camera, photos in play, single-card photos; never the teaching ones) are read as ``companion
detect`` reads them, once without the deck and once with it (``--deck``), and scored card by card
(:mod:`vision_models.checks.real_check`'s scorer). Per deck: taught, cards asked, card P/R/F1 unlearned and
learned on the same photos, and cards counted twice.
"""
from __future__ import annotations

import argparse
import json
import pickle
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from vision_models.checks.real_check import REAL, Photo, photos_of, read_photo, score_reading, summary_of


@dataclass(frozen=True)
class RealDeck:
    """One real deck: what it is taught from, and the real_check sources of its other photos."""

    name: str
    teach: tuple[str, ...]          # paths under the datasets folder: one folder, or whole-deck photos
    read: tuple[str, ...] = ()      # real_check sources of the same deck's other photos
    note: str = ""
    truth: str = "folder"           # how a player answers what it asks: "folder" (file names), "grid-4x13"


DECKS = (
    RealDeck("kentdoan", ("real/decks/kentdoan/cards",), ("kentdoan-play",), "52 card photos on black cloth; reads 7 photos in play"),
    RealDeck("camdowless", ("real/decks/camdowless/cards",), ("camdowless-single",),
             "52 cropped card photos; reads 40 uncropped phone photos of single cards"),
    RealDeck("piercebriney-iphone", ("real/decks/piercebriney/iphone",), ("piercebriney-pi-camera",),
             "42 cards (a partial folder) by iPhone; reads the Pi camera's 41"),
    RealDeck("piercebriney-pi-camera", ("real/decks/piercebriney/pi-camera",), ("piercebriney-iphone",),
             "41 cards (a partial folder) by a Pi camera; reads the iPhone's 42"),
    RealDeck("kalkaran", ("real/decks/kalkaran/cards",), (), "52 straightened card photos; no other photos to read"),
    RealDeck("feliksh", ("real/decks/feliksh/whole-deck-scan.jpg",), ("feliksh-play",),
             "a 600 dpi scan of the whole four-index deck (4x13 grid); reads 4 screenshots of it in play", truth="grid-4x13"),
)

# decks/feliksh/play-with-overlays/: the cards in each screenshot, checked by eye (2026-12-02). The other
# program's drawings (boxes, its guesses, a grid of card names as text) stay on them: real nuisances.
FELIKSH_PLAY = {"screenshot1.jpg": ("8D", "JS", "5H"), "screenshot2.jpg": ("2C", "10H", "2H", "QH"),
                "screenshot3.jpg": ("KC",), "screenshot4.jpg": ("AS", "KC")}


def deck_photos(sources: list[str], datasets: Path = REAL) -> list[Photo]:
    """real_check's sources, and this check's own: ``feliksh-play`` (:data:`FELIKSH_PLAY`)."""
    own = [s for s in sources if s == "feliksh-play"]
    photos = photos_of([s for s in sources if s not in own], datasets)
    for _ in own:
        folder = datasets / "real" / "decks" / "feliksh" / "play-with-overlays"
        for name, codes in FELIKSH_PLAY.items():
            if not (folder / name).is_file():
                raise FileNotFoundError(f"{folder / name}: missing (real_deck_check reads ../shared/datasets)")
            photos.append(Photo("feliksh-play", folder / name, "codes", codes=codes))
    return photos


def grid_code(box, shape: tuple[int, int]) -> str:
    """The scan's card at a box: 13 rows A..K top to bottom, columns spades, clubs, diamonds, hearts."""
    from companion.cards import CLASS_NAMES

    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    suits = ["S", "C", "D", "H"]
    height, width = shape
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    code = ranks[min(12, int(y / (height / 13)))] + suits[min(3, int(x / (width / 4)))]
    assert code in CLASS_NAMES
    return code


def teach_answering(detector, deck: RealDeck, datasets: Path, name: str):
    """Teach the deck; where it asks, answer from the truth and teach again: (first result, final result, cards asked)."""
    from companion.vision import load_image
    from companion.vision.decks.teaching import teach

    inputs = [str(datasets / p) for p in deck.teach]
    first = result = teach(detector, inputs, name)
    asked = first.asked()
    named: dict[int, str] = {}
    if deck.truth == "grid-4x13":
        shapes = [load_image(p).shape[:2] for p in inputs]
        for _ in range(3):
            questions = [(k, card) for k, card in result.asked() if k not in named]
            if not questions:
                break
            named.update({k: grid_code(card.box, shapes[card.photo]) for k, card in questions})
            # one code for two cards would be the player's mistake, not the learner's: keep the first
            seen, kept = set(), {}
            for k, code in sorted(named.items()):
                if code not in seen:
                    seen.add(code)
                    kept[k] = code
            named = kept
            result = teach(detector, inputs, name, corrections=named)
    return first, result, len(asked)


def check_deck(detector, deck: RealDeck, datasets: Path = REAL, cache: dict | None = None) -> dict:
    """One deck taught and its other photos read without and with it (see the module's doc)."""
    from companion.vision.decks.store import DeckStore

    start = time.perf_counter()
    first, result, asked = teach_answering(detector, deck, datasets, deck.name)
    row = {"deck": deck.name, "note": deck.note, "reads": list(deck.read), "taught_first_try": first.complete, "taught": result.complete,
           "asked": asked, "named": 0 if result is first else len(result.asked()) + asked,
           "problems": [_render(p).replace(f"{datasets}/", "") for p in first.problems][:4], "learn_s": round(time.perf_counter() - start, 1),
           "learned_cards": result.profile.info.get("cards") if result.profile is not None else 0}
    if result.profile is not None:
        row["self_check"] = result.profile.info.get("self_check")
    if not deck.read:
        return row
    photos = deck_photos(list(deck.read), datasets)
    cache = {} if cache is None else cache
    unlearned = []
    for photo in photos:
        key = (photo.source, photo.path.name)
        if key not in cache:
            cache[key] = read_photo(detector, photo)
        unlearned.append(cache[key])
    row["unlearned"] = _figures(photos, unlearned)
    if result.complete:
        with tempfile.TemporaryDirectory() as data:
            DeckStore(data).save(result.profile)        # saved and loaded again, as `detect --deck` finds it
            learned_detector = detector.with_deck(DeckStore(data).load(deck.name))
        row["learned"] = _figures(photos, [read_photo(learned_detector, photo) for photo in photos])
    return row


def _render(message) -> str:
    from companion import i18n

    return i18n.current().render(message)


def _figures(photos: list[Photo], readings: list[dict]) -> dict:
    by_name = {(p.source, p.path.name): p for p in photos}
    summary = summary_of([score_reading(by_name[r["source"], r["name"]], r) for r in readings])
    cards, errors = summary["cards"], summary["errors"]
    return {"photos": summary["photos"], "cards": errors["cards"], "precision": cards["precision"], "recall": cards["recall"],
            "f1": cards["f1"], "counted_twice": errors["counted_twice"], "misread": errors["misread"],
            "missed": errors["missed_faces"], "phantoms": errors["phantom_faces"]}


def table(rows: list[dict]) -> str:
    lines = ["| deck (taught from) | taught (first try) | cards asked | reads (held out) "
             "| photos | cards | F1 unlearned | F1 learned | P / R learned | "
             "counted twice unlearned / learned | misread unlearned / learned |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        taught = ("yes" if row["taught_first_try"] else ("after answering" if row["taught"] else "**no**"))
        if not row["taught"] and row["problems"]:
            taught += f" ({row['problems'][0][:80]})"
        before, after = row.get("unlearned"), row.get("learned")
        if before is None:
            lines.append(f"| {row['deck']} | {taught} | {row['asked']} | – (no other labelled photos) | | | | | | | |")
            continue
        learned = f"**{after['f1']:.3f}**" if after else "–"
        pr = f"{after['precision']:.3f} / {after['recall']:.3f}" if after else "–"
        twice = f"{before['counted_twice']} / {after['counted_twice'] if after else '–'}"
        misread = f"{before['misread']} / {after['misread'] if after else '–'}"
        lines.append(f"| {row['deck']} | {taught} | {row['asked']} | {', '.join(row.get('reads', []))} | "
                     f"{before['photos']} | {before['cards']} | {before['f1']:.3f} | "
                     f"{learned} | {pr} | {twice} | {misread} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--deck", action="append", choices=[d.name for d in DECKS], metavar="NAME",
                        help=f"only this deck (repeatable; default all: {', '.join(d.name for d in DECKS)})")
    parser.add_argument("--weights", metavar="DIR", help="folder with models.json and the ONNX files")
    parser.add_argument("--datasets", type=Path, default=REAL, help="the shared datasets folder (default ../shared/datasets)")
    parser.add_argument("--cache", type=Path, metavar="FILE",
                        help="keep the unlearned readings here and reuse them (they change only with the networks)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    from companion.vision import Detector

    decks = [d for d in DECKS if not args.deck or d.name in args.deck]
    for deck in decks:
        for path in deck.teach:
            if not (args.datasets / path).exists():
                print(f"error: {args.datasets / path}: missing (real_deck_check reads ../shared/datasets)", file=sys.stderr)
                return 1
    detector = Detector.load(args.weights, tile="auto")
    cache = pickle.loads(args.cache.read_bytes()) if args.cache is not None and args.cache.exists() else {}
    rows = []
    for deck in decks:
        rows.append(check_deck(detector, deck, args.datasets, cache))
        if not args.json:
            print(f"{deck.name}: taught {rows[-1]['taught']}, asked {rows[-1]['asked']}", file=sys.stderr, flush=True)
    if args.cache is not None:
        args.cache.parent.mkdir(parents=True, exist_ok=True)
        args.cache.write_bytes(pickle.dumps(cache))
    if args.json:
        print(json.dumps(rows, indent=1, default=str))
    else:
        print(table(rows))
        print(f"\n({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
