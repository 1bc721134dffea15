"""Score the shipped models on the held-out real photos and rewrite ``vision_models/EVALUATION.md``.

    python -m vision_models.checks.evaluate [extra `companion evaluate` options]
    python -m vision_models.checks.evaluate --sweep [--weights DIR] [--limit N]

The first form is a thin wrapper around ``companion evaluate`` (``companion/vision/evaluation.py``).
``--sweep`` chooses the detector's confidence threshold fairly: it scores card F1 at several
thresholds on the real *validation* photos (``vision_models.data.datasets.is_real_val``: a slice of the
real training split that training only watched), never on the held-out photos the headline uses.
The detector and classifier run once per photo at the lowest threshold and ultralytics' NMS IoU
0.7; each operating point (index threshold, back threshold, a stricter NMS IoU among index boxes)
then keeps what passes and groups it into cards again. Write the chosen point into models.json's
``"detector"`` section (``conf``, ``back_conf``, ``iou``): the runtime reads it from there.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np
from pathlib import Path

from vision_models.data.real_split import REAL_DATASET

REPORT = Path(__file__).resolve().parents[1] / "EVALUATION.md"
SWEEP = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85)
BACK_SWEEP = (0.25, 0.4, 0.55, 0.7)
IOU_SWEEP = (0.7, 0.5, 0.3)


def sweep(weights: str | None, limit: int | None, backend: str = "onnxruntime") -> list[dict]:
    from companion.vision import Detector, load_image
    from companion.vision.evaluation import group_truth, read_class_names, read_labels, score_image, summarise
    from companion.vision.decode import nms
    from companion.vision.grouping import group_cards
    from vision_models.data.datasets import is_real_val

    names = read_class_names(REAL_DATASET / "data.yaml")
    photos = sorted(p for p in (REAL_DATASET / "images").iterdir() if is_real_val(p.name))[:limit]
    detector = Detector.load(weights, backend=backend, conf=min(SWEEP), back_conf=min(SWEEP), iou=0.7)
    points = [(c, b, i) for c in SWEEP for b in BACK_SWEEP for i in IOU_SWEEP]
    scores = {point: [] for point in points}
    for n, path in enumerate(photos, 1):
        frame = load_image(path)
        truth = group_truth(read_labels(REAL_DATASET / "labels" / (path.stem + ".txt"), names, frame.shape[1], frame.shape[0]))
        reading = detector.read(frame)
        for conf, back_conf, iou in points:
            indices = [r for r in reading.indices if r.detection_confidence > conf]
            if indices and iou < 0.7:
                boxes = np.array([r.box for r in indices], np.float32)
                indices = [indices[k] for k in nms(boxes, np.array([r.detection_confidence for r in indices]), iou)]
            cards = group_cards(indices, [b for b in reading.backs if b[1] > back_conf], frame.shape[:2])
            scores[conf, back_conf, iou].append(score_image(path.name, truth, cards))
        print(f"\r{n}/{len(photos)} validation photos", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    rows = [{"conf": c, "back_conf": b, "iou": i, **summarise(scores[c, b, i])["overall"]} for c, b, i in points]
    # Ties (the 70 photos hold few backs and few overlapping indices) keep what is in force now.
    now = detector.manifest.thresholds
    return sorted(rows, key=lambda r: (-r["f1"], abs(r["back_conf"] - now["back_conf"]), abs(r["iou"] - now["iou"]),
                                       abs(r["conf"] - now["conf"])))


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--sweep" in argv:
        parser = argparse.ArgumentParser(description="choose the detector threshold on the real validation photos")
        parser.add_argument("--sweep", action="store_true")
        parser.add_argument("--weights")
        parser.add_argument("--limit", type=int)
        parser.add_argument("--backend", default="onnxruntime")
        parser.add_argument("--top", type=int, default=12, help="print the best N operating points")
        args = parser.parse_args(argv)
        rows = sweep(args.weights, args.limit, args.backend)
        print("| conf | back_conf | iou | precision | recall | F1 | tp | fp | fn |\n|---|---|---|---|---|---|---|---|---|")
        for r in rows[:args.top]:
            print(f"| {r['conf']} | {r['back_conf']} | {r['iou']} | {r['precision']:.3f} | {r['recall']:.3f} | {r['f1']:.3f} "
                  f"| {r['tp']} | {r['fp']} | {r['fn']} |")
        return 0
    from companion.cli import main as companion

    return companion(["evaluate", str(REAL_DATASET), "--split", "holdout", "--out", str(REPORT), *argv])


if __name__ == "__main__":
    sys.exit(main())
