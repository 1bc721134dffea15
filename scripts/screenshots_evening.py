"""Screenshots of the evening's pages (web_ui/evening.py) as a phone shows them, in English and in Chinese.

    PYTHONPATH=. .venv/bin/python scripts/screenshots_evening.py [--out docs/screens] [--width 390] [--language zh-Hans]

A server with four finished games (Kingdoms twice, one with Chinese names; Guilds and Dungeon; The Chosen:
tests/helpers/finished_games.py) and one being played: the host's list, the players' records, one player's
page (the host's, with its merge form), a table's delete page, the import page and a finished table's own
page (read-only, with the link to its result), each as
``evening-<name>.png`` (English) and ``evening-<name>-zh.png`` (Simplified Chinese), full page, at the
phone's width (390 px) and the list again at 320 px. Needs Debian's Chromium at /usr/bin/chromium and
Playwright. Prints each path.
"""
from __future__ import annotations

import argparse
import importlib.util
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

HOST = "s" * 43


def _screenshots():
    spec = importlib.util.spec_from_file_location("screenshots", ROOT / "scripts" / "screenshots.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fill(app) -> tuple[str, str]:
    """The games, played through the registry; returns the ids of the one being played and of a finished one."""
    from helpers.finished_games import finished

    registry = app.extensions["registry"]
    done = []
    for game, names in (("kingdoms", {}), ("dungeon", {}), ("chosen", {}), ("kingdoms", {"names": ("李雷", "韩梅梅")})):
        game, setup, events = finished(game, **names)
        table, _pin = registry.create(game, setup)
        for event in events:
            table.submit(event)
        done.append(table.id)
    playing, _pin = registry.create("chosen", {"players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "王芳"}]})
    return playing.id, done[0]


def main(argv=None) -> int:
    screenshots = _screenshots()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screens"))
    parser.add_argument("--width", type=int, default=390)
    parser.add_argument("--height", type=int, default=844)
    parser.add_argument("--language", action="append", choices=sorted(screenshots.LANGUAGES), dest="languages")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from web_ui import create_app
    from web_ui.server import BackgroundServer

    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    app = create_app({"DATA_DIR": tempfile.mkdtemp(prefix="companion-screens-"), "HOST_TOKEN": HOST})
    playing, finished = fill(app)
    written = []
    with BackgroundServer(app) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=screenshots.CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        for language in args.languages or list(screenshots.LANGUAGES):
            suffix = screenshots.LANGUAGES[language]
            context = browser.new_context(viewport={"width": args.width, "height": args.height}, device_scale_factor=1,
                                          is_mobile=True, has_touch=True, base_url=base, locale=language,
                                          extra_http_headers={"Accept-Language": language})
            page = context.new_page()
            page.goto(f"/evening#host={HOST}")
            page.wait_for_selector(".evening-table")

            def shoot(name: str, page=page, suffix=suffix) -> None:
                path = out / f"evening-{name}{suffix}.png"
                page.screenshot(path=str(path), full_page=True)
                screenshots.shrink(path)
                written.append(path)

            shoot("list")
            page.set_viewport_size({"width": screenshots.NARROW_PHONE_PX, "height": args.height})
            shoot("list-320")
            page.set_viewport_size({"width": args.width, "height": args.height})
            for name, path in (("records", "/players"), ("player", "/players/Bo"), ("delete", f"/t/{playing}/delete"),
                               ("import", "/evening/import"), ("finished-table", f"/t/{finished}")):
                page.goto(path)
                if name == "finished-table":
                    page.wait_for_selector("body[data-live='1']")   # the board drawn, not "Loading…"
                shoot(name)
            context.close()
        browser.close()
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
