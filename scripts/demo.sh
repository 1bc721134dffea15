#!/usr/bin/env bash
# The main job on a fresh machine: install the runtime (no torch) and run the shipped demo recording
# through the table pipeline into the phone referee, served on http://127.0.0.1:8000/.
# By default the Guilds and Dungeon recording, played live at its own frame rate and read by the shipped
# neural detector (ONNX, no torch); DEMO_GAME=kingdoms and DEMO_GAME=chosen play the others. The server
# reads each of the three to its truth (scripts/demo_check.py GAME measures it; README.md has the figures).
# DEMO_DETECTOR=truth feeds the pipeline the recording's own card list instead (the tracking and the
# referee without the eyes).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/companion serve --demo "${DEMO_GAME:-dungeon}" --demo-detector "${DEMO_DETECTOR:-auto}" "$@"
