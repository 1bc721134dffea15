"""Continue the detector on a borrowed GPU: pack what it needs here, train there, ship the result here.

A GPU machine is sometimes lent for a few minutes. It has no network and no card artwork, and only
64 MiB travel with a call, so the run is split in two:

``pack`` (here, where the artwork and the real photos are)::

    .venv/bin/python -m vision_models.train.gpu_continue pack --from detector_cont3

writes ``var/gpu_pack/``: the training decks' artwork as WebP, the real training photos and the
validation images scaled to the training size (416, which ultralytics would resize them to anyway)
as WebP, the start weights, and the ultralytics wheel (``var/gpu_pack/wheels``, downloaded beside it).

``run`` (there, with the GPU)::

    python -m vision_models.train.gpu_continue run --out var/runs/detector_gpu --scenes 4000 --real-repeats 2 --hours 0.11

renders fresh synthetic scenes from the packed artwork on every core (a new seed, so scenes the
detector has not seen), adds the real photos, and continues the detector from the packed weights
with the same augmentation as ``continue_detector``; the real photos are repeated so they keep a
fair share of each epoch, for a wall-clock budget. Every saved checkpoint
is copied (stripped, 5 MB) to ``--out`` at once, so a run cut short still returns its best weights.
``--out`` is laid out like a run under ``var/runs/`` (``weights/best.pt``, ``results.csv``,
``finished.json`` naming the run it continued), so once it is copied back here it ships like any
continuation (``python -m vision_models.train.first_run --skip-data --export-from detector_gpu``).

``--table-scenes N`` also renders N of the project's table recordings there (``vision_models.data.table_scenes``:
the drawn deck on the mats, 16 images each, and the validation seeds), ``--real-turned`` makes every
second repeat of the real photos a half-turned copy (a photo from the other side of the table), and
``--total-seconds`` bounds the whole run, rendering included, for a machine lent for minutes.
``--distractor-share`` puts chips, coins, dice, phones and fanned strips (``vision_models.data.distractors``,
unlabelled) into that share of the scenes (the next run's recipe, MODEL_CARD.md). Session 5
prepared ``--from detector_gpu --weights best`` with ``--photo-quality 70 --art-quality 85`` (40 MiB, so
that it fits beside the 21 MiB working tree) and ``run --seed 2 --table-scenes 80 --real-turned
--total-seconds 530``; no GPU was lent that session, and the table frames went into a CPU continuation
instead (``continue_detector --data``).

The session-3 step was this command on one H200 (16 cores), 42 epochs in 417 s of
training after 40 s of rendering; ``--epochs 42`` replays it without the clock. Without a GPU the
same step runs on the CPU, at roughly 30 minutes an epoch on two cores.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import sys
import time
from pathlib import Path

from vision_models.data.distractors import DISTRACTOR_SHARE
from vision_models.train.first_run import DETECTOR_AUGMENTATION, DETECTOR_TRAIN_IMGSZ, offline_environment

ROOT = Path(__file__).resolve().parents[2]
PACK = ROOT / "var" / "gpu_pack"


# --------------------------------------------------------------------------- pack (here)


def _webp(source: Path, target: Path, quality: int, longest: int | None = None) -> None:
    import cv2

    image = cv2.imread(str(source), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise SystemExit(f"unreadable image: {source}")
    if longest and max(image.shape[:2]) > longest:
        scale = longest / max(image.shape[:2])
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    target.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(target), image, [cv2.IMWRITE_WEBP_QUALITY, quality])


def pack(args: argparse.Namespace) -> None:
    from vision_models.data import artwork, datasets, real_split
    from vision_models.train import first_run as train

    out = Path(args.pack)
    if out.exists():
        for child in out.iterdir():
            if child.name != "wheels":
                shutil.rmtree(child) if child.is_dir() else child.unlink()
    decks = artwork.available_decks()
    if not decks:
        raise SystemExit("no artwork under var/artwork: run python -m vision_models.data.artwork first")
    train_decks, _ = datasets.deck_split(decks)
    for deck in decks:
        manifest = json.loads((deck / "index_boxes.json").read_text())
        # every deck lends its back; only the training decks' faces go into scenes
        faces = deck in train_decks and deck.name not in artwork.FOUR_INDEX_DECKS and manifest.get("faces", True)
        if not faces:
            manifest["faces"] = False
            manifest["index_boxes"] = {}
        target = out / "artwork" / deck.name
        target.mkdir(parents=True)
        (target / "index_boxes.json").write_text(json.dumps(manifest))
        _webp(deck / "back.png", target / "back.webp", args.art_quality)
        for code in manifest["index_boxes"]:
            _webp(deck / f"{code}.png", target / f"{code}.webp", args.art_quality)

    detect = datasets.DATA_DIR / "detect"
    for image in real_split.real_images():
        if real_split.is_holdout(image.name) or datasets.is_real_val(image.name):
            continue
        name = "real_" + image.stem
        _webp(image, out / "real" / "images" / f"{name}.webp", args.photo_quality, DETECTOR_TRAIN_IMGSZ)
        lines = datasets.real_detect_lines(image)
        (out / "real" / "labels").mkdir(parents=True, exist_ok=True)
        (out / "real" / "labels" / f"{name}.txt").write_text("".join(f"{line}\n" for line in lines))
    # the same validation images the CPU runs chose their best epoch on
    for image in sorted((detect / "val" / "images").iterdir()):
        _webp(image, out / "val" / "images" / f"{image.stem}.webp", args.photo_quality, DETECTOR_TRAIN_IMGSZ)
        label = detect / "val" / "labels" / f"{image.stem}.txt"
        (out / "val" / "labels").mkdir(parents=True, exist_ok=True)
        shutil.copy(label, out / "val" / "labels" / label.name)

    start = train.RUNS / args.source / "weights" / f"{args.weights}.pt"
    if not start.exists():
        raise SystemExit(f"no weights to continue from: {start}")
    shutil.copy(start, out / "start.pt")
    (out / "pack.json").write_text(json.dumps({"continued_from": args.source, "weights": args.weights, "photo_quality": args.photo_quality,
                                               "art_quality": args.art_quality}))
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"[pack] {out}: {size / 2**20:.1f} MiB", flush=True)


# --------------------------------------------------------------------------- run (there)


def _unpack_artwork(packed: Path, target: Path) -> list[Path]:
    import cv2

    decks = []
    for deck in sorted(p.parent for p in packed.glob("*/index_boxes.json")):
        out = target / deck.name
        out.mkdir(parents=True, exist_ok=True)
        shutil.copy(deck / "index_boxes.json", out / "index_boxes.json")
        for image in deck.glob("*.webp"):
            cv2.imwrite(str(out / f"{image.stem}.png"), cv2.imread(str(image), cv2.IMREAD_UNCHANGED))
        decks.append(out)
    return decks


def _render_chunk(job: tuple) -> int:
    from vision_models.data import synth

    deck_dirs, out_dir, seed, start, count, distractor_share = job
    decks = [d for d in synth.load_decks(deck_dirs, for_scenes=True) if d.faces]
    backs = [d.back for d in synth.load_decks(deck_dirs, with_faces=False)]
    synth.write_scenes(Path(out_dir), decks, backs, count, seed, start=start, distractor_share=distractor_share)
    return count


def render_scenes(deck_dirs: list[Path], out_dir: Path, scenes: int, seed: int, processes: int,
                  distractor_share: float = 0.0) -> None:
    """The same scenes as ``synth.write_scenes`` would make in one process: each is a function of (seed, i)."""
    from multiprocessing import get_context

    chunk = -(-scenes // processes)
    jobs = [(deck_dirs, str(out_dir), seed, start, min(chunk, scenes - start), distractor_share)
            for start in range(0, scenes, chunk)]
    with get_context("spawn").Pool(len(jobs)) as pool:
        done = sum(pool.map(_render_chunk, jobs))
    print(f"[gpu] rendered {done} scenes", flush=True)


def render_table_scenes(work: Path, scenes: int, processes: int) -> tuple[Path, Path]:
    """Frames of rendered table recordings (``vision_models.data.table_scenes``: the project's own drawn deck on
    its mats, hands, far-edge cards): ``scenes`` training recordings and the validation seeds."""
    from vision_models.data import table_scenes

    root = work / "table"
    written = sum(table_scenes.render_recordings(root, scenes, processes))
    print(f"[gpu] rendered {written} table images from {scenes + len(table_scenes.VAL_SEEDS)} recordings", flush=True)
    return root / "train" / "images", root / "val" / "images"


def _turned_half(image_path: Path, label_path: Path, image_out: Path, label_out: Path) -> None:
    """A photo and its boxes turned 180 degrees: the same table seen from the other side (not mirrored)."""
    import cv2

    cv2.imwrite(str(image_out), cv2.rotate(cv2.imread(str(image_path)), cv2.ROTATE_180))
    lines = []
    for line in label_path.read_text().split("\n"):
        if line.strip():
            cls, x, y, w, h = line.split()
            lines.append(f"{cls} {1 - float(x):.6f} {1 - float(y):.6f} {w} {h}")
    label_out.write_text("".join(f"{line}\n" for line in lines))


def _repeated_real(real: Path, work: Path, repeats: int, turned: bool = False) -> list[Path]:
    """The real photos, ``repeats`` times over (links under new names: ultralytics keys its cache by path),
    so fresh synthetic scenes do not crowd out the only real domain there is. With ``turned`` every
    second repeat is the photos turned half a turn: most real photos show cards upright to the camera,
    and a detector that learned that misses the cards of the player across the table."""
    dirs = [real.resolve() / "images"]
    for k in range(1, repeats):
        copy = work / f"real_repeat_{k}"
        for folder in ("images", "labels"):
            (copy / folder).mkdir(parents=True, exist_ok=True)
        for item in (real / "images").iterdir():
            target = copy / "images" / f"r{k}_{item.name}"
            label = real / "labels" / f"{item.stem}.txt"
            if target.exists():
                continue
            if turned and k % 2 == 1:
                _turned_half(item, label, target.with_suffix(".png"), copy / "labels" / f"r{k}_{item.stem}.txt")
            else:
                target.symlink_to(item.resolve())
                (copy / "labels" / f"r{k}_{label.name}").symlink_to(label.resolve())
        dirs.append(copy / "images")
    return dirs


def _results_without_polars(trainer) -> dict:
    """``BaseTrainer.read_results_csv`` with the csv module: the GPU image has no polars."""
    try:
        with open(trainer.csv, newline="") as handle:
            rows = list(csv.DictReader(handle))
    except OSError:
        return {}
    columns = {key.strip(): [] for key in (rows[0] if rows else {})}
    for row in rows:
        for key, value in row.items():
            columns[key.strip()].append(float(value))
    return columns


def run(args: argparse.Namespace) -> None:

    offline_environment()
    import torch
    from ultralytics import YOLO
    from ultralytics.engine.trainer import BaseTrainer
    from ultralytics.utils.torch_utils import strip_optimizer

    try:
        import polars  # noqa: F401
    except ImportError:
        BaseTrainer.read_results_csv = _results_without_polars

    packed, work, out = Path(args.pack), Path(args.work), Path(args.out)
    if (out / "finished.json").exists():
        print(f"[gpu] {out} already finished", flush=True)
        return
    (out / "weights").mkdir(parents=True, exist_ok=True)
    started = time.time()
    deck_dirs = _unpack_artwork(packed / "artwork", work / "artwork")
    scenes = work / "scenes"
    render_scenes(deck_dirs, scenes, args.scenes, args.seed, args.processes, args.distractor_share)
    train_dirs = [scenes / "images", *_repeated_real(packed / "real", work, args.real_repeats, args.real_turned)]
    val_dirs = [(packed / "val" / "images").resolve()]
    if args.table_scenes:
        table_train, table_val = render_table_scenes(work, args.table_scenes, args.processes)
        train_dirs.append(table_train)
        val_dirs.append(table_val)
    data = work / "data.yaml"
    data.write_text("train:\n" + "".join(f"  - {d}\n" for d in train_dirs)
                    + "val:\n" + "".join(f"  - {d}\n" for d in val_dirs) + "names:\n  0: index\n  1: back\n")
    data_seconds = round(time.time() - started)
    print(f"[gpu] data ready in {data_seconds} s; cuda: {torch.cuda.is_available()}", flush=True)

    def copy_checkpoints(trainer) -> None:
        # stripped (EMA weights, no optimiser): 5 MB instead of 26, under the 16 MB a returned file may have
        strip_optimizer(trainer.last, s=str(out / "weights" / "last.pt"))
        if trainer.best_fitness == trainer.fitness:
            strip_optimizer(trainer.best, s=str(out / "weights" / "best.pt"))
        shutil.copy(trainer.csv, out / "results.csv")

    hours = args.hours
    if args.total_seconds:
        # a lent machine runs one command for a few minutes: what rendering took comes out of training's time
        hours = max(0.01, (args.total_seconds - (time.time() - started) - 60) / 3600)
        print(f"[gpu] training for {hours * 3600:.0f} s", flush=True)
    model = YOLO(str(packed / "start.pt"))
    model.add_callback("on_model_save", copy_checkpoints)
    trained = time.time()
    # pretrained=True keeps the loaded weights; batch 64 = the CPU runs' 16 x 4 accumulated (nbs 64)
    model.train(
        data=str(data), imgsz=DETECTOR_TRAIN_IMGSZ, batch=args.batch, epochs=args.epochs or 1000,
        time=None if args.epochs else hours, device=args.device or ("0" if torch.cuda.is_available() else "cpu"), workers=args.workers, plots=False,
        amp=False, seed=args.seed, deterministic=True, optimizer="AdamW", lr0=args.lr0, warmup_epochs=args.warmup,
        cos_lr=False, patience=1000, **DETECTOR_AUGMENTATION, cache="ram", fraction=args.fraction,
        project=str(work / "runs"), name=args.name, exist_ok=True, pretrained=True, verbose=True,
    )
    source = json.loads((packed / "pack.json").read_text())["continued_from"]
    (out / "finished.json").write_text(json.dumps({
        "seconds": round(time.time() - trained), "data_seconds": data_seconds, "continued_from": source,
        "device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu",
        "scenes": args.scenes, "scene_seed": args.seed, "table_scenes": args.table_scenes,
        "real_turned": args.real_turned, "command": "python -m vision_models.train.gpu_continue " + " ".join(args.argv),
    }))
    if (work / "runs" / args.name / "args.yaml").exists():
        shutil.copy(work / "runs" / args.name / "args.yaml", out / "args.yaml")
    print(f"[gpu] done in {round(time.time() - started)} s", flush=True)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = parser.add_subparsers(dest="verb", required=True)
    p = verbs.add_parser("pack", help="write var/gpu_pack here")
    p.add_argument("--from", dest="source", default="detector_cont3", help="run under var/runs/ to continue from")
    p.add_argument("--pack", default=str(PACK))
    p.add_argument("--weights", choices=("last", "best"), default="last", help="which checkpoint of that run to start from")
    p.add_argument("--photo-quality", type=int, default=78)
    p.add_argument("--art-quality", type=int, default=92)
    r = verbs.add_parser("run", help="train on the machine with the GPU")
    r.add_argument("--pack", default=str(PACK))
    r.add_argument("--work", default="/tmp/card_companion_gpu")
    r.add_argument("--out", required=True, help="a run folder in var/runs' layout (weights/best.pt, results.csv, finished.json)")
    r.add_argument("--name", default="detector_gpu")
    r.add_argument("--scenes", type=int, default=4000)
    r.add_argument("--real-repeats", type=int, default=2, help="times each real training photo appears per epoch")
    r.add_argument("--real-turned", action="store_true", help="every second repeat of the real photos turned half a turn")
    r.add_argument("--table-scenes", type=int, default=0,
                   help="rendered table recordings to add (vision_models.data.table_scenes; 16 images each), with its validation seeds")
    r.add_argument("--seed", type=int, default=1, help="scene seed: 0 made the CPU runs' scenes")
    r.add_argument("--distractor-share", type=float, nargs="?", const=DISTRACTOR_SHARE, default=0.0,
               help="share of scenes that also show unlabelled chips, coins, dice, phones, fanned strips "
                    f"(vision_models.data.distractors; alone: DISTRACTOR_SHARE = {DISTRACTOR_SHARE}, the next run's recipe; "
                    "default 0: the shipped weights' scenes)")
    r.add_argument("--hours", type=float, default=0.1)
    r.add_argument("--total-seconds", type=int, default=0,
                   help="instead of --hours: the whole run's wall time, rendering included (training gets the rest less a minute)")
    r.add_argument("--epochs", type=int, default=0, help="fixed epochs instead of --hours")
    r.add_argument("--lr0", type=float, default=0.001)
    r.add_argument("--warmup", type=float, default=0.5)
    r.add_argument("--batch", type=int, default=64)
    r.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 2))
    r.add_argument("--processes", type=int, default=os.cpu_count() or 2, help="scene-rendering processes")
    r.add_argument("--device", default=None, help="default: the first GPU if there is one, else cpu (days, not minutes)")
    r.add_argument("--fraction", type=float, default=1.0)
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else argv
    pack(args) if args.verb == "pack" else run(args)


if __name__ == "__main__":
    main()
