"""Issue 28 item 1 (b): a detector that also boxes whole face-up cards, its corners then read at full resolution.

The chain's card ending (``python -m vision_models.chain``, steps 17-20) trains a third class, the face-up card
boxed whole. This check reads every real source of ``real_check`` with such a detector twice over:

* **indices only**: the photo read as ``companion detect`` reads it (the card class is not used);
* **indices, then whole cards**: every card box of the whole frame's pass (at least ``--card-conf`` sure) that
  holds no card the index path reported is cut from the photo at its own resolution (``CROP_MARGIN`` around it)
  and read again, the card now filling the detector's input; the indices found there join the photo's, and the
  grouping runs once over all of them. A card is reported when either path finds it.

    python -m vision_models.checks.card_class_check --weights var/chain/candidate-cards
    python -m vision_models.checks.card_class_check --weights var/chain/candidate-cards --source rf100-valid --card-conf 0.5

The readings (and each card box's crop reading) are cached (``--cache``), so other card thresholds are
regrouped in seconds; they are chosen on the development split (rf100-valid), never on the sources they are
reported for.
"""
from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from vision_models.checks.real_check import SOURCES, check, photos_of, table

CARD_CLASS = 2
# Card boxes are kept down to this score when read, so a higher --card-conf regroups without reading again.
CARD_READ_CONF = 0.25
# The crop around a card box: the box grown by this share of its size on each side, so a corner the box
# clips is still whole in the crop.
CROP_MARGIN = 0.1


def unfound_card_boxes(card_boxes: np.ndarray, centers: np.ndarray) -> list[int]:
    """The card boxes that hold no reported card's centre."""
    out = []
    for k, (x1, y1, x2, y2) in enumerate(card_boxes):
        inside = (centers[:, 0] >= x1) & (centers[:, 0] <= x2) & (centers[:, 1] >= y1) & (centers[:, 1] <= y2) if len(centers) else []
        if not np.any(inside):
            out.append(k)
    return out


def crop_box(box, shape: tuple[int, int], margin: float = CROP_MARGIN) -> tuple[int, int, int, int]:
    x1, y1, x2, y2 = box
    grow_x, grow_y = (x2 - x1) * margin, (y2 - y1) * margin
    height, width = shape
    return (max(0, int(x1 - grow_x)), max(0, int(y1 - grow_y)), min(width, int(np.ceil(x2 + grow_x))),
            min(height, int(np.ceil(y2 + grow_y))))


def shifted(indices, left: int, top: int) -> list:
    """Index readings of a crop, in the photo's pixels."""
    return [replace(index, box=(index.box[0] + left, index.box[1] + top, index.box[2] + left, index.box[3] + top))
            for index in indices]


def read_with_cards(detector, photo) -> dict:
    """``real_check.read_photo``'s reading, the whole frame's card boxes, and a crop reading for each card box
    that holds no card the index path reported."""
    from companion.vision import load_image
    from vision_models.checks.real_check import cards_of, read_photo

    out = read_photo(detector, photo)
    frame = load_image(photo.path)
    whole = detector._detect_window(frame, 0, 0)
    cards = (whole.classes == CARD_CLASS) & (whole.scores >= CARD_READ_CONF)
    out["card_boxes"], out["card_scores"] = whole.boxes[cards], whole.scores[cards]
    found = cards_of(out).centers
    start = time.perf_counter()
    crops = {}
    for k in unfound_card_boxes(out["card_boxes"], found):
        x1, y1, x2, y2 = crop_box(out["card_boxes"][k], frame.shape[:2])
        if x2 - x1 < 8 or y2 - y1 < 8:
            continue
        crops[k] = shifted(detector.read(np.ascontiguousarray(frame[y1:y2, x1:x2])).indices, x1, y1)
    out["crop_indices"], out["card_ms"] = crops, (time.perf_counter() - start) * 1000
    return out


def with_card_path(reading: dict, card_conf: float) -> dict:
    """The reading with the crop indices of its card boxes at least ``card_conf`` sure added."""
    extra = [index for k, indices in reading["crop_indices"].items() if reading["card_scores"][k] >= card_conf
             for index in indices]
    return {**reading, "indices": list(reading["indices"]) + extra, "ms": reading["ms"] + reading["card_ms"]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--weights", required=True, metavar="DIR", help="a detector with the card class (models.json, ONNX files)")
    parser.add_argument("--source", action="append", choices=list(SOURCES), metavar="NAME", help="only this source (repeatable)")
    parser.add_argument("--card-conf", type=float, action="append", metavar="P",
                        help=f"card boxes at least this sure are read again (repeatable; default 0.5; >= {CARD_READ_CONF})")
    parser.add_argument("--cache", type=Path, metavar="FILE", help="keep the readings here, reuse them when the file exists")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    args = parser.parse_args(argv)
    thresholds = args.card_conf or [0.5]
    if any(t < CARD_READ_CONF or t > 1 for t in thresholds):
        parser.error(f"--card-conf must be between {CARD_READ_CONF} and 1")
    from companion.vision import Detector

    classes = json.loads((Path(args.weights) / "models.json").read_text())["detector"].get("classes", [])
    if "card" not in classes:
        print(f"error: {args.weights} has no card class (its classes: {classes})", file=sys.stderr)
        return 1
    photos = photos_of(args.source or list(SOURCES))
    wanted = {(p.source, p.path.name) for p in photos}
    readings = None
    if args.cache is not None and args.cache.exists():
        cached = pickle.loads(args.cache.read_bytes())
        if cached["weights"] == str(args.weights):
            readings = [r for r in cached["readings"] if (r["source"], r["name"]) in wanted]
            if len(readings) < len(wanted):
                readings = None
    if readings is None:
        detector = Detector.load(args.weights, tile="auto", threads=args.threads)
        readings = []
        started = time.time()
        for n, photo in enumerate(photos, 1):
            readings.append(read_with_cards(detector, photo))
            if not args.json:
                print(f"\rread {n}/{len(photos)}", end="", file=sys.stderr, flush=True)
        if not args.json:
            print(f"\rread {len(readings)} photos in {time.time() - started:.0f} s", file=sys.stderr)
        if args.cache is not None:
            args.cache.parent.mkdir(parents=True, exist_ok=True)
            args.cache.write_bytes(pickle.dumps({"weights": str(args.weights), "readings": readings}))
    results = {"indices only": check(photos, readings)}
    for threshold in thresholds:
        results[f"indices, then whole cards at {threshold}"] = check(photos, [with_card_path(r, threshold) for r in readings])
    boxes = sum(len(r["card_boxes"]) for r in readings)
    crops = sum(len(r["crop_indices"]) for r in readings)
    results["card boxes"] = {"boxes": boxes, "read_again": crops,
                             "median_ms_indices": float(np.median([r["ms"] for r in readings])),
                             "median_ms_cards": float(np.median([r["card_ms"] for r in readings]))}
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    for name, result in results.items():
        if name != "card boxes":
            print(f"\n{name}\n{table(result)}")
    print(f"\n{boxes} card boxes at {CARD_READ_CONF} or more, {crops} holding no reported card read again; "
          f"median {results['card boxes']['median_ms_indices']:.0f} ms a photo for the indices, "
          f"{results['card boxes']['median_ms_cards']:.0f} ms for the crops")
    return 0


if __name__ == "__main__":
    sys.exit(main())
