"""The result pages in headless Chromium (issue 30): each game played to its end, then its result page at
390 and 320 px wide in English and Chinese: axe-core clean, finger-sized targets, nothing wider than the
screen, no text on other text, no English left on the Chinese page; the picture saved, the page printed
to PDF, and the table pages showing the same server-drawn chart.

Screenshots go to ``$COMPANION_SCREENSHOTS`` when set (``result-<game>[-320][-zh].png``; docs/screens/ holds
them: ``PYTHONPATH=. .venv/bin/python scripts/screenshots.py`` does not take these, this test does)."""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from helpers.browser import PHONE
from helpers.games import kingdoms_game, play_through_api, simulated_game
from helpers.screens import english_left, layout_problems, visible_text
from helpers.web import running_server
from test_accessibility import page_problems

pytestmark = pytest.mark.browser
SHOTS = os.environ.get("COMPANION_SCREENSHOTS")
#: Words a Chinese page may still show: the file formats named on the share buttons.
FORMATS = ("SVG", "PNG", "PDF")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A server with one finished table of each game (the Dungeon's ends on a tie-break)."""
    with running_server(tmp_path_factory.mktemp("results")) as (base, app):
        client = app.test_client()
        games = {"kingdoms": kingdoms_game(seed=1), "dungeon": simulated_game("dungeon", seed=21, players=3),
                 "chosen": simulated_game("chosen", seed=7, players=3)}
        tables = {game: play_through_api(client, game, *made) for game, made in games.items()}
        names = {game: [p["name"] if isinstance(p, dict) else p for p in made[0]["players"]] for game, made in games.items()}
        yield base, tables, names


def shoot(page, name: str) -> None:
    if SHOTS:
        pathlib.Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(pathlib.Path(SHOTS) / f"{name}.png"))   # what the phone shows first


@pytest.mark.parametrize("width", [390, 320])
@pytest.mark.parametrize("language", ["en", "zh-Hans"])
def test_each_result_page_is_clean_and_readable_on_a_phone(browser, played, width, language):
    base, tables, names = played
    context = browser.new_context(**{**PHONE, "viewport": {"width": width, "height": 844}}, base_url=base,
                                  locale=language, extra_http_headers={"Accept-Language": language})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    problems = {}
    for game, table in tables.items():
        page.goto(f"/t/{table['id']}/result")
        page.wait_for_selector("#ranking")
        found = page_problems(page)
        found += layout_problems(page)
        if language != "en":
            found += [f"English left: {text!r}" for text in english_left(visible_text(page), [*names[game], *FORMATS])]
        if found:
            problems[game] = found
        # the chart is on the page, one series per player, drawn inside the screen
        box = page.locator("#chart-figure-0 svg").bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= width + 1
        assert page.locator("#chart-figure-0 svg g.series").count() == len(names[game])
        shoot(page, f"result-{game}" + ("-320" if width == 320 else "") + ("-zh" if language != "en" else ""))
    context.close()
    assert problems == {}, json.dumps(problems, indent=1, ensure_ascii=False)
    assert errors == []


def test_the_picture_saves_and_the_page_prints_to_pdf(browser, played, tmp_path):
    base, tables, names = played
    context = browser.new_context(**PHONE, base_url=base, accept_downloads=True)
    page = context.new_page()
    page.goto(f"/t/{tables['kingdoms']['id']}/result")
    with page.expect_download() as download:
        page.click("#save-picture")
    saved = tmp_path / "picture.svg"
    download.value.save_as(saved)
    root = ET.parse(saved).getroot()
    words = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert all(name in words for name in names["kingdoms"]) and "Totals by round" in words
    # the same picture as PNG, drawn on a canvas in the browser: twice the SVG's size, for a sharp phone screen
    with page.expect_download() as download:
        page.click("#save-png")
    picture = tmp_path / "picture.png"
    download.value.save_as(picture)
    from PIL import Image

    with Image.open(picture) as image:
        assert image.format == "PNG" and (image.width, image.height) == (int(root.get("width")), int(root.get("height")))
        assert len(image.convert("RGB").getcolors(maxcolors=1 << 20)) > 16   # drawn, not blank
    # print styles: no top bar, no buttons; every folded section opened for the paper
    page.emulate_media(media="print")
    assert not page.locator("#share").is_visible() and not page.locator(".topbar").is_visible()
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    assert page.locator("#result details:not([open])").count() == 0
    pdf = tmp_path / "result.pdf"
    page.pdf(path=str(pdf), format="A4")
    assert pdf.read_bytes().startswith(b"%PDF")
    tool = shutil.which("pdftotext")
    assert tool, "pdftotext (poppler-utils) reads the printed PDF back"
    text = subprocess.run([tool, str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "How the scores came about" in text and "Castles left" in text
    assert all(name in text for name in names["kingdoms"])
    context.close()


def test_the_table_pages_show_the_same_chart_and_link_to_the_result(browser, played):
    base, tables, _names = played
    context = browser.new_context(**PHONE, base_url=base)
    page = context.new_page()
    for table in tables.values():
        page.goto(f"/t/{table['id']}")
        page.wait_for_selector("body[data-live='1']")
        page.wait_for_function("(() => { const i = document.querySelector('.table-chart img'); return i && i.complete && i.naturalWidth > 0; })()")
        src = page.locator(".table-chart img").get_attribute("src")
        assert src.startswith(f"/t/{table['id']}/result/chart.svg?v=")
        page.click(".table-chart a.link-button")
        page.wait_for_selector("#ranking")
        assert page.url.endswith(f"/t/{table['id']}/result")
    context.close()


@pytest.mark.parametrize("game", ["kingdoms", "dungeon", "chosen"])
def test_a_finished_table_page_offers_no_move_and_the_referees_undo_reopens_it(browser, tmp_path, game):
    """The referee's own phone on a finished table: the page says so and links to the result, with no move entry
    anywhere (the board's buttons, + Event, Redo); Undo stays and reopens the game, and the entry comes back."""
    made = {"kingdoms": kingdoms_game(seed=1), "dungeon": simulated_game("dungeon", seed=21, players=3),
            "chosen": simulated_game("chosen", seed=7, players=3)}[game]
    with running_server(tmp_path) as (base, app):
        table = play_through_api(app.test_client(), game, *made)
        context = browser.new_context(**PHONE, base_url=base)
        page = context.new_page()
        page.goto(f"/t/{table['id']}#ref={table['referee_token']}")
        page.wait_for_selector("body.referee[data-live='1']")
        assert page.locator("#finished-note").is_visible()
        assert page.locator("#finished-result").get_attribute("href") == f"/t/{table['id']}/result"
        assert page.locator("#event-open").is_hidden() and page.locator("#redo").is_disabled() and page.locator("#undo").is_enabled()
        # every button left on the board only shows something (a castle's account): none asks for a card or sends a move
        posted = []
        page.on("request", lambda request: posted.append(request.url) if request.method == "POST" else None)
        for index in range(page.locator("#board button:visible").count()):
            button = page.locator("#board button:visible").nth(index)
            if button.is_enabled():
                label = button.inner_text()
                button.click()
                assert page.locator("dialog[open]").count() == 0, f"{label!r} opened a dialog on a finished table"
        assert posted == []
        page.click("#undo")
        page.wait_for_selector("#finished-note", state="hidden")
        assert page.locator("#event-open").is_visible() and page.locator("#redo").is_enabled()
        context.close()
