"""Score the shipped models on the held-out real photos and rewrite ``vision_models/EVALUATION.md``.

    python -m vision_models.evaluate [extra `companion evaluate` options]

A thin wrapper: the scoring itself is ``companion evaluate`` (``companion/vision/evaluation.py``).
"""
from __future__ import annotations

import sys
from pathlib import Path

from vision_models.real_split import REAL_DATASET

REPORT = Path(__file__).resolve().parent / "EVALUATION.md"


def main(argv: list[str] | None = None) -> int:
    from companion.cli import main as companion

    argv = list(sys.argv[1:] if argv is None else argv)
    return companion(["evaluate", str(REAL_DATASET), "--split", "holdout", "--out", str(REPORT), *argv])


if __name__ == "__main__":
    sys.exit(main())
