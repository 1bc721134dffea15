"""Every rule that drops a face-down card, measured with it and without it (issue 28).

    python -m vision_models.checks.backs_check                      # the real backs by eye and rendered back scenes
    python -m vision_models.checks.backs_check --scenes 60 --cache-dir var/backs-check --json

The rules, all where a frame's scale is unknown (a photo, ``companion detect``; a table on a mat and a
learned deck keep their own, see ``Detector.group``):

* the back threshold (``detector.PHOTO_BACK_CONF``);
* a face-down card is card-shaped (``grouping.card_shaped``): no longer than ``MAX_BACK_ASPECT`` times its
  width, and its long side at least ``MIN_BACK_LONG_SIDE`` of the frame's median index size;
* a back box centred on a face-up card's joined corners is that card (``grouping.holds_face_card``,
  ``FACE_ON_BACK_CENTRE``).

Material: ``real_check``'s ``backs-by-eye`` photos (``vision_models/checks/real_backs.json``: every back we
found in the shared real photos, boxed by eye; their faces scored by their own labels) with every other
real photo of real_check's sources and development photos (1,944, which show no back: each back read
there is a false one, in the ``real`` column), the subset no network trained on (``unseen``), and
rendered scenes of face-down cards as players lay them
(``synth.back_layout``: solitaire columns, squared piles, backs beside faces, at a far edge, under a
hand; the held-out decks, seed ``SCENE_SEED``, which no training step uses). Every photo is read once
with the back threshold at ``FLOOR`` (the readings kept in ``--cache-dir``) and each variant is grouped
again from them: a rule is switched off by setting its constant to the value that never drops a back.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import pickle
import sys
from pathlib import Path

from vision_models.checks import real_check

FLOOR = 0.05            # read backs down to this, then filter: every threshold from the same readings
THRESHOLDS = (0.3, 0.5, 0.7, 0.75, 0.8)
SCENE_SEED = 2828       # rendered back scenes: no training step renders this seed (the chain uses 28-129)
# A rule off: the value of its constant that never drops a back.
RULES_OFF = {"aspect": {"MAX_BACK_ASPECT": math.inf}, "long side": {"MIN_BACK_LONG_SIDE": 0.0},
             "face on back": {"FACE_ON_BACK_CENTRE": -1.0}}
VARIANTS = {"all rules": {}, **{f"no {name}": off for name, off in RULES_OFF.items()},
            "no shape rule at all": {name: value for off in RULES_OFF.values() for name, value in off.items()},
            "before issue 28 (aspect 2.0, long side 4.0)": {"MAX_BACK_ASPECT": 2.0, "MIN_BACK_LONG_SIDE": 4.0}}


@contextlib.contextmanager
def grouping_constants(**values):
    """``companion.vision.grouping``'s constants set to ``values`` for the block, then restored."""
    from companion.vision import grouping

    before = {name: getattr(grouping, name) for name in values}
    try:
        for name, value in values.items():
            setattr(grouping, name, value)
        yield
    finally:
        for name, value in before.items():
            setattr(grouping, name, value)


def above(reading: dict, threshold: float) -> dict:
    """The reading with only the back boxes scoring above ``threshold`` (as the detector keeps them)."""
    return {**reading, "backs": [(box, score) for box, score in reading["backs"] if score > threshold]}


def counts(tp: int, fp: int, fn: int) -> dict:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return {"tp": tp, "fp": fp, "fn": fn, "precision": round(precision, 3), "recall": round(recall, 3)}


def real_backs(photos, readings, threshold: float, without_backs=()) -> dict:
    """Backs P/R on real photos (real_check's scorer: a face read where a back lies is a miss of the back);
    every back read in ``without_backs`` (readings of photos that show none) is a false one too."""
    result = real_check.check(photos, [above(r, threshold) for r in readings])["total"]["backs"]
    phantoms = sum(real_check.cards_of(above(r, threshold)).codes.count("BACK") for r in without_backs)
    return counts(result["tp"], result["fp"] + phantoms, result["fn"])


def scene_backs(scenes: list[tuple[dict, list]], threshold: float) -> dict:
    """Backs P/R on rendered scenes: the cards read as BACK against the labelled backs (faces unlabelled by code)."""
    from companion.vision.detections import Detections
    from companion.vision.evaluation import LabelledBox, score_image, whole_cards

    tp = fp = fn = 0
    for reading, truth_boxes in scenes:
        cards = real_check.cards_of(above(reading, threshold))
        keep = [k for k, code in enumerate(cards.codes) if code == "BACK"]
        backs = Detections(cards.boxes[keep], cards.confidences[keep], tuple("BACK" for _ in keep), cards.centers[keep],
                           cards.other_centers[keep]) if keep else Detections.empty()
        score = score_image(reading["name"], whole_cards([LabelledBox("BACK", b) for b in truth_boxes]), backs)
        tp, fp, fn = tp + len(score.true_positives), fp + len(score.false_positives), fn + len(score.misses)
    return counts(tp, fp, fn)


def render_scenes(out: Path, count: int, seed: int = SCENE_SEED, artwork_dir: Path | None = None) -> list[Path]:
    """``count`` scenes of ``synth.back_layout`` drawn with the held-out decks (cached in ``out``)."""
    from vision_models.data import artwork, datasets, synth

    deck_dirs = artwork.available_decks(artwork_dir or artwork.ARTWORK_DIR)
    if not deck_dirs:
        raise FileNotFoundError(f"{artwork_dir or artwork.ARTWORK_DIR}: no deck artwork (python -m vision_models.data.artwork)")
    train_decks, held_decks = datasets.deck_split(deck_dirs)
    held = [d for d in synth.load_decks(held_decks, for_scenes=True) if d.faces]
    backs = [d.back for d in synth.load_decks(deck_dirs, with_faces=False)]
    synth.write_scenes(out, held, backs, count, seed, backs_only=True)
    return sorted((out / "images").glob("backscene_*.jpg"))[:count]


def scene_truth(image: Path, width: int, height: int) -> list[tuple[float, float, float, float]]:
    """The labelled backs (detector class 1) of a rendered scene, in pixels."""
    from companion.vision.detector import BACK_CLASS

    boxes = []
    for line in (image.parent.parent / "labels" / (image.stem + ".txt")).read_text().splitlines():
        fields = line.split()
        if fields and int(fields[0]) == BACK_CLASS:
            cx, cy, w, h = (float(v) for v in fields[1:5])
            boxes.append(((cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height))
    return boxes


def read_scenes(images: list[Path], threads: int = 2, weights: str | None = None) -> list[tuple[dict, list]]:
    from companion.vision import load_image

    detector = real_check._load_detector(threads=threads, back_conf=FLOOR, weights=weights)
    scenes = []
    for image in images:
        photo = real_check.Photo("rendered-backs", image, "whole")
        reading = real_check.read_photo(detector, photo)
        height, width = load_image(image).shape[:2]
        scenes.append((reading, scene_truth(image, width, height)))
    return scenes


def cached(path: Path | None, make):
    if path is not None and path.exists():
        return pickle.loads(path.read_bytes())
    value = make()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(value))
    return value


def measure(real: dict, scenes: list, thresholds=THRESHOLDS, variants=VARIANTS) -> dict:
    """{variant: {threshold: {material: counts}}} for ``real`` ({name: (photos, readings, readings of photos
    with no back)}) and ``scenes``."""
    result: dict = {}
    for variant, constants in variants.items():
        with grouping_constants(**constants):
            for threshold in thresholds:
                row = {name: real_backs(photos, readings, threshold, without)
                       for name, (photos, readings, without) in real.items()}
                if scenes:
                    row["rendered"] = scene_backs(scenes, threshold)
                result.setdefault(variant, {})[threshold] = row
    return result


def table(result: dict) -> str:
    materials = list(next(iter(next(iter(result.values())).values())))
    lines = ["| rules | back threshold | " + " | ".join(f"{m} P / R (tp/fp/fn)" for m in materials) + " |",
             "|---|---|" + "---|" * len(materials)]
    for variant, rows in result.items():
        for threshold, row in rows.items():
            cells = [f"{c['precision']:.2f} / {c['recall']:.2f} ({c['tp']}/{c['fp']}/{c['fn']})" for c in row.values()]
            lines.append(f"| {variant} | {threshold} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--scenes", type=int, default=60, metavar="N", help="rendered back scenes (default 60; 0: none)")
    parser.add_argument("--cache-dir", type=Path, default=Path("var/backs-check"), metavar="DIR",
                        help="scenes and readings kept here (default var/backs-check)")
    parser.add_argument("--datasets", type=Path, default=real_check.REAL)
    parser.add_argument("--artwork", type=Path, metavar="DIR", help="deck artwork (default var/artwork)")
    parser.add_argument("--no-negatives", action="store_true",
                        help="leave out the other real photos (real_check's sources and development photos not in "
                             "real_backs.json, which show no back: every back read there is false); reading them takes long")
    parser.add_argument("--weights", metavar="DIR", help="models.json and ONNX files to read with (default the shipped ones; "
                        "e.g. var/chain/interim); give each its own --cache-dir")
    parser.add_argument("--thresholds", default=",".join(map(str, THRESHOLDS)), metavar="P,P,...",
                        help=f"back thresholds to group at (default {','.join(map(str, THRESHOLDS))}; each above {FLOOR})")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        thresholds = tuple(float(t) for t in args.thresholds.split(","))
    except ValueError:
        parser.error(f"--thresholds: numbers separated by commas, not {args.thresholds!r}")
    if not all(FLOOR < t < 1 for t in thresholds):
        parser.error(f"--thresholds: each between {FLOOR} (the floor the photos are read at) and 1")
    try:
        photos = real_check.photos_of(["backs-by-eye"], args.datasets)
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    readings = cached(args.cache_dir / "real-readings.pkl",
                      lambda: real_check.read_all(photos, threads=2, back_conf=FLOOR, weights=args.weights))
    unseen = {p.path.name for p in real_check.photos_of(["backs-by-eye-unseen"], args.datasets)}
    without: list = []
    if not args.no_negatives:
        listed = {entry["path"].rsplit("/", 1)[-1] for entry in real_check.load_real_backs()}
        others = [p for p in real_check.photos_of([*real_check.SOURCES, *real_check.DEV_SOURCES], args.datasets)
                  if p.path.name not in listed]
        without = cached(args.cache_dir / "no-back-readings.pkl",
                         lambda: real_check.read_all(others, threads=2, back_conf=FLOOR, weights=args.weights))
    real = {"real": (photos, readings, without),
            "real unseen": ([p for p in photos if p.path.name in unseen], [r for r in readings if r["name"] in unseen], [])}
    scenes = []
    if args.scenes:
        try:
            images = render_scenes(args.cache_dir / "scenes", args.scenes, artwork_dir=args.artwork)
        except FileNotFoundError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        scenes = cached(args.cache_dir / f"scene-readings-{args.scenes}.pkl", lambda: read_scenes(images, weights=args.weights))
    result = measure(real, scenes, thresholds)
    print(json.dumps(result, indent=1) if args.json else table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
