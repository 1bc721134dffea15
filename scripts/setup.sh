#!/usr/bin/env bash
# Installs the project into ./.venv. Idempotent: a second run only checks.
#   scripts/setup.sh            the runtime (no torch): enough for the demo and the web app
#   scripts/setup.sh --dev      + the train extra (torch, ultralytics), test tools and Debian's Chromium
set -euo pipefail
cd "$(dirname "$0")/.."
dev=0
[ "${1:-}" = "--dev" ] && dev=1

python3 -m venv .venv 2>/dev/null || true
.venv/bin/python -m pip install -q --upgrade "pip>=24" >/dev/null
if [ "$dev" = 1 ]; then
    .venv/bin/python -m pip install -q -e ".[train,test]"
    # ultralytics pulls the GUI build of OpenCV beside the headless one; both own the cv2 folder, so keep
    # exactly one (headless) to avoid the two builds overwriting each other.
    if .venv/bin/python -m pip show -q opencv-python >/dev/null 2>&1; then
        .venv/bin/python -m pip uninstall -q -y opencv-python
        .venv/bin/python -m pip install -q --force-reinstall --no-deps "opencv-python-headless==5.0.0.93"
    fi
    # Browser tests drive Debian's Chromium; Playwright never downloads a browser of its own.
    if ! command -v chromium >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ]; then
            apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
        else
            sudo apt-get update -q >/dev/null && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
        fi
    fi
else
    .venv/bin/python -m pip install -q -e .
fi
echo "setup: .venv ready ($(.venv/bin/python -c 'import companion; print("companion", companion.__version__)'))"
