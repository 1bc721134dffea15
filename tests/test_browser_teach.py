"""Teaching a real deck from the phone, as a Chinese player would (headless Chromium at 390 × 844, zh-CN and
English): the 52 single-card photos of ../shared/datasets/real/decks/kentdoan/cards, named as a phone's
camera names them (IMG_0001.jpg …, in shuffled order) with one file among them that is no photo, are
chosen on the *Teach your deck* page under the name 家里的牌; the page sends them one at a time with
progress ("第 12 / 53 张"), the broken one says which and why and the rest go on; every card is placed,
the deck saved, listed under its name on the page and by ``companion deck list``; the table the page was
opened from is set to it, and that table's camera reads a photo of the same deck in play
(kentdoan/play/Cards_6.jpg) as 4S 7H 7C AD KC QS 4H. Teaching again under the name in use offers to
replace it (with a confirmation) or pick another name. No English word on the Chinese page's messages.

``COMPANION_SCREENSHOTS=docs/screens`` writes the pictures (teach-cards, teach-exists; ``-zh`` in Chinese).
"""
from __future__ import annotations

import os
import pathlib
import random
import shutil
import subprocess
import sys
import time

import pytest

from conftest import SHARED
from helpers.browser import PHONE
from helpers.screens import english_left, layout_problems, visible_text
from helpers.web import request, running_server

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.neural_extra]

KENTDOAN = SHARED / "datasets" / "real" / "decks" / "kentdoan"
PLAY_PHOTO, PLAY_CARDS = "Cards_6.jpg", {"4S", "7H", "7C", "AD", "KC", "QS", "4H"}
DECK_NAME = "家里的牌"
# the words the page may show in Latin letters: the units and a card code's letters are taken out by
# english_left already; MB is a unit
ALLOWED = {"MB"}
# Each language's words that must be there, as the player reads them.
SAYS = {"zh-CN": {"progress": "第 12 / 53 张", "picker": "选择照片", "chosen": "已选 53 张照片", "saved": "已保存",
                  "broken": "IMG_0053.jpg：无法读取的图片", "exists": "已经有一副叫", "replace": "替换"},
        "en": {"progress": "Sending photo 12 of 53", "picker": "Choose photos", "chosen": "53 photos chosen", "saved": "Saved the deck",
               "broken": "IMG_0053.jpg: not a readable image", "exists": "already exists", "replace": "Replace"}}


def shoot(page, name: str, at: str) -> None:
    """The phone's screen with ``at`` scrolled to its top, as scripts/screenshots.py writes its screens."""
    folder = os.environ.get("COMPANION_SCREENSHOTS")
    if folder:
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "scripts"))
        from screenshots import shrink

        pathlib.Path(folder).mkdir(parents=True, exist_ok=True)
        page.evaluate(f"document.querySelector({at!r}).scrollIntoView()")
        page.wait_for_timeout(300)
        path = pathlib.Path(folder) / f"{name}.png"
        page.screenshot(path=str(path))
        shrink(path)


def phone_photos(folder: pathlib.Path) -> list[pathlib.Path]:
    """The deck's card photos as a phone names them, in an order that is not the deck's, and one file that is no photo."""
    cards = sorted((KENTDOAN / "cards").glob("*.jpg"))
    assert len(cards) == 52, f"{KENTDOAN / 'cards'} holds {len(cards)} card photos, not 52"
    random.Random(31).shuffle(cards)
    folder.mkdir()
    paths = []
    for number, card in enumerate(cards, 1):
        paths.append(folder / f"IMG_{number:04d}.jpg")
        shutil.copyfile(card, paths[-1])
    paths.append(folder / "IMG_0053.jpg")
    paths[-1].write_bytes(b"a photo that did not finish saving\n")
    return paths


def statuses(page) -> None:
    """Every text the page's status line shows from now on, kept in window.said (progress passes quickly)."""
    page.evaluate("""() => { window.said = []; const status = document.getElementById('teach-status');
        new MutationObserver(() => window.said.push(status.textContent)).observe(status, {childList: true, characterData: true, subtree: true}); }""")


def camera_reads(base: str, app, table_id: str, pin: str, photo: pathlib.Path) -> set[str]:
    """What the table's camera reads in ``photo``, posted as a phone posts its frames: the cards its feed's
    reader (the server's one detector, viewed with the table's deck) finds. The table pipeline places cards
    on the board only once it has found the mat (no mat in a photo on a cloth), so the reading is asked of
    the reader the feed reads every frame with."""
    import http.client

    import cv2

    host = base.split("//")[1]
    # a phone sends frames until the camera reads (the first waits for the detector to load; a feed with
    # no frames for a minute stops)
    deadline, feed = time.monotonic() + 300, None
    while time.monotonic() < deadline:
        connection = http.client.HTTPConnection(host, timeout=120)
        connection.request("POST", f"/api/tables/{table_id}/frames", body=photo.read_bytes(),
                           headers={"Content-Type": "image/jpeg", "X-Referee-Pin": pin})
        answer = connection.getresponse()
        assert answer.status in (202, 429), answer.read()
        answer.read()
        connection.close()
        time.sleep(2)
        feed = app.extensions["camera"].feeds.get(table_id)
        if feed is not None and feed.status()["frames"] >= 3 and feed._reader is not None:
            break
    assert feed is not None and feed._reader is not None, "the table's camera read no frame in 5 minutes"
    status, camera = request(base, "GET", f"/api/tables/{table_id}/camera")
    assert camera["deck"]["reading_with"] == DECK_NAME and camera["deck"]["problem"] is None, camera
    assert feed._reader.deck.name == DECK_NAME
    return set(feed._reader.read(cv2.imread(str(photo))).cards.codes)


@pytest.mark.parametrize("language", ["zh-CN", "en"])
def test_a_deck_taught_from_52_card_photos_on_the_phone_reads_the_table(browser, tmp_path, language):
    says = SAYS[language]
    photos = phone_photos(tmp_path / "phone")
    data = tmp_path / "data"
    with running_server(data, CAMERA_DETECTION=True) as (base, app):
        status, table = request(base, "POST", "/api/tables", {"game": "dungeon", "players": ["安", "博", "辰"]})
        assert status == 201, table
        context = browser.new_context(**PHONE, base_url=base, locale=language, extra_http_headers={"Accept-Language": language})
        context.set_default_timeout(120_000)     # the machine may be loaded: a page may take a while, a failure does not
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"/t/{table['id']}")
        page.evaluate(f"localStorage.setItem('companion-pin:{table['id']}', '{table['pin']}')")
        page.goto(f"/decks/teach?table={table['id']}")
        assert page.locator("#deck-photos-button").inner_text() == says["picker"]
        # the browser's own button ("Choose Files", in the browser's language) is not seen: the input lies unseen over its label
        assert page.evaluate("getComputedStyle(document.getElementById('deck-photos')).opacity") == "0"

        # what the page cannot take it says before sending: no name yet
        page.set_input_files("#deck-photos", [str(p) for p in photos])
        assert page.locator("#deck-photos-chosen").inner_text() == says["chosen"]
        page.click("#read-button")
        refused = page.locator("#teach-status").inner_text()
        assert refused and not app.extensions.get("deck_drafts")

        page.fill("#deck-name", DECK_NAME)
        statuses(page)
        started = time.monotonic()
        page.click("#read-button")
        page.locator("#save-button").wait_for(state="visible", timeout=600_000)
        print(f"{language}: 53 photos sent and read in {time.monotonic() - started:.1f} s")   # docs/web.md, with the load
        said = page.evaluate("window.said")
        assert any(says["progress"] in text for text in said), said
        failed = page.locator("#teach-failed li").all_inner_texts()
        assert len(failed) == 1 and failed[0].startswith(says["broken"]), failed
        labels = page.locator("#teach-cards .card-label").all_inner_texts()
        assert len(labels) == 52 and not any(label.endswith("?") for label in labels), labels
        assert page.locator("#teach-asked").is_hidden()
        shown = [refused, *failed, *page.locator("#teach-problems li").all_inner_texts(), page.locator("#teach-status").inner_text()]
        if language == "zh-CN":
            assert english_left(shown, ALLOWED) == []
            assert english_left(visible_text(page), ALLOWED | {"Card Companion", "English"}) == []
        assert not any("companion " in text or "--" in text for text in shown), shown
        assert layout_problems(page) == []
        shoot(page, "teach-cards" + ("-zh" if language == "zh-CN" else ""), "#deck-photos-chosen")

        page.click("#save-button")
        page.locator("#teach-status", has_text=says["saved"]).wait_for(timeout=120_000)
        assert DECK_NAME in page.locator("#deck-list").all_inner_texts()[0]
        listing = subprocess.run([sys.executable, "-m", "companion", "deck", "list", "--data", str(data)], capture_output=True, text=True,
                                 env={**os.environ, "LANG": "zh_CN.UTF-8"}, check=True).stdout
        assert listing.startswith(f"{DECK_NAME}：52 张牌"), listing

        # the table the page was opened from reads with it
        page.click("#use-deck-button")
        page.locator("#teach-status", has_text=table["id"]).wait_for(timeout=30_000)
        assert app.extensions["registry"].get(table["id"]).deck.name == DECK_NAME
        page.goto(f"/t/{table['id']}")
        page.wait_for_selector("body[data-live='1']")
        assert page.locator("#deck-choice option:checked").inner_text() == DECK_NAME
        assert camera_reads(base, app, table["id"], table["pin"], KENTDOAN / "play" / PLAY_PHOTO) == PLAY_CARDS

        # the name is in use now: the page offers to replace that deck (after a confirmation) or pick another name
        page.goto(f"/decks/teach?table={table['id']}")
        page.fill("#deck-name", DECK_NAME)
        page.set_input_files("#deck-photos", [str(photos[0])])
        page.click("#read-button")
        page.locator("#teach-exists").wait_for(state="visible", timeout=30_000)
        assert says["exists"] in page.locator("#teach-status").inner_text()
        assert says["replace"] in page.locator("#replace-button").inner_text()
        if language == "zh-CN":
            assert english_left([page.locator("#teach-status").inner_text()], ALLOWED) == []
        shoot(page, "teach-exists" + ("-zh" if language == "zh-CN" else ""), ".teach-kind")
        asked: list[str] = []

        def answer(dialog):
            asked.append(dialog.message)
            dialog.dismiss()

        page.once("dialog", answer)
        page.click("#replace-button")
        assert len(asked) == 1 and DECK_NAME in asked[0]
        if language == "zh-CN":
            assert english_left(asked, ALLOWED) == []
        page.click("#rename-button")
        assert page.evaluate("document.activeElement.id") == "deck-name"
        assert app.extensions["registry"].deck_names() == [DECK_NAME]     # nothing replaced
        assert errors == []
        context.close()
