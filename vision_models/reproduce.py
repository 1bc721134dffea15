"""Rebuild the shipped recognition models in one command, from seed 0:

    .venv/bin/python -m vision_models.reproduce            # runs every step below, in order
    .venv/bin/python -m vision_models.reproduce --dry-run  # prints them

The shipped weights were made in steps because each training session had a few wall-clock hours:
a first run bounded by hours, then continuations of the detector from its ``last.pt`` with a
fresh learning-rate schedule, then the export. This runs the same recipe with each step's epoch
count fixed at what the recorded run reached (``models.json``, ``training.steps`` keeps the
commands as they were run). The hour-bounded originals re-planned their learning-rate decay as
they went and cached images in RAM (which ultralytics warns is not bit-for-bit deterministic), so
a rebuild lands near the shipped figures, not on them. Cost on 2 CPU cores: about 6 hours up to
``detector_cont3``; the last training step (``gpu_continue``) took 7 minutes on a borrowed H200 and
would take about a day on 2 CPU cores (it uses a GPU when there is one); the classifier's table
fine-tune about 20 minutes, the detector's table continuation about 50.

Every step is resumable: a finished run under ``var/runs/`` is not trained again.
"""
from __future__ import annotations

import argparse
import shlex
import subprocess
import sys

DATA = ["--seed", "0", "--scenes", "700", "--val-scenes", "120", "--crop-variants", "5",
        "--none-crops", "3000", "--real-variants", "2"]
FIRST_RUN_EPOCHS = ["--epochs-detector", "7", "--epochs-classifier", "19"]

STEPS: list[list[str]] = [
    ["vision_models.train.first_run", *DATA, *FIRST_RUN_EPOCHS, "--no-export"],
    ["vision_models.train.continue_detector", "--from", "detector_main", "--name", "detector_cont", "--epochs", "5"],
    ["vision_models.train.continue_detector", "--from", "detector_cont", "--name", "detector_cont2", "--epochs", "2",
     "--lr0", "0.0007"],
    ["vision_models.train.continue_detector", "--from", "detector_cont2", "--name", "detector_cont3", "--epochs", "16"],
    # 42 epochs on 4,000 fresh scenes + the real photos twice: 7 minutes on one GPU, about a day on 2 CPU cores
    ["vision_models.train.gpu_continue", "pack", "--from", "detector_cont3"],
    ["vision_models.train.gpu_continue", "run", "--out", "var/runs/detector_gpu", "--scenes", "4000", "--real-repeats", "2",
     "--epochs", "42"],
    # the classifier reads the project's drawn deck on a mat: 3 epochs with 5,748 rendered table crops added
    ["vision_models.train.finetune_classifier", "--crops", "table", "--name", "classifier_table", "--epochs", "3",
     "--table-scenes", "40"],
    # the detector finds the drawn deck's backs along a mat's far edge: 5 gentle epochs with 768 rendered
    # table frames beside twice as many original images (46 minutes on 2 CPU cores)
    ["vision_models.data.table_scenes", "--scenes", "48", "--original-share", "2"],
    ["vision_models.train.continue_detector", "--from", "detector_gpu", "--name", "detector_table2", "--epochs", "5",
     "--lr0", "0.0003", "--data", "var/data/detect_table/data.yaml"],
    ["vision_models.train.first_run", *DATA, *FIRST_RUN_EPOCHS, "--export-from", "detector_table2",
     "--export-classifier-from", "classifier_table"],
]


def command_line(step: list[str]) -> str:
    return "python -m " + " ".join(shlex.quote(part) for part in step)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="print the steps without running them")
    args = parser.parse_args(argv)
    for number, step in enumerate(STEPS, 1):
        print(f"[reproduce] step {number}/{len(STEPS)}: {command_line(step)}", flush=True)
        if not args.dry_run:
            subprocess.run([sys.executable, "-m", *step], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
