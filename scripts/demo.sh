#!/usr/bin/env bash
# The main job on a fresh machine: install the runtime (no torch) and run the shipped demo recording
# through the table pipeline into the phone referee, served on http://127.0.0.1:8000/.
# The recording's own card list stands in for the neural detector, which does not yet read a
# whole-table view reliably (vision_models/EVALUATION.md); --demo-detector neural shows the real eyes.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/companion serve --demo "${DEMO_GAME:-kingdoms}" --demo-detector "${DEMO_DETECTOR:-truth}" "$@"
