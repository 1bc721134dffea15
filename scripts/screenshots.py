"""Screenshots of each game screen as a phone shows it (390 × 844), in English and in Chinese, for docs/web.md.

    PYTHONPATH=. .venv/bin/python scripts/screenshots.py [--out docs/screens] [--width 390 --height 844] [--language zh-Hans]

Each game's table is the shipped demo recording (``demo/<game>/``) read part-way by the table pipeline
with the recording's own card list as its eyes (fast and exact: the pictures show the screens, not the
detector), so the board, the camera view and the log are what a real camera would have given. On the
Kingdoms table one camera question is staged on a card (the recordings are read without one) so the
picture shows how a question looks on the board and in the camera view. The Chosen's rings and vault
are shot again scrolled into view, at the phone's width and at 320 px; each game's rules page as its
table shows it, and the teach-your-deck page. Every screen in each language: English as ``<name>.png``,
Simplified Chinese as ``<name>-zh.png`` (the phone's browser asks for it, as a Chinese phone does).
Needs Debian's Chromium at /usr/bin/chromium and Playwright (the test extra). Writes PNGs; prints each
path.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
NARROW_PHONE_PX = 320  # the narrowest phone the accessibility test checks (tests/test_accessibility.py)
# How far into each recording the table is shown: mid-game, with cards on the table and a log; The Chosen's
# at the moment its first chosen waits at the vault with two chips face down (85-90 % of the recording).
PLAYED_SHARE = {"kingdoms": 0.55, "dungeon": 0.6, "chosen": 0.87}


def read_part_of_the_demo(app, game: str):
    """A table set up like the demo's, its camera feed having read the first part of the recording."""
    from companion.messages import Message
    from companion.session.camera import CameraFeed
    from companion.synthetic.recording import TruthDetector
    from companion.table.demos import demo_dir, demo_truth
    from companion.table.sources import open_source

    truth = demo_truth(game)
    table, pin = app.extensions["registry"].create(game, truth["setup"])
    for event in truth.get("setup_events", []):
        table.submit(event, source="referee")
    hub = app.extensions["camera"]
    detector = TruthDetector.from_jsonl(demo_dir(game))
    feed = CameraFeed(table, source=[], detector_loader=lambda: detector, questions=hub.book(table),
                      on_frame=lambda image: hub.publish(table.id, image),
                      description=Message("server camera %(source)s", source=f"demo/{game}"))  # as `serve --demo` names it
    feed.load_detector()
    source = open_source(str(demo_dir(game)))
    frames = list(source)
    for timestamp, frame in frames[: int(len(frames) * PLAYED_SHARE[game])]:
        feed.frames += 1
        feed.process(timestamp, frame)
    hub.feeds[table.id] = feed
    return table, pin, feed


def stage_a_question(feed, table) -> None:
    """One question on a settled Kingdoms card, as the tracker asks when a reading is weak."""
    from companion.messages import CardName, Message
    from companion.session.questions import Question

    track = next(t for t in feed._pipeline.tracker.cards if t.zone)
    asked = Message("is the card at this spot %(code)s? the camera is only %(confidence)s sure", code=CardName(track.code),
                    confidence="48%")
    feed.book.add(Question(feed.book.next_id(), asked,
                           "unsure", track.zone, [track.code], track.id, feed._pixel(track.position), time.time()))
    feed.tracks = feed._track_states()


def shrink(path: pathlib.Path) -> None:
    """256 colours are plenty for a flat UI: the PNG gets about three times smaller (Pillow, when installed)."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)


# Each language's screens: English as docs/screens/<name>.png, Simplified Chinese as <name>-zh.png.
LANGUAGES = {"en": "", "zh-Hans": "-zh"}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screens"))
    parser.add_argument("--width", type=int, default=390)
    parser.add_argument("--height", type=int, default=844)
    parser.add_argument("--language", action="append", choices=sorted(LANGUAGES), dest="languages",
                        help="only this language's screens (repeatable; default: every language)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from web_ui import create_app
    from web_ui.server import BackgroundServer

    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    app = create_app({"DATA_DIR": tempfile.mkdtemp(prefix="companion-screens-")})
    tables = {game: read_part_of_the_demo(app, game) for game in ("kingdoms", "dungeon", "chosen")}
    stage_a_question(tables["kingdoms"][2], tables["kingdoms"][0])
    written = []
    with BackgroundServer(app) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        for language in args.languages or list(LANGUAGES):
            # the phone's browser asks for the language, as a phone's first visit does
            context = browser.new_context(viewport={"width": args.width, "height": args.height}, device_scale_factor=1,
                                          is_mobile=True, has_touch=True, base_url=base, locale=language,
                                          extra_http_headers={"Accept-Language": language})
            written += shoot_every_screen(context.new_page(), tables, out, LANGUAGES[language], args)
            context.close()
        browser.close()
    for path in written:
        print(path)
    return 0


def shoot_every_screen(page, tables, out: pathlib.Path, suffix: str, args) -> list[pathlib.Path]:
    written = []

    def shoot(name: str) -> None:
        page.wait_for_timeout(300)
        path = out / f"{name}{suffix}.png"
        page.screenshot(path=str(path))
        shrink(path)
        written.append(path)

    page.goto("/")
    page.wait_for_selector("#player-rows .player-row")
    shoot("home")
    for game, (table, pin, _) in tables.items():
        page.goto(f"/t/{table.id}")
        page.evaluate(f"localStorage.setItem('companion-pin:{table.id}', '{pin}')")
        page.reload()
        page.wait_for_selector("body[data-live='1']")
        if game == "kingdoms":
            page.wait_for_selector(".kcell.asked")
            page.locator(".kgrid").first.scroll_into_view_if_needed()
            page.evaluate("window.scrollBy(0, -120)")
        shoot(game)
        if game == "kingdoms":
            page.locator(".kcell.asked").first.click()
            page.wait_for_selector("#question-dialog[open]")
            shoot("kingdoms-question")
            page.click("#question-cancel")
            page.click("#camera-open")
            page.wait_for_selector("#camera-stage:not([hidden]) .cam-label")
            shoot("camera-view")
            page.click("#camera-close")
        if game == "dungeon":
            page.locator("#log").scroll_into_view_if_needed()
            shoot("dungeon-log")
        if game == "chosen":
            # the rings and the vault, card by card, at the phone's width and at the narrowest phone's
            to_the_rings = "document.querySelector('.rings').scrollIntoView({block: 'start'}); window.scrollBy(0, -70)"
            page.evaluate(to_the_rings)  # 70 px: below the sticky top bar
            shoot("chosen-rings")
            page.set_viewport_size({"width": NARROW_PHONE_PX, "height": args.height})
            page.evaluate(to_the_rings)
            shoot("chosen-rings-320")
            page.set_viewport_size({"width": args.width, "height": args.height})
        page.goto(f"/t/{table.id}/rules")
        shoot(f"rules-{game}")
    page.goto(f"/decks/teach?table={tables['kingdoms'][0].id}")
    shoot("teach")
    return written


if __name__ == "__main__":
    raise SystemExit(main())
