#!/usr/bin/env bash
# The test command: installs everything the tests need, then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
exec .venv/bin/python -m pytest "$@"
