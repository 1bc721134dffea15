"""A table's deck on the phones (headless Chromium): chosen on the start page, changed by the referee on the
table's page, seen live by a watcher; Teach your deck is one tap from the referee's panel."""
from __future__ import annotations

import pytest

from companion.vision.deckprofile import DeckStore
from helpers.browser import PHONE
from helpers.decks import deck_reading as deck
from helpers.web import running_server

pytestmark = pytest.mark.browser


def phone(browser, base):
    page = browser.new_context(**PHONE, base_url=base).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def test_a_table_is_started_with_a_deck_and_its_referee_changes_it_live(browser, tmp_path):
    DeckStore(tmp_path).save(deck("kitchen", "KH"))
    DeckStore(tmp_path).save(deck("club night", "2C"))
    with running_server(tmp_path, SSE_MAX_SECONDS=60.0, CAMERA_DETECTION=False) as (base, app):
        referee, referee_errors = phone(browser, base)
        referee.goto("/")
        referee.select_option("#game", "dungeon")
        referee.select_option("#deck", label="kitchen")
        referee.click("#create")
        referee.wait_for_url("**/t/*")
        table_id = referee.url.rsplit("/", 1)[1]
        referee.wait_for_selector("body[data-live='1']")
        assert app.extensions["registry"].get(table_id).deck.name == "kitchen"
        assert referee.locator("#deck-says").inner_text() == "The camera reads with the deck “kitchen”."
        assert referee.locator("#deck-form").is_visible()
        assert referee.locator("#deck-teach").get_attribute("href") == f"/decks/teach?table={table_id}"

        watcher, watcher_errors = phone(browser, base)
        watcher.goto(f"/t/{table_id}")
        watcher.wait_for_selector("body[data-live='1']")
        assert not watcher.locator("#deck-form").is_visible()

        referee.select_option("#deck-choice", label="club night")
        referee.click("#deck-use")
        watcher.locator("#deck-says", has_text="club night").wait_for(timeout=10_000)
        assert referee.locator("#deck-says").inner_text() == "The camera reads with the deck “club night”."
        assert "the camera reads with the deck club night" in watcher.locator("#log").inner_text()
        assert app.extensions["registry"].get(table_id).deck.name == "club night"

        # the deck leaves the data folder: the phones say so on their next look at the camera
        DeckStore(tmp_path).remove("club night")
        watcher.locator("#deck-says", has_text="no longer in the data folder").wait_for(timeout=10_000)
        assert "reading with the general models" in watcher.locator("#deck-says").inner_text()

        referee.click("#deck-teach")
        referee.wait_for_url(f"**/decks/teach?table={table_id}")
        assert referee.locator("#teach-deck").get_attribute("data-table") == table_id
        assert referee_errors == [] and watcher_errors == []
