"""The learned-deck check: per held-out deck, card-level F1 before and after learning it from 1-3 photos.

    python -m vision_models.checks.deck_check lattmann tigullio neoclassical_4_color plastic

For each deck (rendered by ``vision_models.data.artwork`` into ``var/artwork/<deck>``; these four are
held out of every training step, ``vision_models.data.artwork.HOLDOUT_DECKS``) it renders whole-deck
spreads and labelled test scenes (``vision_models.data.deck_scenes``) into ``var/deckcheck/<deck>``,
learns the deck from the first K spreads (``companion deck learn``'s code path, with the cards it
asks about named from the spread's truth, as a player would name them), and scores the test scenes
with ``companion evaluate`` (``--deck`` and without). It prints one Markdown row per deck and K.
"""
from __future__ import annotations

import argparse
import json
import time

from vision_models.data.artwork import ARTWORK_DIR, ROOT, render_deck

CHECK_DIR = ROOT / "var" / "deckcheck"


def _name_unsure(result, truth_by_photo, named: dict[int, str]) -> dict[int, str]:
    """What a player would answer: each card it asked about, named from the spread's truth (the top index
    within 30 px of the card's first box corner); a box that is no card's top index is left unnamed."""
    asked = {}
    for number, card in result.asked():
        if number in named:
            continue
        taken = {code for k, code in {**named, **asked}.items() if result.cards[k].photo == card.photo}
        x1, y1 = card.box[0], card.box[1]
        near = [t for t in truth_by_photo[card.photo]
                if (t["top_index"][0] - x1) ** 2 + (t["top_index"][1] - y1) ** 2 < 30 ** 2 and t["code"] not in taken]
        if near:
            asked[number] = min(near, key=lambda t: (t["top_index"][0] - x1) ** 2 + (t["top_index"][1] - y1) ** 2)["code"]
    return asked


def learn_answering(detector, photos, truths, deck: str):
    """``learn_from_photos``, the player answering what it asks from the spreads' truth: (result, cards named)."""
    from companion.vision.decks.photos import learn_from_photos

    result = learn_from_photos(detector, photos, deck)
    named: dict[int, str] = {}
    for _ in range(4):      # the player answers what it asks, until it asks nothing more
        asked = _name_unsure(result, truths, named)
        if not asked:
            break
        named.update(asked)
        result = learn_from_photos(detector, photos, deck, corrections=named)
    return result, named


def check(deck: str, spreads: int, scenes: int, detector) -> list[dict]:
    from companion.vision import load_image
    from companion.vision.decks.store import DeckStore
    from companion.vision.evaluation import evaluate_folder
    from vision_models.data.deck_scenes import write

    deck_dir = render_deck(deck, ARTWORK_DIR)
    out = CHECK_DIR / deck
    if not (out / "test" / "data.yaml").is_file():
        write(deck_dir, out, 3, scenes)
    rows = []
    before = evaluate_folder(detector, out / "test", split="all")
    rows.append({"deck": deck, "photos": 0, "named": 0, "learn_s": 0.0, **_figures(before)})
    store = DeckStore(CHECK_DIR / "data")
    for k in range(1, spreads + 1):
        paths = [out / "learn" / f"spread-{n}.jpg" for n in range(k)]
        photos = [(str(p), load_image(p)) for p in paths]
        truths = [json.loads(p.with_suffix(".json").read_text()) for p in paths]
        start = time.perf_counter()
        result, named = learn_answering(detector, photos, truths, deck)
        seconds = time.perf_counter() - start
        if not result.complete:
            rows.append({"deck": deck, "photos": k, "named": len(named), "learn_s": seconds, "problems": result.problems})
            continue
        store.save(result.profile, replace=True)
        after = evaluate_folder(detector.with_deck(result.profile), out / "test", split="all")
        rows.append({"deck": deck, "photos": k, "named": len(named), "learn_s": round(seconds, 1), **_figures(after)})
    return rows


def _figures(summary: dict) -> dict:
    overall = summary["overall"]
    back = summary["per_class"].get("BACK", {"precision": float("nan"), "recall": float("nan")})
    return {**{k: overall[k] for k in ("precision", "recall", "f1")}, "back_p": back["precision"], "back_r": back["recall"]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("decks", nargs="+")
    parser.add_argument("--spreads", type=int, default=3, help="learn from 1..N whole-deck photos (default 3)")
    parser.add_argument("--scenes", type=int, default=30)
    parser.add_argument("--precision", choices=("auto", "f32", "int8"), default="auto",
                        help="which copy of the networks to read with (Detector.load's precision; auto: int8 where shipped)")
    args = parser.parse_args(argv)
    from companion.vision import Detector

    detector = Detector.load(tile="auto", precision=args.precision)
    print("| deck | photos learned from | cards named by hand | learn s | precision | recall | F1 | backs P / R |")
    print("|---|---|---|---|---|---|---|---|")
    for deck in args.decks:
        for row in check(deck, args.spreads, args.scenes, detector):
            if "problems" in row:
                print(f"| {row['deck']} | {row['photos']} | {row['named']} | – | not learned: {'; '.join(map(str, row['problems']))[:120]} |||")
            else:
                print(f"| {row['deck']} | {row['photos'] or 'none (general model)'} | {row['named']} | {row['learn_s']} | "
                      f"{row['precision']:.3f} | {row['recall']:.3f} | **{row['f1']:.3f}** | {row['back_p']:.2f} / {row['back_r']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
