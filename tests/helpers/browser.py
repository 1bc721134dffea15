"""Headless Chromium for the browser tests: Debian's own build, driven by Playwright (never
``playwright install``). ``scripts/test.sh`` installs it; a missing Chromium fails the browser tests
instead of skipping them."""
from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

CHROMIUM = "/usr/bin/chromium"
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def require_chromium() -> None:
    if not os.path.exists(CHROMIUM):
        raise RuntimeError(f"no Chromium at {CHROMIUM}: the browser tests need Debian's chromium "
                           "(bash scripts/setup.sh --dev installs it)")


@contextlib.contextmanager
def phone_camera(base: str, table_id: str, pin: str, video, **context_options) -> Iterator[tuple[object, list[str]]]:
    """A phone on a table's page with Chromium's fake camera playing ``video`` (Y4M), the referee's PIN
    remembered, the page live, and *Use this phone's camera* chosen: yields the page and the page errors
    seen so far (a list that grows). The browser closes on leaving."""
    from playwright import sync_api

    require_chromium()
    camera = ["--use-fake-device-for-media-stream", f"--use-file-for-fake-video-capture={video}", "--use-fake-ui-for-media-stream"]
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS + camera)
        try:
            context = browser.new_context(**PHONE, base_url=base, permissions=["camera"], **context_options)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"/t/{table_id}")
            page.evaluate(f"localStorage.setItem('companion-pin:{table_id}', '{pin}')")
            page.reload()
            page.wait_for_selector("body[data-live='1']")
            page.click("#camera-open")
            page.click("#camera-phone")
            yield page, errors
        finally:
            browser.close()
