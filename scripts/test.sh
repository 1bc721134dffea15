#!/usr/bin/env bash
# The test command: installs everything the tests need, then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
# Lint and types first (seconds): ruff over the tree, mypy strict over the card model and the engines
# (both configured in pyproject.toml).
.venv/bin/python -m ruff check .
.venv/bin/python -m mypy
# -m "": every test, the neural_extra ones too (pyproject's default run leaves them out); a -m given
# to this script comes later and wins. --durations: the 30 slowest, so every run (CI's too) says where
# the suite's wall time goes (issue 29: under 15 minutes is the target).
exec .venv/bin/python -m pytest -m "" --durations=30 "$@"
