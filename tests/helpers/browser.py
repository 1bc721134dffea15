"""Headless Chromium for the browser tests: Debian's own build, driven by Playwright (never
``playwright install``). ``scripts/test.sh`` installs it; a missing Chromium fails the browser tests
instead of skipping them."""
from __future__ import annotations

import os

CHROMIUM = "/usr/bin/chromium"
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def require_chromium() -> None:
    if not os.path.exists(CHROMIUM):
        raise RuntimeError(f"no Chromium at {CHROMIUM}: the browser tests need Debian's chromium "
                           "(bash scripts/setup.sh --dev installs it)")
