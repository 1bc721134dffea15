#!/usr/bin/env bash
# The main job on a fresh machine: install the runtime (no torch) and run the shipped demo recording
# through the table pipeline into the phone referee, served on http://127.0.0.1:8000/.
# By default the Guilds and Dungeon recording, read by the shipped neural detector (ONNX, no torch):
# it reads that whole game to its truth (docs/table.md), as it does the Kingdoms one (DEMO_GAME=kingdoms);
# DEMO_GAME=chosen is not yet read to its truth. DEMO_DETECTOR=truth feeds the pipeline
# the recording's own card list instead (the tracking and the referee without the eyes).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/companion serve --demo "${DEMO_GAME:-dungeon}" --demo-detector "${DEMO_DETECTOR:-auto}" "$@"
