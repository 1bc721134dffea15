"""Fine-tune the classifier on the crops the shipped detector actually cuts from real training photos.

The classifier learned from crops of the labelled boxes (jittered like a detector's). At run time it
reads the detector's boxes, which sit, size and cut differently, and on the real photos most of the
remaining errors are confident misreads. This mines those runtime crops from the real *training*
photos (never the held-out or validation ones), labels each by the labelled index it overlaps, adds
them to the classifier's training set and continues the classifier from its weights::

    .venv/bin/python -m vision_models.train.finetune_classifier --from classifier_main --name classifier_hard --epochs 4
    .venv/bin/python -m vision_models.train.finetune_classifier --crops table --name classifier_table --epochs 3

``--crops table`` adds index crops of rendered table recordings instead (the project's drawn deck
on a mat, filmed from above: ``vision_models.data.table_scenes``).

Tried in session 3 and not shipped: the 4-epoch run read the 70 validation photos worse end to end
(card F1 0.923 -> 0.904, ``vision_models.checks.evaluate --sweep``), see MODEL_CARD.md. The crops land in
``var/data/classify_hard/`` (the original training crops are linked in beside them; validation is
the original's); the run in ``var/runs/<name>/``. Ship it with
``python -m vision_models.train.first_run ... --export-classifier-from <name>``.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


from vision_models.data.datasets import CLASSIFIER_CLASSES, DATA_DIR, box_iou, class_folder, is_real_val, link_original
from vision_models.train.first_run import CLASSIFIER_IMGSZ, RUNS, _epochs_done, _run_dir, continuation_weights

HARD_DIR = DATA_DIR / "classify_hard"
MATCH_IOU = 0.5   # a detector box is that label's index when they overlap this much


def label_for(box, labelled: list[tuple[str, tuple[float, float, float, float]]]) -> str | None:
    """The code of the labelled index this detector box is, or None when it overlaps none well enough."""
    best = max(labelled, key=lambda item: box_iou(box, item[1]), default=None)
    if best is None or best[0] == "BACK" or box_iou(box, best[1]) < MATCH_IOU:
        return None
    return best[0]


def mine(out: Path = HARD_DIR, weights: str | None = None) -> dict:
    """Write the detector's crops of the real training photos, by label; link the original set in."""
    from companion.vision import Detector, load_image
    from companion.vision.detector import INDEX_CLASS, classifier_crop
    from vision_models.data import real_split
    import cv2

    marker = out / "done.json"
    if marker.exists():
        return json.loads(marker.read_text())
    detector = Detector.load(weights, tile="off")
    counts = {"photos": 0, "crops": 0, "unmatched_boxes": 0}
    photos = [p for p in real_split.real_images() if not real_split.is_holdout(p.name) and not is_real_val(p.name)]
    for n, path in enumerate(photos, 1):
        frame = load_image(path)
        height, width = frame.shape[:2]
        labelled = [(code, ((cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height))
                    for code, cx, cy, w, h in real_split.read_labels(real_split.label_path_for(path))]
        raw = detector.detect_boxes(frame)
        for k, box in enumerate(raw.boxes[raw.classes == INDEX_CLASS]):
            code = label_for(box, labelled)
            if code is None:
                counts["unmatched_boxes"] += 1
                continue
            folder = out / "train" / class_folder(CLASSIFIER_CLASSES.index(code))
            folder.mkdir(parents=True, exist_ok=True)
            crop = classifier_crop(frame, box, CLASSIFIER_IMGSZ, detector.manifest.crop_expand)
            cv2.imwrite(str(folder / f"hard_{path.stem}_{k}.png"), crop)
            counts["crops"] += 1
        counts["photos"] += 1
        if n % 200 == 0 or n == len(photos):
            print(f"[hard crops] {n}/{len(photos)} photos, {counts['crops']} crops", flush=True)
    link_original(out)
    marker.write_text(json.dumps(counts))
    return counts


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="source", default="classifier_main", help="classifier run to continue from")
    parser.add_argument("--name", default="classifier_hard")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lr0", type=float, default=0.0005)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--weights", default=None, help="the detector that cuts the crops (default: the shipped one)")
    parser.add_argument("--crops", choices=("real", "table"), default="real",
                        help="real: the detector's crops of the real training photos; table: index crops of rendered "
                             "table recordings (vision_models.data.table_scenes --crops)")
    parser.add_argument("--table-scenes", type=int, default=40, help="recordings rendered for --crops table")
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    if (_run_dir(args.name) / "finished.json").exists():
        print(f"[finetune] {args.name} already finished", flush=True)
        return
    started = time.time()
    if args.crops == "table":
        from vision_models.data.table_scenes import CROP_DIR, build_crops

        data, counts = CROP_DIR, build_crops(args.table_scenes)
    else:
        data, counts = HARD_DIR, mine(weights=args.weights)
    print(f"[finetune] {args.crops} crops: {counts}", flush=True)
    start = continuation_weights(args.source, "best.pt", args.threads)
    from ultralytics import YOLO

    trained = time.time()
    # pretrained=True keeps the loaded weights; the same augmentation as the first run (no flips)
    YOLO(str(start)).train(
        data=str(data), imgsz=CLASSIFIER_IMGSZ, batch=64, epochs=args.epochs, device="cpu", workers=0,
        plots=False, amp=False, seed=args.seed, deterministic=True, optimizer="AdamW", lr0=args.lr0,
        warmup_epochs=0.0, patience=1000, fliplr=0.0, flipud=0.0, scale=0.1, erasing=0.0, auto_augment=None,
        project=str(RUNS), name=args.name, exist_ok=True, pretrained=True, verbose=True,
    )
    (_run_dir(args.name) / "finished.json").write_text(json.dumps({
        "seconds": round(time.time() - trained), "mining_seconds": round(trained - started),
        "epochs": _epochs_done(args.name), "continued_from": args.source, "crops": args.crops, "added_crops": counts}))


if __name__ == "__main__":
    main()
