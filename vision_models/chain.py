"""The detector's training chain on real tables (issue 28): data to shipped ONNX, one resumable command.

    python -m vision_models.chain status     # one line: where the chain stands
    python -m vision_models.chain run        # runs (or continues) every step not done yet, in order
    python -m vision_models.chain steps      # the steps in the order they run, with what each makes
    python -m vision_models.chain interim    # the best epoch so far, measured beside the shipped models
    python -m vision_models.chain report     # those figures as a markdown table, source by source

Every step leaves its result under ``var/`` and is skipped when that result is there, so a run killed
at a session's end continues where it stopped when started again (training resumes from its last
epoch's ``last.pt``). ``var/`` is kept outside the work tree: when the checkout has none, the chain
links it to ``~/.cache/card-companion/var`` (``CARD_COMPANION_VAR`` to choose another place), which
outlives a checkout laid anew on the same machine. Start it in the background at a session's start::

    nohup .venv/bin/python -m vision_models.chain run >> ~/.cache/card-companion/chain.log 2>&1 &

The steps (``steps`` prints them):

1. ``recover``: the shipped detector's ONNX file back into a trainable checkpoint (``vision_models.train.recover``).
2. ``artwork``: the card artwork from Debian's packages (``vision_models.data.artwork``).
3. ``real-labels``: index boxes for rf100's train split and the webcam strips' train split, kept where
   the known code agrees (``vision_models.data.real_labels``): the detector's first real supervision beyond
   cardcounterml.
4. ``scenes``: rendered scenes of the training decks (with distractors), scenes of face-down cards as
   players lay them (``synth.back_layout``: columns, piles, backs beside faces, at a far edge, under a
   hand) and frames of the project's table recordings.
5. ``dataset``: one ``data.yaml`` over all of it, with the real photos' share fixed (``REAL_SHARE``).
6. ``train``: the detector continued from the recovered weights for ``EPOCHS`` epochs.
7. ``export``: the best epoch to ONNX and its int8 copy, in ``var/chain/candidate/`` (never over the
   shipped weights).
8. ``check``: the candidate and the shipped models read every real source of ``vision_models.checks.real_check``
   side by side; the figures go to ``var/chain/check.json``. Shipping is a person's decision, made on
   those figures (``ship`` copies the candidate into ``vision_models/weights/``).
9. ``table-scenes``: more of the project's table recordings (``TABLE_TUNE_RECORDINGS`` in all) beside the
   training images: the candidate of step 7 read real photos better than the shipped detector and lost
   Chosen games on the mat, where the shipped detector had ended its training on table recordings alone.
10. ``table-tune``: that ending again, on the candidate: ``TABLE_TUNE_EPOCHS`` epochs on the table images with
   ``TABLE_TUNE_ORIGINAL_SHARE`` as many of step 5's training images (real photos among them).
11. ``table-export``: its last epoch to ONNX and int8, in ``var/chain/candidate-table/``.
12. ``table-check``: step 8's figures for it (``var/chain/check-table.json``) and the live path's: rendered
   recordings of development seeds (``LIVE_CHECK_SEEDS``), every frame read, the final state against the
   truth, for the shipped detector and each candidate (``var/chain/live-check.json``).
13. ``strip-scenes``: step 4's rendered scenes again (the same seeds, so the same images) labelled with
   ``synth``'s strip rule: a back showing less than half of itself is labelled only where other cards hide the
   rest (a column's strip), not under a hand or past the frame's edge; the strip ending's lists are step 5's
   with those labels.
14. ``strip-tune``: the candidate of step 6 continued ``STRIP_TUNE_EPOCHS`` epochs on them.
15. ``strip-export``: its last epoch to ``var/chain/candidate-strips/``.
16. ``strip-check``: step 12's checks for it (``var/chain/check-strips.json``, ``var/chain/live-check-strips.json``).
17. ``card-data``: issue 28 item 1 (b), a third class: the face-up card boxed whole. Step 4's scenes with every
   face-up card showing half of itself boxed (``synth.CARD_CLASS``), the real development photos' labels with
   their labelled cards' whole boxes added; cardcounterml and the table frames box no whole card and stay out.
18. ``card-tune``: the strip ending's last epoch continued ``CARD_TUNE_EPOCHS`` epochs on them (three classes).
19. ``card-export``: its last epoch to ``var/chain/candidate-cards/``.
20. ``card-check``: ``vision_models.checks.card_class_check`` for it: every real source read by the indices alone
   and by the indices, then the card boxes holding no reported card read again at full resolution
   (``var/chain/check-cards.json``).

When an accelerator is lent, ``vision_models.train.gpu_continue`` is the one prepared run (see its docstring).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VAR = ROOT / "var"
CHAIN = VAR / "chain"
DATA = VAR / "data" / "detect_chain"
RUN_NAME = "detector_chain"
RUN = VAR / "runs" / RUN_NAME
RECOVERED = VAR / "runs" / "detector_recovered" / "weights" / "last.pt"
CANDIDATE = CHAIN / "candidate"
WEIGHTS = Path(__file__).resolve().parent / "weights"

SEED = 28                      # issue 28's scenes: a seed no earlier step used (0-2)
GENERAL_SCENES = 600           # rendered scenes of the training decks, half of them with distractors
BACK_SCENES = 500              # face-down cards as players lay them
TABLE_RECORDINGS = 24          # the project's recordings on the mats, 16 images each
CARDCOUNTERML_PHOTOS = 700     # of cardcounterml's training split (the shipped detector's real photos)
# The real photos' share of an epoch: the rendered images teach what no photo shows (every deck, backs
# in columns), the photos what rendering gets wrong; the GPU run kept real photos at about 40 %.
REAL_SHARE = 0.55
EPOCHS = 12
LR0 = 0.0005                   # a fine-tune: the shipped weights' table continuation used 0.0003
IMGSZ = 416
THREADS = 2
# The table ending (steps 9-12), as the shipped detector's own last step was made (MODEL_CARD.md, session 5:
# 48 recordings, twice as many original images, lr0 0.0003, 5 epochs): the chain's 24 recordings were about
# a sixth of its epochs.
TABLE_TUNE_RECORDINGS = 48
TABLE_TUNE_ORIGINAL_SHARE = 2.0
TABLE_TUNE_EPOCHS = 5
TABLE_TUNE_LR0 = 0.0003
TABLE_RUN_NAME = "detector_chain_table"
TABLE_RUN = VAR / "runs" / TABLE_RUN_NAME
TABLE_CANDIDATE = CHAIN / "candidate-table"
# The strip ending (steps 13-16): both candidates lost Chosen recordings to weak backs beside the hands laying
# chips, and step 4 had taught them a back from 15 % shown wherever it showed, under a hand too; the shipped
# detector was never taught strips. Step 4's rendered scenes again (the same seeds: the same images) labelled
# with ``synth``'s strip rule (a strip only where other cards hide the rest), and the candidate continued on them.
STRIP_TUNE_EPOCHS = 4
STRIP_TUNE_LR0 = 0.0003
STRIP_RUN_NAME = "detector_chain_strips"
STRIP_RUN = VAR / "runs" / STRIP_RUN_NAME
STRIP_CANDIDATE = CHAIN / "candidate-strips"
STRIP_DATA = DATA / "strips"
# The card ending (steps 17-20, issue 28 item 1 b): a third class, the face-up card boxed whole, learned from
# rf100's and the strips' whole-card boxes and from rendered scenes (which know every card's outline), so a
# card whose corners the detector misses at its scale is still found, and its corners read at the frame's
# full resolution (``vision_models.checks.card_class_check``). cardcounterml and the table frames box no whole
# face-up card, so they would teach the class as background: they stay out of this ending.
CARD_TUNE_EPOCHS = 3
CARD_TUNE_LR0 = 0.0005          # a new class's head learns from nothing: the chain's own first rate
CARD_RUN_NAME = "detector_chain_cards"
CARD_RUN = VAR / "runs" / CARD_RUN_NAME
CARD_CANDIDATE = CHAIN / "candidate-cards"
CARD_DATA = DATA / "cards"
# Development recordings for the live check: rendered from seeds no test, demo or unseen-seed figure uses
# (the unseen seeds are 81-86), read with every frame so that no machine's load enters the figure.
LIVE_CHECK_SEEDS = {"kingdoms": (41, 42, 43), "dungeon": (41, 42, 43), "chosen": (41, 42, 43, 44, 45, 46)}


def ensure_var() -> None:
    """``var/`` outside the work tree: a link to ``~/.cache/card-companion/var`` when the checkout has none."""
    if VAR.exists() or VAR.is_symlink():
        return
    home = Path(os.environ.get("CARD_COMPANION_VAR", Path.home() / ".cache" / "card-companion" / "var"))
    home.mkdir(parents=True, exist_ok=True)
    VAR.symlink_to(home)


def _python(*args: str) -> None:
    subprocess.run([sys.executable, "-m", *args], check=True, cwd=ROOT)


# --------------------------------------------------------------------------- the steps


def recover_done() -> bool:
    return RECOVERED.exists()


def recover() -> None:
    _python("vision_models.train.recover", "--out", str(RECOVERED))


def artwork_done() -> bool:
    from vision_models.data import artwork

    return len(artwork.available_decks()) >= 20


def install_artwork() -> None:
    from vision_models.data import artwork

    artwork.install()


def real_labels_done() -> bool:
    from vision_models.data import real_labels

    return all((real_labels.OUT / source / "summary.json").exists() for source in real_labels.SOURCES)


def make_real_labels() -> None:
    _python("vision_models.data.real_labels")


def _scene_marker() -> Path:
    return DATA / "scenes.json"


def scenes_done() -> bool:
    return _scene_marker().exists()


def write_rendered_scenes(root: Path, card_class: bool = False) -> None:
    """Step 4's rendered scenes under ``root`` (``general`` and ``backs``, ``train`` and ``val``): the same seeds,
    so the same images wherever they are written; the labels are those of ``synth`` as it is."""
    from vision_models.data import artwork, datasets, synth

    deck_dirs = artwork.available_decks()
    train_decks, held_decks = datasets.deck_split(deck_dirs)
    decks = [d for d in synth.load_decks(train_decks, for_scenes=True) if d.faces]
    held = [d for d in synth.load_decks(held_decks, for_scenes=True) if d.faces] or decks
    backs = [d.back for d in synth.load_decks(deck_dirs, with_faces=False)]
    synth.write_scenes(root / "general" / "train", decks, backs, GENERAL_SCENES, SEED, distractor_share=0.5, card_class=card_class)
    synth.write_scenes(root / "backs" / "train", decks, backs, BACK_SCENES, SEED + 1, backs_only=True, card_class=card_class)
    # validation: the held-out decks, so the epochs' mAP is not measured on training decks
    synth.write_scenes(root / "general" / "val", held, backs, 60, SEED + 100, distractor_share=0.5, card_class=card_class)
    synth.write_scenes(root / "backs" / "val", held, backs, 60, SEED + 101, backs_only=True, card_class=card_class)


def render_scenes() -> None:
    from vision_models.data import table_scenes

    write_rendered_scenes(DATA)
    table_images = DATA / "table" / "train" / "images"
    if not table_images.is_dir() or len(list(table_images.iterdir())) < TABLE_RECORDINGS * 2 * table_scenes.FRAMES_PER_SCENE:
        table_scenes.render_recordings(DATA / "table", TABLE_RECORDINGS, 2)   # about 15 minutes: kept when there
    _scene_marker().write_text(json.dumps({"general": GENERAL_SCENES, "backs": BACK_SCENES, "table": TABLE_RECORDINGS,
                                           "seed": SEED}))


def dataset_done() -> bool:
    return (DATA / "data.yaml").exists()


def _cardcounterml_images() -> tuple[list[Path], list[Path]]:
    """cardcounterml's training split as the first run linked it (train, real val slice), with labels."""
    from vision_models.data import datasets, real_split

    out = DATA / "cardcounterml"
    train, val = [], []
    for image in real_split.real_images():
        if real_split.is_holdout(image.name):
            continue
        split = "val" if datasets.is_real_val(image.name) else "train"
        target = out / split / "images" / ("real_" + image.stem + image.suffix)
        label = out / split / "labels" / ("real_" + image.stem + ".txt")
        target.parent.mkdir(parents=True, exist_ok=True)
        label.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            os.symlink(image.resolve(), target)
        if not label.exists():
            lines = datasets.real_detect_lines(image)
            label.write_text("\n".join(lines) + ("\n" if lines else ""))
        (val if split == "val" else train).append(target)
    return train, val


def build_dataset() -> None:
    """``data.yaml`` with list files: real photos (rf100 and the strips labelled here, cardcounterml) at
    ``REAL_SHARE`` of the training images, rendered scenes the rest; validation real and rendered."""
    from vision_models.data import real_labels

    rng = random.Random(SEED)
    real_train, real_val = [], []
    for source in real_labels.SOURCES:
        images = sorted((real_labels.OUT / source / "images").iterdir())
        # a twentieth of each watched during training (never a measured source: these are development splits)
        for image in images:
            (real_val if rng.random() < 0.05 else real_train).append(image)
    ccml_train, ccml_val = _cardcounterml_images()
    real_train += rng.sample(ccml_train, min(CARDCOUNTERML_PHOTOS, len(ccml_train)))
    real_val += ccml_val
    rendered = sorted((DATA / "general" / "train" / "images").iterdir()) + sorted((DATA / "backs" / "train" / "images").iterdir()) \
        + sorted((DATA / "table" / "train" / "images").iterdir())
    wanted_rendered = round(len(real_train) * (1 - REAL_SHARE) / REAL_SHARE)
    rendered = rng.sample(rendered, min(wanted_rendered, len(rendered)))
    train = sorted(str(p) for p in real_train + rendered)
    rendered_val = sorted((DATA / "general" / "val" / "images").iterdir()) + sorted((DATA / "backs" / "val" / "images").iterdir())
    val = sorted(str(p) for p in real_val) + [str(p) for p in rendered_val]
    (DATA / "train.txt").write_text("\n".join(train) + "\n")
    (DATA / "val.txt").write_text("\n".join(val) + "\n")
    (DATA / "val_real.txt").write_text("\n".join(sorted(str(p) for p in real_val)) + "\n")
    names = "names:\n  0: index\n  1: back\n"
    (DATA / "data_val_real.yaml").write_text(f"path: {DATA}\ntrain: {DATA / 'train.txt'}\nval: {DATA / 'val_real.txt'}\n{names}")
    (DATA / "counts.json").write_text(json.dumps({"train": len(train), "real_train": len(real_train),
                                                  "rendered_train": len(rendered), "val": len(val),
                                                  "real_val": len(real_val)}, indent=2))
    (DATA / "data.yaml").write_text(f"path: {DATA}\ntrain: {DATA / 'train.txt'}\nval: {DATA / 'val.txt'}\n{names}")


def _epochs_done() -> int:
    from vision_models.train.first_run import _epochs_done as epochs_of

    return epochs_of(RUN_NAME)


DATASET_FILES = ("data.yaml", "data_val_real.yaml", "train.txt", "val.txt", "val_real.txt")


def rebase(checkpoint: Path) -> None:
    """Point the dataset's lists and a checkpoint's training arguments at this checkout's ``var/``.

    They hold absolute paths, and the checkout that wrote them may be gone when the next session resumes
    (the first run's were written from a worktree, ``/work/chain-run``); ``var/`` itself is the same folder
    outside the work tree, so only the prefix before ``var/data/detect_chain`` changes.
    """
    import re

    import torch

    here = str(DATA)
    pattern = re.compile(r"[^\s:]*/var/data/detect_chain")
    for name in DATASET_FILES:
        path = DATA / name
        if path.exists():
            text = path.read_text()
            moved = pattern.sub(here, text)
            if moved != text:
                path.write_text(moved)
    saved = torch.load(checkpoint, map_location="cpu", weights_only=False)
    args = saved.get("train_args") or {}
    wanted = {"data": str(DATA / "data.yaml"), "project": str(RUN.parent)}
    if any(args.get(key) != value for key, value in wanted.items()):
        args.update(wanted)
        if "save_dir" in args:
            args["save_dir"] = str(RUN)
        saved["train_args"] = args
        torch.save(saved, checkpoint)


def train_done() -> bool:
    return (RUN / "finished.json").exists()


def _train_run(start: Path, run: Path, data: Path, epochs: int, lr0: float, before_resume=None) -> None:
    """Train ``run`` from the weights ``start`` (or resume it from its ``last.pt``) with the chain's settings."""
    from vision_models.train.first_run import DETECTOR_AUGMENTATION, offline_environment
    from vision_models.train.first_run import _epochs_done as epochs_of

    offline_environment()
    import torch
    from ultralytics import YOLO

    torch.set_num_threads(THREADS)
    last = run / "weights" / "last.pt"
    if last.exists():
        print(f"[chain] resuming {run.name} after epoch {epochs_of(run.name)}", flush=True)
        if before_resume is not None:
            before_resume(last)
        YOLO(str(last)).train(resume=True)
    else:
        YOLO(str(start)).train(
            data=str(data), imgsz=IMGSZ, batch=16, epochs=epochs, device="cpu", workers=0,
            plots=False, amp=False, seed=SEED, deterministic=True, optimizer="AdamW", lr0=lr0, warmup_epochs=0.5,
            cos_lr=False, patience=1000, **DETECTOR_AUGMENTATION, cache=False, project=str(run.parent),
            name=run.name, exist_ok=True, pretrained=True, verbose=True)


def train() -> None:
    started = time.time()
    _train_run(RECOVERED, RUN, DATA / "data.yaml", EPOCHS, LR0, before_resume=rebase)
    previous = json.loads((CHAIN / "train_seconds.json").read_text()) if (CHAIN / "train_seconds.json").exists() else []
    CHAIN.mkdir(parents=True, exist_ok=True)
    (CHAIN / "train_seconds.json").write_text(json.dumps(previous + [round(time.time() - started)]))
    (RUN / "finished.json").write_text(json.dumps({"epochs": _epochs_done(), "continued_from": "detector_recovered",
                                                   "seconds": sum(previous) + round(time.time() - started),
                                                   "data": str(DATA / "data.yaml")}))


def export_done() -> bool:
    return (CANDIDATE / "detector.int8.onnx").exists()


def export(target: Path = CANDIDATE, weights: str = "best.pt", run: Path = RUN, then_data: str = "table-tune.txt") -> None:
    (CHAIN / f"readings-{target.name}.pkl").unlink(missing_ok=True)  # readings of the weights this replaces
    from vision_models.train.first_run import offline_environment

    offline_environment()
    from ultralytics import YOLO

    target.mkdir(parents=True, exist_ok=True)
    onnx = Path(YOLO(str(run / "weights" / weights)).export(format="onnx", imgsz=IMGSZ, simplify=True, dynamic=False,
                                                                device="cpu"))
    shutil.copy(onnx, target / "detector.onnx")
    for name in ("classifier.onnx", "classifier.int8.onnx"):
        shutil.copy(WEIGHTS / name, target / name)
    models = json.loads((WEIGHTS / "models.json").read_text())
    models["detector"].pop("int8_file", None)
    models["training"]["chain"] = {"run": RUN_NAME, "epochs": _epochs_done(), "data": json.loads((DATA / "counts.json").read_text())}
    if run != RUN:
        from vision_models.train.first_run import _epochs_done as epochs_of

        models["training"]["chain"]["then"] = {"run": run.name, "epochs": epochs_of(run.name),
                                               "data": json.loads((DATA / then_data).read_text())}
    (target / "models.json").write_text(json.dumps(models, indent=2) + "\n")
    _python("vision_models.train.quantize", "--weights", str(target))
    # the classifier is the shipped one, byte for byte: only the detector is this chain's
    shutil.copy(WEIGHTS / "classifier.int8.onnx", target / "classifier.int8.onnx")


def check_done() -> bool:
    return (CHAIN / "check.json").exists()


def check(candidate: Path = CANDIDATE, out: Path | None = None) -> dict:
    results = {}
    for name, weights in (("shipped", WEIGHTS), (candidate.name, candidate)):
        # named relative to the checkout, as by hand: the cache of readings is keyed by the options as given
        named = str(weights.relative_to(ROOT)) if weights.is_relative_to(ROOT) else str(weights)
        done = subprocess.run([sys.executable, "-m", "vision_models.checks.real_check", "--weights", named, "--json",
                              "--cache", str(CHAIN / f"readings-{name}.pkl")],
                             check=True, cwd=ROOT, capture_output=True, text=True)
        results[name] = json.loads(done.stdout)
    (out_path := out or CHAIN / "check.json").write_text(json.dumps(results, indent=2) + "\n")
    print(f"[chain] figures in {out_path}", flush=True)
    return results


def interim() -> None:
    """The training's best epoch so far, exported and read beside the shipped models (``var/chain/interim/``):
    a session that ends before the epochs are done still measures what they reached."""
    target = CHAIN / "interim"
    if target.exists():
        shutil.rmtree(target)
    export(target, "best.pt")
    # the cached readings are keyed by the options, which name the same folder each time: read anew
    (CHAIN / f"readings-{target.name}.pkl").unlink(missing_ok=True)
    check(target, CHAIN / "check-interim.json")


def _table_seeds() -> list[int]:
    from vision_models.data import table_scenes

    return [table_scenes.FIRST_SEED + k for k in range(TABLE_TUNE_RECORDINGS)]


def table_scenes_done() -> bool:
    return (DATA / "table-tune.txt").exists()


def render_table_scenes() -> None:
    """Step 4's recordings continued up to ``TABLE_TUNE_RECORDINGS`` (the same seeds from the same first one), and
    the table ending's training list: every table image and ``TABLE_TUNE_ORIGINAL_SHARE`` times as many of step 5's."""
    from multiprocessing import get_context

    from vision_models.data import table_scenes

    images = DATA / "table" / "train" / "images"
    have = {p.name.split("_")[1] for p in images.glob("table_*.jpg")} if images.is_dir() else set()
    missing = [(seed, "train", str(DATA / "table")) for seed in _table_seeds() if str(seed) not in have]
    if missing:
        with get_context("spawn").Pool(2) as pool:
            pool.map(table_scenes.render_scene, missing, chunksize=1)
    table = sorted(str(p) for p in images.glob("table_*.jpg") if int(p.name.split("_")[1]) in set(_table_seeds()))
    chain_train = [line for line in (DATA / "train.txt").read_text().split() if "/table/" not in line]
    original = random.Random(SEED).sample(chain_train, min(len(chain_train), round(TABLE_TUNE_ORIGINAL_SHARE * len(table))))
    (DATA / "table-tune-train.txt").write_text("\n".join(sorted(table + original)) + "\n")
    (DATA / "data_table.yaml").write_text(f"path: {DATA}\ntrain: {DATA / 'table-tune-train.txt'}\nval: {DATA / 'val.txt'}\n"
                                          "names:\n  0: index\n  1: back\n")
    counts = {"table_train": len(table), "original_train": len(original),
              "real_train": sum(1 for line in original if "/real_labels/" in line or "/cardcounterml/" in line)}
    (DATA / "table-tune.txt").write_text(json.dumps(counts) + "\n")


def table_tune_done() -> bool:
    return (TABLE_RUN / "finished.json").exists()


def _ending_tune(start: Path, run: Path, data_yaml: str, epochs: int, lr0: float, counts: str) -> None:
    """One of the chain's endings: ``run`` trained from the weights ``start`` on ``data_yaml``, its record beside it."""
    from vision_models.train.first_run import _epochs_done as epochs_of

    started = time.time()
    _train_run(start, run, DATA / data_yaml, epochs, lr0)
    (run / "finished.json").write_text(json.dumps({"epochs": epochs_of(run.name), "continued_from": f"{start.parents[1].name} {start.name}",
                                                   "seconds": round(time.time() - started),
                                                   "data": json.loads((DATA / counts).read_text())}))


def table_tune() -> None:
    _ending_tune(RUN / "weights" / "best.pt", TABLE_RUN, "data_table.yaml", TABLE_TUNE_EPOCHS, TABLE_TUNE_LR0, "table-tune.txt")


def table_export_done() -> bool:
    return (TABLE_CANDIDATE / "detector.int8.onnx").exists()


def table_export() -> None:
    # the last epoch, not the best by validation mAP: the validation images are step 5's, which the
    # table ending is not about (the shipped detector's own ending shipped its last epoch too)
    export(TABLE_CANDIDATE, "last.pt", run=TABLE_RUN)


def table_check_done() -> bool:
    return (CHAIN / "live-check.json").exists()


def live_check(detectors: dict[str, Path], out: Path) -> dict:
    """Each detector reads the development recordings (rendered once into ``var/chain/live-check/``) with every
    frame: ``{detector: {"reached": n, "of": m, "failed": [names]}}``."""
    folder = CHAIN / "live-check"
    results: dict = {}
    for game, seeds in LIVE_CHECK_SEEDS.items():
        for seed in seeds:
            recording = folder / f"{game}-{seed}"
            if not (recording / "truth.json").exists():
                subprocess.run([sys.executable, "-m", "companion", "demo", "render", "--game", game, "--seed", str(seed),
                                "--out", str(recording)], check=True, cwd=ROOT, capture_output=True)
            for name, weights in detectors.items():
                done = subprocess.run([sys.executable, "-m", "companion", "table", "run", "--game", game, "--source",
                                       str(recording), "--check-truth"], cwd=ROOT, capture_output=True,
                                      env={**os.environ, "COMPANION_WEIGHTS": str(weights)})
                entry = results.setdefault(name, {"reached": 0, "of": 0, "failed": []})
                entry["of"] += 1
                # --check-truth exits 0 only when the final state matches (its printed verdict is translated)
                if done.returncode == 0:
                    entry["reached"] += 1
                else:
                    entry["failed"].append(recording.name)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"[chain] live check in {out}: " + ", ".join(f"{n} {r['reached']}/{r['of']}" for n, r in results.items()), flush=True)
    return results


def table_check() -> None:
    check(TABLE_CANDIDATE, CHAIN / "check-table.json")
    live_check({"shipped": WEIGHTS, CANDIDATE.name: CANDIDATE, TABLE_CANDIDATE.name: TABLE_CANDIDATE}, CHAIN / "live-check.json")


def strip_scenes_done() -> bool:
    return (DATA / "strip-tune.txt").exists()


def render_strip_scenes() -> None:
    """Step 4's rendered scenes with ``synth``'s strip rule (``STRIP_DATA``), and the strip ending's lists: step 5's
    training and validation lists with those scenes' labels in place of the old ones (the real photos and
    table frames as they were)."""
    write_rendered_scenes(STRIP_DATA)
    write_strip_lists()


def _write_ending_lists(name: str, mapped, classes: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """Step 5's training and validation lists through ``mapped`` (an image's path in the ending's data, or None to
    leave it out) as ``{name}-train.txt``, ``{name}-val.txt`` and ``data_{name}s.yaml``; every image must be there."""
    train, val = ([m for line in (DATA / listing).read_text().split() if (m := mapped(line)) is not None]
                  for listing in ("train.txt", "val.txt"))
    missing = [line for line in train + val if not Path(line).exists()]
    if missing:
        raise SystemExit(f"{len(missing)} images of the {name} lists are not there, e.g. {missing[0]}")
    (DATA / f"{name}-train.txt").write_text("\n".join(train) + "\n")
    (DATA / f"{name}-val.txt").write_text("\n".join(val) + "\n")
    names = "".join(f"  {k}: {c}\n" for k, c in enumerate(classes))
    (DATA / f"data_{name}s.yaml").write_text(f"path: {DATA}\ntrain: {DATA / f'{name}-train.txt'}\nval: {DATA / f'{name}-val.txt'}\n"
                                             f"names:\n{names}")
    return train, val


def _rendered_scene_in(ending: Path, line: str) -> str | None:
    """Step 4's rendered scene ``line`` (general or backs) as the same image in an ending's data, else None."""
    if any(line.startswith(str(DATA / part) + "/") for part in ("general", "backs")):
        return str(DATA / ending.name) + line[len(str(DATA)):]
    return None


def write_strip_lists() -> None:
    """Step 5's lists with the relabelled scenes in place of step 4's, and how many back labels that dropped."""
    from vision_models.data.real_split import label_path_for

    strips = DATA / STRIP_DATA.name
    train, _val = _write_ending_lists("strip", lambda line: _rendered_scene_in(STRIP_DATA, line) or line, ("index", "back"))
    changed = sum(1 for line in train if line.startswith(str(strips)))
    backs_before = backs_after = 0
    for line in train:
        if line.startswith(str(strips)):
            after = label_path_for(Path(line))
            before = label_path_for(Path(str(DATA) + line[len(str(strips)):]))
            backs_before += sum(1 for row in before.read_text().splitlines() if row.startswith("1 "))
            backs_after += sum(1 for row in after.read_text().splitlines() if row.startswith("1 "))
    (DATA / "strip-tune.txt").write_text(json.dumps({"train": len(train), "relabelled_train": changed,
                                                     "back_labels_before": backs_before, "back_labels_after": backs_after}) + "\n")


def strip_tune_done() -> bool:
    return (STRIP_RUN / "finished.json").exists()


def strip_tune() -> None:
    _ending_tune(RUN / "weights" / "best.pt", STRIP_RUN, "data_strips.yaml", STRIP_TUNE_EPOCHS, STRIP_TUNE_LR0, "strip-tune.txt")


def strip_export_done() -> bool:
    return (STRIP_CANDIDATE / "detector.int8.onnx").exists()


def strip_export() -> None:
    export(STRIP_CANDIDATE, "last.pt", run=STRIP_RUN, then_data="strip-tune.txt")


def strip_check_done() -> bool:
    return (CHAIN / "live-check-strips.json").exists()


def strip_check() -> None:
    check(STRIP_CANDIDATE, CHAIN / "check-strips.json")
    live_check({"shipped": WEIGHTS, STRIP_CANDIDATE.name: STRIP_CANDIDATE}, CHAIN / "live-check-strips.json")


def card_data_done() -> bool:
    return (DATA / "card-tune.txt").exists()


def make_card_data() -> None:
    """Step 4's rendered scenes with whole face-up cards boxed (``synth.CARD_CLASS``), the real development photos'
    labels with each labelled face-up card's whole box added, and the card ending's lists: step 5's without the
    images that box no whole card (cardcounterml, the table frames)."""
    write_rendered_scenes(CARD_DATA, card_class=True)
    real_card_labels()
    write_card_lists()


def real_card_labels() -> None:
    """Each real development photo's training labels (step 3's) with its face-up cards' whole boxes added."""
    from companion.vision import load_image
    from vision_models.checks.real_check import photos_of, truth_of
    from vision_models.data import real_labels
    from vision_models.data.synth import CARD_CLASS, yolo_lines

    for source in real_labels.SOURCES:
        out = CARD_DATA / "real" / source
        (out / "images").mkdir(parents=True, exist_ok=True)
        (out / "labels").mkdir(parents=True, exist_ok=True)
        for photo in photos_of([source]):
            stem = f"real_{source}_{photo.path.stem}"
            step3 = real_labels.OUT / source / "labels" / (stem + ".txt")
            if not step3.exists() or (out / "labels" / (stem + ".txt")).exists():
                continue
            height, width = load_image(photo.path).shape[:2]
            clipped = [(max(0.0, x1), max(0.0, y1), min(width, x2), min(height, y2))
                       for x1, y1, x2, y2 in (card.parts[0].box for card in truth_of(photo, width, height) or [] if card.code != "BACK")]
            lines = step3.read_text().splitlines() + yolo_lines(
                [(CARD_CLASS, *box) for box in clipped if box[2] - box[0] >= 1 and box[3] - box[1] >= 1], width, height)
            image = out / "images" / (stem + photo.path.suffix.lower())
            if not image.exists():
                os.symlink(photo.path.resolve(), image)
            (out / "labels" / (stem + ".txt")).write_text("\n".join(lines) + ("\n" if lines else ""))


def write_card_lists() -> None:
    """Step 5's lists mapped onto the card ending's images; images boxing no whole card left out."""
    from vision_models.data import real_labels
    from vision_models.data.real_split import label_path_for

    real_out = str(real_labels.OUT)

    def mapped(line: str) -> str | None:
        if line.startswith(real_out + "/"):
            return str(DATA / CARD_DATA.name / "real") + line[len(real_out):]
        return _rendered_scene_in(CARD_DATA, line)

    train, val = _write_ending_lists("card", mapped, ("index", "back", "card"))
    card_labels = sum(1 for line in train for row in label_path_for(Path(line)).read_text().splitlines() if row.startswith("2 "))
    (DATA / "card-tune.txt").write_text(json.dumps({"train": len(train), "val": len(val), "card_labels": card_labels,
                                                    "real_train": sum(1 for line in train if "/real/" in line)}) + "\n")


def card_tune_done() -> bool:
    return (CARD_RUN / "finished.json").exists()


def card_tune() -> None:
    _ending_tune(STRIP_RUN / "weights" / "last.pt", CARD_RUN, "data_cards.yaml", CARD_TUNE_EPOCHS, CARD_TUNE_LR0, "card-tune.txt")


def card_export_done() -> bool:
    return (CARD_CANDIDATE / "detector.int8.onnx").exists()


def card_export() -> None:
    export(CARD_CANDIDATE, "last.pt", run=CARD_RUN, then_data="card-tune.txt")
    models = json.loads((CARD_CANDIDATE / "models.json").read_text())
    models["detector"]["classes"] = ["index", "back", "card"]
    (CARD_CANDIDATE / "models.json").write_text(json.dumps(models, indent=2) + "\n")


def card_check_done() -> bool:
    return (CHAIN / "check-cards.json").exists()


def card_check() -> None:
    done = subprocess.run([sys.executable, "-m", "vision_models.checks.card_class_check", "--weights", str(CARD_CANDIDATE),
                           "--card-conf", "0.3", "--card-conf", "0.5", "--card-conf", "0.7", "--cache", str(CHAIN / "readings-cards.pkl"),
                           "--json"], check=True, cwd=ROOT, capture_output=True, text=True)
    (CHAIN / "check-cards.json").write_text(done.stdout)


STEPS = (
    ("recover", recover_done, recover, "var/runs/detector_recovered/weights/last.pt"),
    ("artwork", artwork_done, install_artwork, "var/artwork/"),
    ("real-labels", real_labels_done, make_real_labels, "var/data/real_labels/"),
    ("scenes", scenes_done, render_scenes, "var/data/detect_chain/{general,backs,table}/"),
    ("dataset", dataset_done, build_dataset, "var/data/detect_chain/data.yaml"),
    ("train", train_done, train, f"var/runs/{RUN_NAME}/ ({EPOCHS} epochs)"),
    ("export", export_done, export, "var/chain/candidate/"),
    ("check", check_done, check, "var/chain/check.json"),
    ("table-scenes", table_scenes_done, render_table_scenes, f"var/data/detect_chain/table/ ({TABLE_TUNE_RECORDINGS} recordings)"),
    ("table-tune", table_tune_done, table_tune, f"var/runs/{TABLE_RUN_NAME}/ ({TABLE_TUNE_EPOCHS} epochs)"),
    ("table-export", table_export_done, table_export, "var/chain/candidate-table/"),
    ("table-check", table_check_done, table_check, "var/chain/check-table.json, var/chain/live-check.json"),
    ("strip-scenes", strip_scenes_done, render_strip_scenes, "var/data/detect_chain/strips/"),
    ("strip-tune", strip_tune_done, strip_tune, f"var/runs/{STRIP_RUN_NAME}/ ({STRIP_TUNE_EPOCHS} epochs)"),
    ("strip-export", strip_export_done, strip_export, "var/chain/candidate-strips/"),
    ("strip-check", strip_check_done, strip_check, "var/chain/check-strips.json, var/chain/live-check-strips.json"),
    ("card-data", card_data_done, make_card_data, "var/data/detect_chain/cards/"),
    ("card-tune", card_tune_done, card_tune, f"var/runs/{CARD_RUN_NAME}/ ({CARD_TUNE_EPOCHS} epochs)"),
    ("card-export", card_export_done, card_export, "var/chain/candidate-cards/"),
    ("card-check", card_check_done, card_check, "var/chain/check-cards.json"),
)


def status_line() -> str:
    for number, (name, done, _run, _makes) in enumerate(STEPS, 1):
        if not done():
            detail = ""
            if name == "train":
                detail = f", epoch {_epochs_done()}/{EPOCHS}"
            elif name in ("table-tune", "strip-tune", "card-tune"):
                from vision_models.train.first_run import _epochs_done as epochs_of

                run_name, epochs = {"table-tune": (TABLE_RUN_NAME, TABLE_TUNE_EPOCHS), "strip-tune": (STRIP_RUN_NAME, STRIP_TUNE_EPOCHS),
                                    "card-tune": (CARD_RUN_NAME, CARD_TUNE_EPOCHS)}[name]
                detail = f", epoch {epochs_of(run_name)}/{epochs}"
            return f"chain: step {number}/{len(STEPS)} {name}{detail} to do (var -> {VAR.resolve()})"
    return f"chain: all {len(STEPS)} steps done; figures in {CHAIN / 'check.json'} (ship with `python -m vision_models.chain ship`)"


# The chain's share of the cores beside a session's other work. Linux groups processes by session
# (autogroup) and shares the cores between groups before nice counts inside one, so a nice value alone
# moved nothing: on 2026-12-04, beside five engineers' tests and browsers (load 13-20), training took
# 15-18 s a batch at nice -15 and 3-4 s once its group's nice was -15 (``/proc/self/autogroup``).
# ``CARD_COMPANION_CHAIN_NICE`` sets another value: 0 shares the cores evenly with a session's own tests
# (a session working alone on the machine wants its test runs and the training at one pace).
CHAIN_AUTOGROUP_NICE = -15


def _favour_training() -> None:
    try:
        Path("/proc/self/autogroup").write_text(os.environ.get("CARD_COMPANION_CHAIN_NICE", str(CHAIN_AUTOGROUP_NICE)))
    except OSError:  # not Linux, no autogroup, or not allowed: the chain runs at the usual share
        pass


def run() -> None:
    _favour_training()
    for number, (name, done, step, _makes) in enumerate(STEPS, 1):
        if done():
            print(f"[chain] {number}/{len(STEPS)} {name}: done", flush=True)
            continue
        print(f"[chain] {number}/{len(STEPS)} {name}: running ({time.strftime('%H:%M:%S')})", flush=True)
        started = time.time()
        step()
        seconds = round(time.time() - started)
        print(f"[chain] {number}/{len(STEPS)} {name}: finished in {seconds} s", flush=True)
        _record(name, seconds)


def _record(step: str, seconds: int) -> None:
    """Each step's wall time, run by run (``var/chain/steps.json``): what the model card's hours come from."""
    CHAIN.mkdir(parents=True, exist_ok=True)
    path = CHAIN / "steps.json"
    record = json.loads(path.read_text()) if path.exists() else []
    record.append({"step": step, "seconds": seconds, "finished": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                   "load": round(os.getloadavg()[0], 1)})
    path.write_text(json.dumps(record, indent=1) + "\n")


# Which real sources the chain's training saw in any form: rf100's test and valid splits are photos it
# never saw of the deck and cloths whose train split it learned; the rest are decks it never saw.
SEEN_DECK_SOURCES = ("rf100-test", "rf100-valid", "webcam-strips", "cardcounterml")


def report(path: Path) -> str:
    """The check's figures as a markdown table: each real source, shipped beside the candidate."""
    results = json.loads(path.read_text())
    (first, base), (second, other) = list(results.items())[:2]
    lines = [f"| source | deck trained on | cards | F1 {first} | F1 {second} | R {first} | R {second} | P {first} | P {second} | "
             f"backs P / R {first} | backs P / R {second} | missed faces {first} → {second} | phantoms {first} → {second} |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def backs(s: dict) -> str:
        b = s["backs"]
        return f"{b['precision']:.2f} / {b['recall']:.2f} ({b['tp']}/{b['fp']}/{b['fn']})" if b["tp"] + b["fp"] + b["fn"] else "–"

    for source in base:
        a, b = base[source], other[source]
        seen = "total" if source == "total" else ("yes" if source in SEEN_DECK_SOURCES else "no")
        phantoms = lambda s: s["errors"]["phantom_faces"] + s["errors"]["phantom_backs"]  # noqa: E731
        lines.append(f"| {source} | {seen} | {a['errors']['cards']} | {a['cards']['f1']:.3f} | **{b['cards']['f1']:.3f}** | "
                     f"{a['cards']['recall']:.3f} | {b['cards']['recall']:.3f} | {a['cards']['precision']:.3f} | "
                     f"{b['cards']['precision']:.3f} | {backs(a)} | {backs(b)} | {a['errors']['missed_faces']} → "
                     f"{b['errors']['missed_faces']} | {phantoms(a)} → {phantoms(b)} |")
    return "\n".join(lines)


def ship(candidate: Path = CANDIDATE) -> None:
    checked = {CANDIDATE: check_done, TABLE_CANDIDATE: table_check_done, STRIP_CANDIDATE: strip_check_done}[candidate]
    if not checked():
        raise SystemExit(f"the chain has not checked {candidate.name} yet: `python -m vision_models.chain run`")
    for name in ("detector.onnx", "detector.int8.onnx", "models.json"):
        shutil.copy(candidate / name, WEIGHTS / name)
    print(f"shipped {candidate} into {WEIGHTS}: update MODEL_CARD.md and EVALUATION.md with its figures in var/chain/")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     epilog="steps: " + ", ".join(step[0] for step in STEPS))
    parser.add_argument("action", choices=("status", "run", "steps", "interim", "report", "ship"),
                        help="interim: measure the training's best epoch so far beside the shipped models")
    parser.add_argument("--candidate", choices=(CANDIDATE.name, TABLE_CANDIDATE.name, STRIP_CANDIDATE.name), default=CANDIDATE.name,
                        help="which candidate `ship` copies into weights/ (default the chain's step 7)")
    args = parser.parse_args(argv)
    ensure_var()
    if args.action == "status":
        print(status_line())
    elif args.action == "steps":
        for number, (name, done, _run, makes) in enumerate(STEPS, 1):
            print(f"{number}. {name:<12} {'done' if done() else 'to do':<6} {makes}")
    elif args.action == "report":
        for name in ("check.json", "check-interim.json", "check-table.json", "check-strips.json"):
            if (CHAIN / name).exists():
                print(f"{CHAIN / name}:\n{report(CHAIN / name)}\n")
    elif args.action == "interim":
        interim()
    elif args.action == "run":
        run()
        print(status_line())
    else:
        ship(CHAIN / args.candidate)


if __name__ == "__main__":
    main()
