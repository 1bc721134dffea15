#!/usr/bin/env bash
# The test command: installs everything the tests need, then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
# Lint and types first (seconds): ruff over the tree, mypy strict over the card model and the engines
# (both configured in pyproject.toml).
.venv/bin/python -m ruff check .
.venv/bin/python -m mypy
# -m "not realtime": every test, the neural_extra ones too (pyproject's default run leaves them out), but
# the phone's whole path at this machine's own pace: those pass or fail with the load on the cores (on idle
# cores, 2026-12-07: 7 of 7 in one whole run, 5 of 7 in the next), so they measure and do not gate;
# `bash scripts/test.sh -m realtime` runs them (a -m given to this script comes later and wins).
# --durations: the 30 slowest, so every run (CI's too) says where the suite's wall time goes.
exec .venv/bin/python -m pytest -m "not realtime" --durations=30 "$@"
