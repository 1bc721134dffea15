"""Train both recognition stages from a fixed seed and export them to ``vision_models/weights/``.

One command does everything (artwork, data, detector, classifier, ONNX export, ``models.json``)::

    .venv/bin/python -m vision_models.train.first_run --seed 0

Needs the optional ``train`` extra (torch, ultralytics, onnxslim, cairosvg). Generated data, runs
and checkpoints live under ``var/`` (git-ignored); everything is cached or resumed, so rerunning
the same command continues where it stopped. The two stages train at the same time in two child
processes, one CPU thread each, each limited by wall-clock hours (ultralytics ``time=``) so the
whole run fits a known budget; ``--epochs-*`` replace the hour limits with fixed epoch counts.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from vision_models.data.distractors import DISTRACTOR_SHARE

ROOT = Path(__file__).resolve().parents[2]
VAR = ROOT / "var"
RUNS = VAR / "runs"
WEIGHTS = Path(__file__).resolve().parents[1] / "weights"
DETECTOR_TRAIN_IMGSZ, CLASSIFIER_IMGSZ = 416, 64
# The detector runs at the size it learned at. Run at 640 (real photos at 1.5x the scale they were
# trained at) the same weights missed 496 of the 1,208 held-out cards; at 416 they miss 275, and
# the network costs about 2.4x less (vision_models/EVALUATION.md, History).
DETECTOR_RUN_IMGSZ = DETECTOR_TRAIN_IMGSZ
# The detector's augmentation in every run that trains it (first run, CPU and GPU continuations):
# rotation comes from the scenes themselves, and a mirrored index is no card.
DETECTOR_AUGMENTATION = dict(fliplr=0.0, flipud=0.0, degrees=0.0, mosaic=0.5, close_mosaic=1, scale=0.35, translate=0.1)


def offline_environment() -> None:
    """No network, ever: ultralytics' settings, fonts and analytics stay local (see vision-facts.md)."""
    config = VAR / "yolo_config"
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_CONFIG_DIR"] = str(config)
    offline_font(config)


def offline_font(config: Path) -> None:
    """The font ultralytics would download (Arial.ttf) in its config folder ``config``: matplotlib's DejaVu
    Sans under that name. Copied to a temporary name and renamed, so a process that finds the file (the
    training beside a test run, two test processes) never finds half of it."""
    font = config / "Ultralytics" / "Arial.ttf"
    if font.exists():
        return
    import tempfile

    import matplotlib

    font.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".Arial.ttf.", dir=font.parent)
    os.close(handle)
    try:
        shutil.copyfile(Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf" / "DejaVuSans.ttf", temporary)
        os.chmod(temporary, 0o644)
        os.replace(temporary, font)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def continuation_weights(source: str, weights: str, threads: int) -> Path:
    """Ready to continue a finished run: offline, ``threads`` torch threads, and its weights file."""
    offline_environment()
    import torch

    torch.set_num_threads(threads)
    path = _run_dir(source) / "weights" / weights
    if not path.exists():
        raise SystemExit(f"no weights to continue from: {path}")
    return path


def _run_dir(name: str) -> Path:
    return RUNS / name


def _finished(name: str) -> bool:
    return (_run_dir(name) / "finished.json").exists()


def _epochs_done(name: str) -> int:
    results = _run_dir(name) / "results.csv"
    if not results.exists():
        return 0
    with results.open() as handle:
        return sum(1 for _ in csv.DictReader(handle))


def train_stage(stage: str, args: argparse.Namespace) -> None:
    """Train one stage in this process (called in a child process by ``main``)."""
    offline_environment()
    import torch
    from ultralytics import YOLO

    torch.set_num_threads(args.threads)
    name = f"{stage}_{args.tag}"
    run_dir = _run_dir(name)
    if _finished(name):
        print(f"[train] {name} already finished", flush=True)
        return
    last = run_dir / "weights" / "last.pt"
    started = time.time()
    if last.exists():
        print(f"[train] resuming {name} from {last}", flush=True)
        YOLO(str(last)).train(resume=True)
    elif stage == "detector":
        YOLO("yolo11n.yaml").train(
            data=str(VAR / "data" / "detect" / "data.yaml"), imgsz=DETECTOR_TRAIN_IMGSZ, batch=16,
            epochs=args.epochs_detector or 100, time=None if args.epochs_detector else args.detector_hours,
            device="cpu", workers=0, plots=False, amp=False, seed=args.seed, deterministic=True,
            optimizer="AdamW", lr0=0.002, warmup_epochs=0.3, cos_lr=False, patience=1000,
            **DETECTOR_AUGMENTATION,
            cache="ram", fraction=args.fraction, project=str(RUNS), name=name, exist_ok=True, pretrained=False, verbose=True,
        )
    else:
        YOLO("yolo11n-cls.yaml").train(
            data=str(VAR / "data" / "classify"), imgsz=CLASSIFIER_IMGSZ, batch=64,
            epochs=args.epochs_classifier or 100, time=None if args.epochs_classifier else args.classifier_hours,
            device="cpu", workers=0, plots=False, amp=False, seed=args.seed, deterministic=True,
            optimizer="AdamW", lr0=0.003, warmup_epochs=0.3, patience=1000,
            fliplr=0.0, flipud=0.0, scale=0.1, erasing=0.0, auto_augment=None, fraction=args.fraction,
            project=str(RUNS), name=name, exist_ok=True, pretrained=False, verbose=True,
        )
    (run_dir / "finished.json").write_text(json.dumps({"seconds": round(time.time() - started), "epochs": _epochs_done(name)}))


def _children(args: argparse.Namespace, stages: list[str]) -> None:
    """Train the stages side by side, one process (and one CPU thread) each."""
    procs = []
    logs = VAR / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    for stage in stages:
        command = [sys.executable, "-m", "vision_models.train.first_run", *sys.argv[1:], "--only-stage", stage]
        log = (logs / f"train_{stage}_{args.tag}.log").open("a")
        print(f"[train] {stage}: {' '.join(command)} > {log.name}", flush=True)
        procs.append((stage, subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)))
    for stage, proc in procs:
        if proc.wait() != 0:
            raise SystemExit(f"{stage} training failed (exit {proc.returncode}): see var/logs/train_{stage}_{args.tag}.log")


def export(args: argparse.Namespace, wall_seconds: dict) -> dict:
    offline_environment()
    from ultralytics import YOLO

    from vision_models.data.datasets import CLASSIFIER_CLASSES
    from vision_models.data.synth import CROP_EXPAND, DETECTOR_CLASSES

    WEIGHTS.mkdir(parents=True, exist_ok=True)
    report: dict = {}
    for stage, imgsz, target in (("detector", DETECTOR_RUN_IMGSZ, "detector.onnx"), ("classifier", CLASSIFIER_IMGSZ, "classifier.onnx")):
        run = _stage_run(stage, args)
        best = _run_dir(run) / "weights" / "best.pt"
        onnx_path = Path(YOLO(str(best)).export(format="onnx", imgsz=imgsz, simplify=True, dynamic=False, device="cpu"))
        shutil.copy(onnx_path, WEIGHTS / target)
        report[stage] = {"best_pt": str(best.relative_to(ROOT)), "epochs": _epochs_done(run)}
        # A continuation: walk back along the runs it continued, counting their epochs and time too.
        continuation_seconds = []
        marker = _run_dir(run) / "finished.json"
        while run != f"{stage}_{args.tag}" and marker.exists():
            record = json.loads(marker.read_text())
            source = record.get("continued_from")
            if not source:
                break
            continuation_seconds.insert(0, record["seconds"])
            report[stage]["epochs"] += _epochs_done(source)
            run, marker = source, _run_dir(source) / "finished.json"
        if continuation_seconds:
            wall_seconds[f"{stage}_continuation_seconds"] = continuation_seconds
    models = {
        "detector": {"file": "detector.onnx", "imgsz": DETECTOR_RUN_IMGSZ, "train_imgsz": DETECTOR_TRAIN_IMGSZ, "classes": list(DETECTOR_CLASSES)},
        "classifier": {"file": "classifier.onnx", "imgsz": CLASSIFIER_IMGSZ, "classes": list(CLASSIFIER_CLASSES),
                       "crop_expand": CROP_EXPAND, "normalize": "rgb/255"},
        "training": {
            "command": "python -m vision_models.train.first_run " + " ".join(sys.argv[1:]),
            "detector_run": _stage_run("detector", args),
            "classifier_run": _stage_run("classifier", args),
            "seed": args.seed,
            "epochs": {"detector": report["detector"]["epochs"], "classifier": report["classifier"]["epochs"]},
            "cost": {**wall_seconds, "hardware": "2 shared CPU cores, one torch thread per stage, stages in parallel"},
            "data": data_summary(),
        },
    }
    previous = WEIGHTS / "models.json"
    if previous.exists():  # keep run-time settings added by the runtime side (e.g. tuned thresholds)
        old = json.loads(previous.read_text())
        for stage in ("detector", "classifier"):
            for key, value in old.get(stage, {}).items():
                if key != "int8_file":  # quantized from the old weights: rerun vision_models/train/quantize.py
                    models[stage].setdefault(key, value)
        if "steps" in old.get("training", {}):  # the hand-kept record of every command that led here
            models["training"]["steps"] = old["training"]["steps"]
    # written before validation so the weights are usable even if validation is cut short
    (WEIGHTS / "models.json").write_text(json.dumps(models, indent=2) + "\n")
    models["training"]["validation"] = validate(args)
    (WEIGHTS / "models.json").write_text(json.dumps(models, indent=2) + "\n")
    return models


def _stage_run(stage: str, args: argparse.Namespace) -> str:
    """The run whose best.pt ships: this tag's, or a continued run named by --export-from (detector)
    or --export-classifier-from (classifier)."""
    continued = getattr(args, "export_from" if stage == "detector" else "export_classifier_from", None)
    return continued or f"{stage}_{args.tag}"


def validate(args: argparse.Namespace) -> dict:
    """The numbers ultralytics prints at validation, per domain (synthetic held-out decks, real val slice)."""
    from ultralytics import YOLO

    results: dict = {}
    detector = _run_dir(_stage_run("detector", args)) / "weights" / "best.pt"
    for domain in ("synthetic", "real"):
        data = VAR / "data" / "detect" / f"data_val_{domain}.yaml"
        metrics = YOLO(str(detector)).val(data=str(data), imgsz=DETECTOR_TRAIN_IMGSZ, batch=16, device="cpu", plots=False,
                                          workers=0, project=str(RUNS), name=f"val_detector_{domain}_{args.tag}", exist_ok=True)
        results[f"detector_{domain}_val"] = {k: round(float(v), 4) for k, v in metrics.results_dict.items()}
    classifier = _run_dir(_stage_run("classifier", args)) / "weights" / "best.pt"
    for domain, data in (("all", VAR / "data" / "classify"), *((d, _classify_domain(d)) for d in ("synthetic", "real"))):
        metrics = YOLO(str(classifier)).val(data=str(data), imgsz=CLASSIFIER_IMGSZ, batch=64, device="cpu", plots=False,
                                            workers=0, project=str(RUNS), name=f"val_classifier_{domain}_{args.tag}", exist_ok=True)
        results[f"classifier_{domain}_val"] = {k: round(float(v), 4) for k, v in metrics.results_dict.items()}
    return results


def _classify_domain(domain: str) -> Path:
    """A view of the classifier's val split with only real (``real*``) or only synthetic crops, as symlinks."""
    source = VAR / "data" / "classify"
    view = VAR / "data" / f"classify_val_{domain}"
    if view.exists():
        shutil.rmtree(view)
    (view / "val").mkdir(parents=True)
    os.symlink(source / "train", view / "train")
    for folder in sorted((source / "val").iterdir()):
        (view / "val" / folder.name).mkdir()
        for crop in folder.iterdir():
            if crop.name.startswith("real") == (domain == "real"):
                os.symlink(crop, view / "val" / folder.name / crop.name)
    return view


def data_summary() -> dict:
    detect, classify = VAR / "data" / "detect", VAR / "data" / "classify"
    summary = {}
    for split in ("train", "val"):
        images = list((detect / split / "images").glob("*"))
        summary[f"detector_{split}_images"] = {"synthetic": sum(p.name.startswith("scene_") for p in images),
                                               "real": sum(p.name.startswith("real_") for p in images)}
        crops = list((classify / split).glob("*/*.png"))
        summary[f"classifier_{split}_crops"] = {"synthetic": sum(not p.name.startswith("real") for p in crops),
                                                "real": sum(p.name.startswith("real") for p in crops)}
    return summary


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tag", default="main", help="run name suffix under var/runs/ (e.g. 'smoke')")
    parser.add_argument("--scenes", type=int, default=1500, help="synthetic detector training scenes")
    parser.add_argument("--val-scenes", type=int, default=200)
    parser.add_argument("--distractor-share", type=float, nargs="?", const=DISTRACTOR_SHARE, default=0.0,
                    help="share of scenes that also show unlabelled chips, coins, dice, phones, fanned strips "
                         f"(vision_models.data.distractors; alone: DISTRACTOR_SHARE = {DISTRACTOR_SHARE}, the next run's recipe; "
                         "default 0: the shipped weights' scenes)")
    parser.add_argument("--crop-variants", type=int, default=8, help="synthetic crops per (deck, card, corner)")
    parser.add_argument("--none-crops", type=int, default=4000)
    parser.add_argument("--real-variants", type=int, default=2, help="crops per real training label")
    parser.add_argument("--no-real", action="store_true", help="synthetic data only")
    parser.add_argument("--detector-hours", type=float, default=1.2)
    parser.add_argument("--classifier-hours", type=float, default=0.7)
    parser.add_argument("--epochs-detector", type=int, default=0, help="fixed epochs instead of --detector-hours")
    parser.add_argument("--epochs-classifier", type=int, default=0, help="fixed epochs instead of --classifier-hours")
    parser.add_argument("--threads", type=int, default=1, help="torch threads per stage")
    parser.add_argument("--no-export", action="store_true")
    parser.add_argument("--export-from", default=None, help="ship the detector of this run under var/runs/ (e.g. a continuation)")
    parser.add_argument("--export-classifier-from", default=None,
                        help="ship the classifier of this run under var/runs/ (e.g. vision_models.train.finetune_classifier's)")
    parser.add_argument("--fraction", type=float, default=1.0, help="train on this fraction of each training set (smoke runs)")
    parser.add_argument("--skip-data", action="store_true", help="use var/data as it is (smoke runs beside a real one)")
    parser.add_argument("--only-stage", choices=["detector", "classifier"], help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)

    if args.only_stage:
        train_stage(args.only_stage, args)
        return

    started = time.time()
    from vision_models.data import artwork, datasets

    if not args.skip_data:
        artwork.install()
        datasets.build_detect(args.seed, args.scenes, args.val_scenes, real=not args.no_real,
                              distractor_share=args.distractor_share)
        datasets.build_classify(args.seed, args.crop_variants, args.none_crops, args.real_variants, real=not args.no_real)
    data_seconds = round(time.time() - started)
    print(f"[train] data ready in {data_seconds} s", flush=True)
    build_record = VAR / "data" / "build_seconds.json"
    if data_seconds > 60 or not build_record.exists():  # a real build, not a cache hit: remember its cost
        build_record.parent.mkdir(parents=True, exist_ok=True)
        build_record.write_text(json.dumps({"data_seconds": data_seconds}))
    data_seconds = json.loads(build_record.read_text())["data_seconds"]
    trained = time.time()
    pending = [s for s in ("detector", "classifier") if not _finished(f"{s}_{args.tag}")]
    _children(args, pending)
    cost = {"data_seconds": data_seconds}
    if pending:
        cost["train_wall_seconds_this_call"] = round(time.time() - trained)
    for stage in ("detector", "classifier"):
        marker = _run_dir(f"{stage}_{args.tag}") / "finished.json"
        if marker.exists():
            cost[f"{stage}_seconds"] = json.loads(marker.read_text())["seconds"]
    if not args.no_export:
        models = export(args, cost)
        print(json.dumps(models["training"], indent=2), flush=True)
    print(f"[train] done in {round(time.time() - started)} s", flush=True)


if __name__ == "__main__":
    main()
