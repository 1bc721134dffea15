"""Card-level scores of the held-out real photos under grouping variants, from one reading of each photo.

    python -m vision_models.checks.grouping_check ../shared/datasets/cardcounterml --cache /tmp/holdout-readings.pkl

Reading the photos (detector + classifier) is the slow part; the grouping of indices into cards is
not. This reads each photo of the split once (as ``companion evaluate`` does: shipped weights, the
closer look on ``auto``), keeps the per-index readings and back boxes in ``--cache``, and scores the
same readings grouped with and without the opposite-corner rule of
:func:`companion.vision.grouping.group_cards` (``one_card_geometry``) and with and without the card-shape check on backs
(:func:`companion.vision.grouping.card_shaped`). The last row (both on, the defaults) equals
``companion evaluate ... --split holdout``.
"""
from __future__ import annotations

import argparse
import json
import pickle
from pathlib import Path


def read_all(root: Path, split: str, limit: int | None) -> list[dict]:
    from companion.vision.detector import Detector
    from companion.vision.evaluation import list_images, load_scene, read_class_names

    detector = Detector.load(tile="auto")
    names = read_class_names(root / "data.yaml")
    images = list_images(root, split)[:limit]
    photos = []
    for n, path in enumerate(images, 1):
        frame, truth = load_scene(root, names, [path])
        reading = detector.read(frame)
        photos.append({"name": path.name, "shape": frame.shape[:2], "truth": truth,
                       "indices": reading.indices, "backs": reading.backs})
        if n % 25 == 0:
            print(f"read {n}/{len(images)}", flush=True)
    return photos


def score(photos: list[dict], **options) -> dict:
    from companion.vision.evaluation import score_image, summarise
    from companion.vision.grouping import group_cards

    scores = [score_image(p["name"], p["truth"], group_cards(p["indices"], p["backs"], p["shape"], **options))
              for p in photos]
    return summarise(scores)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--split", default="holdout", choices=["holdout", "all"])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--cache", type=Path, default=None, help="pickle of the readings: reused when it exists")
    args = parser.parse_args(argv)
    if args.cache is not None and args.cache.exists():
        photos = pickle.loads(args.cache.read_bytes())
    else:
        photos = read_all(args.folder, args.split, args.limit)
        if args.cache is not None:
            args.cache.write_bytes(pickle.dumps(photos))
    variants = {"opposite-corner rule off, backs unchecked": {"one_card_geometry": False, "check_back_shape": False},
                "opposite-corner rule on, backs unchecked": {"one_card_geometry": True, "check_back_shape": False},
                "opposite-corner rule on, backs card-shaped": {"one_card_geometry": True, "check_back_shape": True}}
    for label, options in variants.items():
        summary = score(photos, **options)
        wanted = {"cards": summary["overall"], "backs": summary["per_class"].get("BACK")}
        print(f"{label} ({len(photos)} photos): {json.dumps(wanted)}")


if __name__ == "__main__":
    main()
