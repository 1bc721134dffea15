"""What the shipped models make of things that are not cards: chips, coins, dice, phones, fanned strips.

    python -m vision_models.checks.negatives_check                  # 60 scenes of the held-out deck lattmann
    python -m vision_models.checks.negatives_check --scenes 20 --learn-from images   # or none

Renders ``--scenes`` labelled 960x720 scenes of a held-out deck (``vision_models.data.deck_scenes``:
scattered cards at any angle, solitaire cascades, some face down; card width 70-100 px, light
0.75-1.2, blur and noise varying per seed) with one of each distractor of
:mod:`vision_models.data.distractors` on the bare table beside the cards (its own seeded stream: the
cards, labels and light are those of the same scene without them). The scenes go to
``var/negatives/<deck>/`` (git-ignored), in the labelled-folder layout ``companion evaluate`` reads.

Each scene is read by the shipped models (``Detector.load(tile="auto")``) and scored with
``companion.vision.evaluation``'s rules (the ones ``evaluate_folder`` uses), with and without the
distractors, and again reading with the deck learned (its back's colours then vet every
face-down box; see :func:`learned_deck`). A false positive (a predicted card the scoring
matched to no labelled card) is put down to the distractor its box overlaps most (intersection over union), when at least
``ATTRIBUTION_OVERLAP`` of the smaller of the two boxes lies in the other; the table counts them
per kind: false backs and false face-up cards.
"""
from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

import numpy as np

from vision_models.data.artwork import ARTWORK_DIR, ROOT, render_deck
from vision_models.checks.deck_check import CHECK_DIR

NEGATIVES_DIR = ROOT / "var" / "negatives"
# The distractors' stream of scene ``seed``: ``[DISTRACTOR_SEED, seed]``.
DISTRACTOR_SEED = 13
# A false card belongs to a distractor when half of the smaller box lies in the other: a lone
# index's card box (the index and its mirrored corner) is several times a die's, and a chip
# stack's box is larger than a back's box on one of its chips.
ATTRIBUTION_OVERLAP = 0.5
# A predicted back overlapping a labelled back this much is on that card, not on a distractor (a
# back box on a chip stack beside a card overlaps the card's box by less than a tenth).
REAL_BACK_IOU = 0.3
NO_BACKS = {"tp": 0, "fp": 0, "fn": 0, "precision": 0.0, "recall": 0.0, "f1": 0.0}


def write_scenes(deck_name: str, scenes: int) -> Path:
    """Render (once: an existing folder with as many scenes is kept) the check's scenes; their folder."""
    import cv2

    from companion.synthetic.deck import ArtDeck
    from vision_models.data.deck_scenes import TEST_NAMES, _index_fractions, scene_with_distractors

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


def _iou(a, b) -> float:
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    if width <= 0 or height <= 0:
        return 0.0
    inter = width * height
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def false_cards_at(truth, predicted, distractors: list[dict]) -> list[tuple[str, str]]:
    """(kind, predicted code) for each false positive of ``score_image`` that lies on a distractor."""
    from companion.vision.evaluation import score_image

    out = []
    for p in score_image("", truth, predicted).false_positive_rows:
        under = _on_distractor(predicted.boxes[p], distractors)
        if under is not None:
            out.append((under["kind"], predicted.codes[p]))
    return out


def _on_distractor(box, distractors: list[dict]) -> dict | None:
    """The distractor a box overlaps most (IoU), when ``ATTRIBUTION_OVERLAP`` of the smaller box lies in the other."""
    best = max(distractors, key=lambda d: _iou(box, d["box"]), default=None)
    if best is not None and _overlap_of_smaller(box, best["box"]) >= ATTRIBUTION_OVERLAP:
        return best
    return None


def back_boxes_on_distractors(truth, predicted, distractors: list[dict]) -> list[str]:
    """The kind under each predicted back that lies on a distractor and on no labelled back (IoU under
    ``REAL_BACK_IOU``), whether or not the scoring's position rule matched it to a missed card nearby."""
    backs = [t.parts[0].box for t in truth if t.code == "BACK"]
    out = []
    for box, code in zip(predicted.boxes, predicted.codes):
        if code == "BACK" and all(_iou(box, b) < REAL_BACK_IOU for b in backs):
            under = _on_distractor(box, distractors)
            if under is not None:
                out.append(under["kind"])
    return out


def back_shapes(truth, predicted, distractors: list[dict], indices) -> list[tuple[str, tuple[float, float]]]:
    """For each predicted back on a labelled back ("real back") or on a distractor (its kind): its box's
    long side in the frame's median index size (what ``grouping.card_shaped`` measures) and its aspect."""
    if not indices:
        return []
    scale = float(np.median([r.scale for r in indices]))
    backs = [t.parts[0].box for t in truth if t.code == "BACK"]
    out = []
    for box, code in zip(predicted.boxes, predicted.codes):
        if code != "BACK":
            continue
        width, height = float(box[2] - box[0]), float(box[3] - box[1])
        shape = (max(width, height) / scale, max(width, height) / max(min(width, height), 1e-6))
        if any(_iou(box, b) >= REAL_BACK_IOU for b in backs):
            out.append(("real back", shape))
        elif (under := _on_distractor(box, distractors)) is not None:
            out.append((under["kind"], shape))
    return out


def score(detector, folder: Path, distractors: dict | None) -> dict:
    """``evaluate_folder``'s figures for ``folder`` (split all), with the false cards put down to each distractor kind."""
    from companion.vision.evaluation import list_images, load_scene, read_class_names, score_image, summarise

    names = read_class_names(folder / "data.yaml")
    scores, backs, faces, boxes = [], Counter(), Counter(), Counter()
    shapes: dict[str, list[tuple[float, float]]] = {}
    for path in list_images(folder, "all"):
        frame, truth = load_scene(folder, names, [path])
        reading = detector.read(frame)
        predicted = reading.cards
        scores.append(score_image(path.name, truth, predicted))
        drawn = (distractors or {}).get(path.name, [])
        for kind, code in false_cards_at(truth, predicted, drawn):
            (backs if code == "BACK" else faces)[kind] += 1
        boxes.update(back_boxes_on_distractors(truth, predicted, drawn))
        for where, shape in back_shapes(truth, predicted, drawn, reading.indices):
            shapes.setdefault(where, []).append(shape)
    summary = summarise(scores)
    summary["false_backs_at"], summary["false_faces_at"] = dict(backs), dict(faces)
    summary["back_boxes_at"] = dict(boxes)
    summary["back_shapes"] = {where: {"long_side": [round(min(v[0] for v in found), 2), round(max(v[0] for v in found), 2)],
                                      "aspect": [round(min(v[1] for v in found), 2), round(max(v[1] for v in found), 2)]}
                              for where, found in shapes.items()}
    # deck_scenes draws scattered cards for even seeds, cascades (covered face-down cards show a strip) for odd
    for layout, parity in (("scattered", 0), ("cascades", 1)):
        part = summarise([s for s in scores if int(Path(s.image).stem.rsplit("-", 1)[1]) % 2 == parity])
        summary[f"backs_{layout}"] = part["per_class"].get("BACK", NO_BACKS)
    return summary


def learned_deck(detector, deck_name: str, source: str):
    """The deck as a player would learn it: from one whole-deck photo (``source`` "photo", as
    ``vision_models.checks.deck_check`` does with one spread, the cards it asks about named from the
    photo's truth) or from its card images (``source`` "images", ``learn_from_folder``). Kept in
    ``var/deckcheck/data`` as ``<deck>-photo`` or ``<deck>-images`` (names ``deck_check``, which
    keeps its decks there by their own names, never overwrites) and read from there when present."""
    from companion.vision import load_image
    from companion.vision.decks.folder import learn_from_folder
    from companion.vision.decks.store import DeckStore
    from companion.synthetic.deck import ArtDeck
    from vision_models.checks.deck_check import learn_answering
    from vision_models.data.deck_scenes import spread_photo

    import cv2

    store = DeckStore(CHECK_DIR / "data")
    name = f"{deck_name}-{source}"
    # learned afresh every run (a few seconds): a kept profile would hide a change to the learning code
    deck_dir = render_deck(deck_name, ARTWORK_DIR)
    if source == "photo":
        spread = NEGATIVES_DIR / deck_name / "learn" / "spread-0.jpg"      # deck_check's first spread
        if not spread.is_file():
            spread.parent.mkdir(parents=True, exist_ok=True)
            image, truth = spread_photo(ArtDeck(deck_dir), 0)
            cv2.imwrite(str(spread), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
            spread.with_suffix(".json").write_text(json.dumps(truth))
        result, _ = learn_answering(detector, [(str(spread), load_image(spread))],
                                    [json.loads(spread.with_suffix(".json").read_text())], name)
    else:
        result = learn_from_folder(detector, deck_dir, name)
    if result.profile is None or not result.complete:
        raise SystemExit(f"{deck_name}: not learned from its {source}: {'; '.join(result.problems)}")
    store.save(result.profile, replace=True)
    return result.profile


def run(deck_name: str, scenes: int, learn_from: str | None) -> dict:
    from companion.vision import Detector
    from vision_models.data.distractors import KINDS

    folder = write_scenes(deck_name, scenes)
    distractors = json.loads((folder / "distractors.json").read_text())
    drawn = Counter(d["kind"] for scene in distractors.values() for d in scene)
    general = Detector.load(tile="auto")
    readers = [("general models", general)]
    if learn_from is not None:
        readers.append((f"learned deck '{deck_name}' (from its {learn_from})",
                        general.with_deck(learned_deck(general, deck_name, learn_from))))
    results = {"deck": deck_name, "scenes": scenes, "drawn": {k: drawn[k] for k in KINDS}, "readings": {}}
    for label, detector in readers:
        for variant in ("without", "with"):
            start = time.perf_counter()
            summary = score(detector, folder / variant, distractors if variant == "with" else None)
            results["readings"][f"{label}, {variant} distractors"] = {
                "cards": summary["overall"], "backs": summary["per_class"].get("BACK", NO_BACKS),
                "backs_scattered": summary["backs_scattered"], "backs_cascades": summary["backs_cascades"],
                "seconds": round(time.perf_counter() - start, 1),
                "false_backs_at": summary["false_backs_at"], "false_faces_at": summary["false_faces_at"],
                "back_boxes_at": summary["back_boxes_at"], "back_shapes": summary["back_shapes"]}
            print(f"[negatives] {label}, {variant} distractors: {time.perf_counter() - start:.0f} s", flush=True)
    return results


def markdown(results: dict) -> str:
    from vision_models.data.distractors import KINDS

    lines = [f"{results['scenes']} scenes of {results['deck']}, one of each distractor per scene (with) or none (without):", "",
             "| reading | cards P / R / F1 | backs P / R (tp, fp, fn) | scattered scenes: backs P / R (tp, fp, fn) "
             "| cascades: backs P / R (tp, fp, fn) |", "|---|---|---|---|---|"]

    def backs(b: dict) -> str:
        return f"{b['precision']:.3f} / {b['recall']:.3f} ({b['tp']}, {b['fp']}, {b['fn']})"

    for label, row in results["readings"].items():
        c = row["cards"]
        lines.append(f"| {label} | {c['precision']:.3f} / {c['recall']:.3f} / {c['f1']:.3f} | {backs(row['backs'])} | "
                     f"{backs(row['backs_scattered'])} | {backs(row['backs_cascades'])} |")
    with_rows = {label: row for label, row in results["readings"].items() if label.endswith(", with distractors")}
    lines += ["", "Per distractor: back boxes on it (on no labelled back) / of them scored false positives / "
                  "false face-up cards on it.", "",
              "| distractor | drawn | " + " | ".join(label.split(",")[0] for label in with_rows) + " |",
              "|---|---|" + "---|" * len(with_rows)]
    for kind in KINDS:
        cells = [f"{row['back_boxes_at'].get(kind, 0)} / {row['false_backs_at'].get(kind, 0)} / {row['false_faces_at'].get(kind, 0)}"
                 for row in with_rows.values()]
        lines.append(f"| {kind} | {results['drawn'][kind]} | " + " | ".join(cells) + " |")
    lines += ["", "Backs kept (after `card_shaped`) on real backs and on each distractor: long side in the frame's "
                  "median index size, min-max; aspect, min-max.", ""]
    for label, row in with_rows.items():
        lines.append(f"- {label.split(',')[0]}: " + "; ".join(
            f"{where} {v['long_side'][0]}-{v['long_side'][1]}, aspect {v['aspect'][0]}-{v['aspect'][1]}"
            for where, v in sorted(row["back_shapes"].items())))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deck", default="lattmann", help="a deck of vision_models.data.artwork (default: held-out lattmann)")
    parser.add_argument("--scenes", type=int, default=60)
    parser.add_argument("--learn-from", choices=("photo", "images", "none"), default="photo",
                        help="learn the deck from one whole-deck photo (default), its card images, or not at all")
    args = parser.parse_args(argv)
    if args.scenes < 1:
        parser.error("--scenes must be at least 1")
    results = run(args.deck, args.scenes, None if args.learn_from == "none" else args.learn_from)
    (NEGATIVES_DIR / args.deck / "summary.json").write_text(json.dumps(results, indent=1))
    print(markdown(results))


if __name__ == "__main__":
    main()
