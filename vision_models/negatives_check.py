"""What the shipped models make of things that are not cards: chips, coins, dice, phones, fanned strips.

    python -m vision_models.negatives_check                  # 60 scenes of the held-out deck lattmann
    python -m vision_models.negatives_check --scenes 20 --no-deck

Renders ``--scenes`` labelled 960x720 scenes of a held-out deck (``vision_models.deck_scenes``:
scattered cards at any angle, solitaire cascades, some face down; card width 70-100 px, light
0.75-1.2, blur and noise varying per seed) with one of each distractor of
:mod:`vision_models.distractors` on the bare table beside the cards (its own seeded stream: the
cards, labels and light are those of the same scene without them). The scenes go to
``var/negatives/<deck>/`` (git-ignored), in the labelled-folder layout ``companion evaluate`` reads.

Each scene is read by the shipped models (``Detector.load(tile="auto")``) and scored with
``companion.vision.evaluation``'s rules (the ones ``evaluate_folder`` uses), with and without the
distractors, and again reading with the deck learned from its card images (its back's colours
then vet every face-down box; the profile is kept in ``var/deckcheck/data``, where
``vision_models.deck_check`` keeps its own). A false positive (a predicted card the scoring
matched to no labelled card) is put down to a distractor when at least ``ATTRIBUTION_OVERLAP`` of the smaller of its box and the
distractor's box overlap; the table counts them per kind: false backs and false face-up cards.
"""
from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

import numpy as np

from vision_models.artwork import ARTWORK_DIR, ROOT, render_deck
from vision_models.deck_check import CHECK_DIR

NEGATIVES_DIR = ROOT / "var" / "negatives"
# The distractors' stream of scene ``seed``: ``[DISTRACTOR_SEED, seed]``.
DISTRACTOR_SEED = 13
# A false card belongs to a distractor when half of the smaller box lies in the other: a lone
# index's card box (the index and its mirrored corner) is several times a die's, and a chip
# stack's box is larger than a back's box on one of its chips.
ATTRIBUTION_OVERLAP = 0.5


def write_scenes(deck_name: str, scenes: int) -> Path:
    """Render (once: an existing folder with as many scenes is kept) the check's scenes; their folder."""
    import cv2

    from companion.synthetic.deck import ArtDeck
    from vision_models.deck_scenes import TEST_NAMES, _index_fractions, scene_with_distractors

    deck_dir = render_deck(deck_name, ARTWORK_DIR)
    out = NEGATIVES_DIR / deck_name
    manifest = out / "distractors.json"
    if manifest.is_file() and len(json.loads(manifest.read_text())) == scenes:
        return out
    deck = ArtDeck(deck_dir)
    fractions = _index_fractions(deck)
    drawn = {}
    for variant in ("with", "without"):
        images, labels_dir = out / variant / "images", out / variant / "labels"
        images.mkdir(parents=True, exist_ok=True)
        labels_dir.mkdir(parents=True, exist_ok=True)
        (out / variant / "data.yaml").write_text("names: [" + ", ".join(TEST_NAMES) + "]\n")
        for seed in range(scenes):
            distractor_rng = np.random.default_rng([DISTRACTOR_SEED, seed]) if variant == "with" else None
            image, labels, distractors = scene_with_distractors(deck, seed, fractions, distractor_rng)
            name = f"scene-{seed:03d}"
            cv2.imwrite(str(images / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
            height, width = image.shape[:2]
            lines = []
            for code, (x1, y1, x2, y2) in labels:
                x1, x2, y1, y2 = max(0, x1), min(width, x2), max(0, y1), min(height, y2)
                if x2 > x1 and y2 > y1:
                    lines.append(f"{TEST_NAMES.index(code)} {(x1 + x2) / 2 / width:.5f} {(y1 + y2) / 2 / height:.5f} "
                                 f"{(x2 - x1) / width:.5f} {(y2 - y1) / height:.5f}")
            (labels_dir / f"{name}.txt").write_text("\n".join(lines) + "\n")
            if variant == "with":
                drawn[f"{name}.jpg"] = [{"kind": d.kind, "box": [round(v, 1) for v in d.box]} for d in distractors]
    manifest.write_text(json.dumps(drawn, indent=0))
    return out


def _overlap_of_smaller(a, b) -> float:
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    if width <= 0 or height <= 0:
        return 0.0
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return width * height / max(smaller, 1e-9)


def false_cards_at(truth, predicted, distractors: list[dict]) -> list[tuple[str, str]]:
    """(kind, predicted code) for each false positive of ``score_image`` that lies on a distractor."""
    from companion.vision.evaluation import score_image

    out = []
    for p in score_image("", truth, predicted).false_positive_rows:
        best = max(distractors, key=lambda d: _overlap_of_smaller(predicted.boxes[p], d["box"]), default=None)
        if best is not None and _overlap_of_smaller(predicted.boxes[p], best["box"]) >= ATTRIBUTION_OVERLAP:
            out.append((best["kind"], predicted.codes[p]))
    return out


def score(detector, folder: Path, distractors: dict | None) -> dict:
    """``evaluate_folder``'s figures for ``folder`` (split all), with the false cards put down to each distractor kind."""
    from companion.vision.evaluation import list_images, load_scene, read_class_names, score_image, summarise

    names = read_class_names(folder / "data.yaml")
    scores, backs, faces = [], Counter(), Counter()
    for path in list_images(folder, "all"):
        frame, truth = load_scene(folder, names, [path])
        predicted = detector(frame)
        scores.append(score_image(path.name, truth, predicted))
        for kind, code in false_cards_at(truth, predicted, (distractors or {}).get(path.name, [])):
            (backs if code == "BACK" else faces)[kind] += 1
    summary = summarise(scores)
    summary["false_backs_at"], summary["false_faces_at"] = dict(backs), dict(faces)
    return summary


def learned_deck(detector, deck_name: str):
    """The deck learned from its card images (``learn_from_folder``), from ``var/deckcheck/data`` when kept there."""
    from companion.vision.deckprofile import DeckStore, learn_from_folder

    store = DeckStore(CHECK_DIR / "data")
    if store.exists(deck_name):
        return store.load(deck_name)
    result = learn_from_folder(detector, render_deck(deck_name, ARTWORK_DIR), deck_name)
    if result.profile is None:
        raise SystemExit(f"{deck_name}: nothing learned from its card images: {'; '.join(result.problems)}")
    store.save(result.profile)
    return result.profile


def run(deck_name: str, scenes: int, with_deck: bool) -> dict:
    from companion.vision import Detector
    from vision_models.distractors import KINDS

    folder = write_scenes(deck_name, scenes)
    distractors = json.loads((folder / "distractors.json").read_text())
    drawn = Counter(d["kind"] for scene in distractors.values() for d in scene)
    general = Detector.load(tile="auto")
    readers = [("general models", general)]
    if with_deck:
        readers.append((f"learned deck '{deck_name}'", general.with_deck(learned_deck(general, deck_name))))
    results = {"deck": deck_name, "scenes": scenes, "drawn": {k: drawn[k] for k in KINDS}, "readings": {}}
    for label, detector in readers:
        for variant in ("without", "with"):
            start = time.perf_counter()
            summary = score(detector, folder / variant, distractors if variant == "with" else None)
            back = summary["per_class"].get("BACK", {"precision": float("nan"), "recall": float("nan"), "tp": 0, "fp": 0, "fn": 0})
            results["readings"][f"{label}, {variant} distractors"] = {
                "cards": summary["overall"], "backs": back, "seconds": round(time.perf_counter() - start, 1),
                "false_backs_at": summary["false_backs_at"], "false_faces_at": summary["false_faces_at"]}
            print(f"[negatives] {label}, {variant} distractors: {time.perf_counter() - start:.0f} s", flush=True)
    return results


def markdown(results: dict) -> str:
    from vision_models.distractors import KINDS

    lines = [f"{results['scenes']} scenes of {results['deck']}, one of each distractor per scene (with) or none (without):", "",
             "| reading | cards P / R / F1 | backs P / R (tp, fp, fn) |", "|---|---|---|"]
    for label, row in results["readings"].items():
        c, b = row["cards"], row["backs"]
        lines.append(f"| {label} | {c['precision']:.3f} / {c['recall']:.3f} / {c['f1']:.3f} | "
                     f"{b['precision']:.3f} / {b['recall']:.3f} ({b['tp']}, {b['fp']}, {b['fn']}) |")
    with_rows = {label: row for label, row in results["readings"].items() if label.endswith(", with distractors")}
    lines += ["", "| distractor | drawn | " + " | ".join(f"false backs / false face-up cards ({label.split(',')[0]})"
                                                       for label in with_rows) + " |",
              "|---|---|" + "---|" * len(with_rows)]
    for kind in KINDS:
        cells = [f"{row['false_backs_at'].get(kind, 0)} / {row['false_faces_at'].get(kind, 0)}" for row in with_rows.values()]
        lines.append(f"| {kind} | {results['drawn'][kind]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deck", default="lattmann", help="a deck of vision_models.artwork (default: held-out lattmann)")
    parser.add_argument("--scenes", type=int, default=60)
    parser.add_argument("--no-deck", action="store_true", help="only the general models (no learned deck)")
    args = parser.parse_args(argv)
    if args.scenes < 1:
        parser.error("--scenes must be at least 1")
    results = run(args.deck, args.scenes, not args.no_deck)
    (NEGATIVES_DIR / args.deck / "summary.json").write_text(json.dumps(results, indent=1))
    print(markdown(results))


if __name__ == "__main__":
    main()
