"""The evening's pages in Chromium (web_ui/evening.py): the host's link opens the list of every table with its
winner, a player's phone lists the tables it opened, the records and a player's page, deleting a table from
its page, importing an export; each page axe clean, finger-sized and within a 320 px phone, in English and
in Chinese."""
from __future__ import annotations

import json

import pytest

from helpers.browser import PHONE
from helpers.finished_games import finished
from helpers.web import request, running_server
from test_accessibility import NARROW_PHONE_PX, page_problems

pytestmark = pytest.mark.browser
HOST = "t" * 43


def play(base, game, **names):
    game, setup, events = finished(game, **names)
    status, table = request(base, "POST", "/api/tables", {"game": game, **setup})
    assert status == 201, table
    for event in events:
        status, body = request(base, "POST", f"/api/tables/{table['id']}/events", event, {"X-Referee-Pin": table["pin"]})
        assert status == 200, body
    return table


@pytest.fixture(scope="module")
def evening(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("evening"), HOST_TOKEN=HOST) as (base, app):
        made = {game: play(base, game) for game in ("kingdoms", "dungeon", "chosen")}
        made["named"] = play(base, "kingdoms", names=("李雷", "韩梅梅"))
        _, made["playing"] = request(base, "POST", "/api/tables", {"game": "chosen", "players": [{"name": "Ann"}, {"name": "Bo"}]})
        yield base, made


def host_page(browser, base, width=390, language="en"):
    context = browser.new_context(**{**PHONE, "viewport": {"width": width, "height": 844}}, base_url=base, locale=language,
                                  extra_http_headers={"Accept-Language": language})
    page = context.new_page()
    page.goto(f"/evening#host={HOST}")
    page.wait_for_selector(".evening-table")
    return context, page


@pytest.mark.parametrize("language", ["en", "zh-Hans"])
@pytest.mark.parametrize("width", [390, NARROW_PHONE_PX])
def test_every_evening_page_passes_axe_has_finger_sized_targets_and_fits_the_phone(browser, evening, width, language):
    base, made = evening
    context, page = host_page(browser, base, width, language)
    problems = {}

    def check(name):
        found = page_problems(page)
        if found:
            problems[name] = found

    check("the host's list")
    page.goto("/players")
    check("records")
    page.goto("/players/Bo")
    check("a player's page")
    page.goto(f"/t/{made['playing']['id']}/delete")
    check("delete a table")
    page.goto("/evening/import")
    check("import")
    stranger = browser.new_context(**{**PHONE, "viewport": {"width": width, "height": 844}}, base_url=base, locale=language,
                                   extra_http_headers={"Accept-Language": language}).new_page()
    stranger.goto("/players")
    page = stranger
    check("refused")
    stranger.context.close()
    context.close()
    assert problems == {}, json.dumps(problems, indent=1, ensure_ascii=False)


def test_the_hosts_link_lists_every_table_with_its_winner_and_a_phone_its_own(browser, evening):
    base, made = evening
    context, page = host_page(browser, base)
    assert page.url.endswith("/evening")   # the token left the address bar
    listed = page.locator(".evening-table").all_inner_texts()
    assert len(listed) == 5
    kingdoms = next(text for text in listed if made["kingdoms"]["id"] in text)
    assert "finished" in kingdoms and "Winner: Bo" in kingdoms
    assert "playing" in next(text for text in listed if made["playing"]["id"] in text)
    page.goto("/players")
    assert "Bo" in page.inner_text("main") and "李雷" in page.inner_text("main")
    context.close()

    phone = browser.new_context(**PHONE, base_url=base).new_page()
    phone.goto("/evening")
    assert "opened no table" in phone.inner_text("main")
    phone.goto(f"/t/{made['dungeon']['id']}")
    phone.wait_for_selector("body[data-live='1']")
    phone.goto("/evening")
    phone.wait_for_selector(".evening-table")
    assert [made["dungeon"]["id"] in text for text in phone.locator(".evening-table").all_inner_texts()] == [True]
    phone.goto("/players")
    assert "Only for the host" in phone.inner_text("main")
    phone.context.close()


def test_the_referee_deletes_a_table_from_its_page_and_the_host_imports_it_back(browser, evening, tmp_path):
    base, made = evening
    status, _ = request(base, "GET", f"/api/tables/{made['playing']['id']}")
    assert status == 200
    exported = tmp_path / "export.json"
    context, page = host_page(browser, base)
    with page.expect_download() as download:
        page.click(f"a[href='/api/tables/{made['playing']['id']}/export.json']")
    download.value.save_as(exported)

    referee = browser.new_context(**PHONE, base_url=base).new_page()
    referee.goto(f"/t/{made['playing']['id']}")
    referee.evaluate(f"localStorage.setItem('companion-pin:{made['playing']['id']}', '{made['playing']['pin']}')")
    referee.goto(f"/t/{made['playing']['id']}/delete")
    referee.fill("#delete-confirm", "WRONG1")
    referee.on("dialog", lambda dialog: dialog.accept())
    referee.click("#delete-submit")
    referee.wait_for_selector("#delete-error:not([hidden])")
    assert request(base, "GET", f"/api/tables/{made['playing']['id']}")[0] == 200
    referee.fill("#delete-confirm", made["playing"]["id"])
    referee.click("#delete-submit")
    referee.wait_for_url("**/evening")
    assert request(base, "GET", f"/api/tables/{made['playing']['id']}")[0] == 404
    assert request(base, "GET", f"/api/tables/{made['kingdoms']['id']}")[0] == 200
    referee.context.close()

    page.goto("/evening/import")
    page.set_input_files("#import-file", str(exported))
    page.click("#import-submit")
    page.wait_for_selector("#import-done li")
    imported = page.inner_text("#import-done")
    assert "1 table imported" in imported and "referee PIN" in imported
    page.goto("/evening")
    assert len(page.locator(".evening-table").all()) == 5
    context.close()
