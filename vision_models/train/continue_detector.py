"""Continue training the detector from a finished run's last weights, with a fresh learning-rate schedule.

The first run is bounded by wall-clock hours on two shared cores, so it ends undertrained and with its
learning rate decayed to almost nothing; this continues from its ``last.pt`` (the weights, not the
optimiser: ``resume`` cannot extend a finished run) with the same data and augmentation::

    .venv/bin/python -m vision_models.train.continue_detector --from detector_main --name detector_cont --hours 0.6

The continued run lives in ``var/runs/<name>/``; ``vision_models.train.first_run --export-from <name>`` (or the
export step) ships its ``best.pt``.
"""
from __future__ import annotations

import argparse
import json
import time

from vision_models.train.first_run import DETECTOR_AUGMENTATION, DETECTOR_TRAIN_IMGSZ, RUNS, VAR, _epochs_done, _run_dir, continuation_weights


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="source", default="detector_main", help="finished run to continue from")
    parser.add_argument("--name", default="detector_cont")
    parser.add_argument("--hours", type=float, default=0.6, help="wall-clock budget of the continuation")
    parser.add_argument("--epochs", type=int, default=0, help="fixed epochs instead of --hours")
    parser.add_argument("--lr0", type=float, default=0.001)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", default=str(VAR / "data" / "detect" / "data.yaml"),
                        help="dataset yaml (e.g. var/data/detect_table/data.yaml from vision_models.data.table_scenes)")
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    if (_run_dir(args.name) / "finished.json").exists():
        print(f"[continue] {args.name} already finished", flush=True)
        return

    start_weights = continuation_weights(args.source, "last.pt", args.threads)
    from ultralytics import YOLO

    started = time.time()
    # pretrained=True keeps the loaded weights (pretrained=False would re-initialise them).
    YOLO(str(start_weights)).train(
        data=args.data, imgsz=DETECTOR_TRAIN_IMGSZ, batch=16,
        epochs=args.epochs or 100, time=None if args.epochs else args.hours,
        device="cpu", workers=0, plots=False, amp=False, seed=args.seed, deterministic=True,
        optimizer="AdamW", lr0=args.lr0, warmup_epochs=0.0, cos_lr=False, patience=1000,
        **DETECTOR_AUGMENTATION,
        cache="ram", project=str(RUNS), name=args.name, exist_ok=True, pretrained=True, verbose=True,
    )
    (_run_dir(args.name) / "finished.json").write_text(json.dumps(
        {"seconds": round(time.time() - started), "epochs": _epochs_done(args.name), "continued_from": args.source,
         "data": args.data}))


if __name__ == "__main__":
    main()
