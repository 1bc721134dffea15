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
# -n 3: three worker processes (pytest-xdist), so that while tests wait on real time (a recording played to
# Chromium's fake camera, a database stopped and started) others use the cores. --dist loadscope: each test
# module whole in one worker, so its module fixtures (a browser, a page's reader and the frames it has read)
# are made once; --no-loadscope-reorder: modules handed out in file order as workers free up, so the long
# browser modules start first and short ones fill the end. Measured in fresh clones on this 2-core machine,
# nothing else running (2026-12-07): one process 28.0 min wall, two 17.7, three 14.9 (the tests 25.7 / 15.8 /
# 13.1 min), every test passing each time; tests/test_browser_camera.py (the server must read a frame in under
# about a second) took 4.1-4.2 min in all three. A -n given to this script comes later and wins (-n 0: none).
workers=(-n 3 --dist loadscope --no-loadscope-reorder)
# The realtime runs measure this machine's own pace: asked for (-m realtime), they run in this process,
# one at a time with nothing beside them, and -s shows what each prints (xdist's workers do not pass it on).
for arg in "$@"; do
    if [[ "$arg" == *realtime* && "$arg" != *"not realtime"* ]]; then workers=(-n 0); fi
done
exec .venv/bin/python -m pytest -m "not realtime" "${workers[@]}" --durations=30 "$@"
