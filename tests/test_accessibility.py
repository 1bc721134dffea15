"""Every page through axe-core (the copy pinned with ``axe-playwright-python``, injected by Playwright):
no serious or critical violation; every touch target at least 44 px; nothing wider than a 320 px phone."""
from __future__ import annotations

import json

import pytest

from conftest import GOLDEN_KINGDOMS
from helpers.browser import PHONE
from helpers.web import request

pytestmark = pytest.mark.browser
MIN_TARGET_PX = 44          # WCAG 2.5.5 (AAA) and the platforms' own guidance for a finger
NARROW_PHONE_PX = 320       # the narrowest phone screens still sold (iPhone SE 1st gen, small Androids)
# Interactive elements whose size a finger needs. Exempt (WCAG 2.5.5): links inside running text, and the
# camera picture's card labels, whose questions are also buttons of full size in the board's question list.
TARGETS = "button:not(.cam-label), select, input:not([type=hidden]), textarea, summary"


def axe_violations(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [f"{v['id']} ({v['impact']}): {v['help']} · {[n['target'] for n in v['nodes']][:4]}"
            for v in results.response["violations"] if v["impact"] in ("serious", "critical")]


def small_targets(page) -> list[str]:
    return page.evaluate("""([selector, min]) => [...document.querySelectorAll(selector)]
        .filter((n) => n.offsetParent !== null && !n.disabled)
        .map((n) => [n, n.getBoundingClientRect()])
        .filter(([n, r]) => r.width > 0 && (r.width < min - 0.5 || r.height < min - 0.5))
        .map(([n, r]) => n.outerHTML.slice(0, 80) + ' ' + Math.round(r.width) + 'x' + Math.round(r.height))""",
                         [TARGETS, MIN_TARGET_PX])


def page_problems(page) -> list[str]:
    """What a phone user meets on the page as it stands: axe's violations, targets under a finger, a page wider than the screen."""
    page.wait_for_timeout(100)
    return axe_violations(page) + small_targets(page) + (["wider than the screen"] if too_wide(page) else [])


def too_wide(page) -> bool:
    # Against the layout viewport: on a phone (is_mobile) window.innerWidth grows to whatever overflows.
    return page.evaluate("document.scrollingElement.scrollWidth > document.documentElement.clientWidth + 1")


def tables(server):  # noqa: F811
    with open(GOLDEN_KINGDOMS) as handle:
        golden = json.load(handle)
    made = {}
    players = [{"name": name, "suits": suits} for name, suits in golden["players"].items()]
    _, made["kingdoms"] = request(server, "POST", "/api/tables", {"game": "kingdoms", "players": players})
    pin = {"X-Referee-Pin": made["kingdoms"]["pin"]}
    for c, card in enumerate(golden["board_face_up"][0][:4]):
        request(server, "POST", f"/api/tables/{made['kingdoms']['id']}/events", {"type": "place", "cell": [6, 6 + c], "card": card}, pin)
    _, made["dungeon"] = request(server, "POST", "/api/tables", {"game": "dungeon", "players": ["Ann", "Bob", "Cy"]})
    for event in ({"type": "choose_guild", "player": "Ann", "guild": "S"}, {"type": "choose_guild", "player": "Bob", "guild": "C"},
                  {"type": "choose_guild", "player": "Cy", "guild": "D"}, {"type": "reveal", "card": "9D"}):
        request(server, "POST", f"/api/tables/{made['dungeon']['id']}/events", event, {"X-Referee-Pin": made["dungeon"]["pin"]})
    _, made["chosen"] = request(server, "POST", "/api/tables", {"game": "chosen", "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}]})
    # a chosen in step 1 carrying a chip and a medicine card, so the rings show cards
    for event in ({"type": "chip", "onto": "Bo"}, {"type": "end_turn"}, {"type": "send", "card": "QD", "medicine": [], "discard": []},
                  {"type": "play", "chosen": 1, "card": "3H"}, {"type": "end_turn"}):
        status, body = request(server, "POST", f"/api/tables/{made['chosen']['id']}/events", event, {"X-Referee-Pin": made["chosen"]["pin"]})
        assert status in (200, 201), body
    return made


@pytest.mark.parametrize("width", [390, NARROW_PHONE_PX])
def test_every_page_passes_axe_has_finger_sized_targets_and_fits_the_phone(browser, server, width):  # noqa: F811
    made = tables(server)
    context = browser.new_context(**{**PHONE, "viewport": {"width": width, "height": 844}}, base_url=server)
    page = context.new_page()
    problems = {}

    def check(name):
        found = page_problems(page)
        if found:
            problems[name] = found

    page.goto("/")
    page.wait_for_selector("#player-rows .player-row")
    check("home")
    page.goto("/join?code=ZZZZZZ")
    check("join error")
    for game, table in made.items():
        page.goto(f"/t/{table['id']}")
        page.wait_for_selector("body[data-live='1']")
        check(f"{game} watcher")
        page.evaluate(f"localStorage.setItem('companion-pin:{table['id']}', '{table['pin']}')")
        page.reload()
        page.wait_for_selector("body[data-live='1']")
        check(f"{game} referee")
    page.click("#camera-open")
    check("camera dialog")
    page.click("#camera-close")
    page.click("#event-open")
    check("event dialog")
    page.click("#event-cancel")
    page.goto(f"/t/{made['kingdoms']['id']}")
    page.wait_for_selector("body[data-live='1']")
    page.locator(".kcell.empty").first.click()
    page.wait_for_selector("#picker-dialog[open]")
    check("card picker")
    page.goto(f"/decks/teach?table={made['kingdoms']['id']}")
    page.evaluate("document.getElementById('use-deck').hidden = false")   # what a saved deck shows
    check("teach your deck, from a table")
    assert problems == {}, json.dumps(problems, indent=1)
