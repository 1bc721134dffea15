"""Every screen in Simplified Chinese on a phone (390 × 844, and the narrowest, 320 wide): no English
left in what a player reads (card codes, file paths and proper names apart), nothing wider than the
screen, no text on other text, and axe-core clean with ``<html lang="zh-Hans">``. The same screens in
English must fit too (English lines are longer).

The screens: the start page for each game, a join error, each game's rules page and a table's, the
table page of each game in its phases (Kingdoms mid-round and between rounds; Guilds and Dungeon
choosing guilds, a treasure, a fight, a trap; The Chosen at the start, mid-way and at the vault), as the
watcher and as the referee, its dialogs (join code, PIN, card picker, event, the camera's question,
the camera view with a feed reading the Kingdoms demo, and without a feed), a refused placement's
message, and the teach-your-deck page before and after it read a photo of a deck.
"""
from __future__ import annotations

import json
import re

import pytest

from conftest import GOLDEN_KINGDOMS
from helpers.browser import PHONE
from helpers.screens import english_left, layout_problems, visible_text
from helpers.web import request, running_server
from test_accessibility import NARROW_PHONE_PX, axe_violations

pytestmark = pytest.mark.browser

# Proper names and codes a Chinese page shows as they are: the players' and decks' names the tables
# below were given, the name of the other language on the switch's hint, acronyms a Chinese reader
# reads as they are, and the name of the boxed game's designer.
PROPER_NAMES = {"English", "HTTPS", "PIN", "QR", "JSON", "CSV", "JPEG", "PNG", "Knizia"}
# Codes a referee types, which the Chinese text names beside the words that say what they mean: the rule
# options' values (in the options' JSON; snake_case names are allowed by the checker itself) and the
# event types a phase asks for (in the event dialog's JSON).
CODES = {"true", "false", "null", "none", "auto", "always", "never", "free", "strict", "kept", "discard", "exiled",
         "knizia", "poker", "wide", "tall", "either", "pile", "decks", "assign", "commit"}
PLAYERS = ["Ann", "Bo", "Cy"]


def submit(base, table, *events):
    for event in events:
        status, body = request(base, "POST", f"/api/tables/{table['id']}/events", event, {"X-Referee-Pin": table["pin"]})
        assert status in (200, 201), (event, body)


def kingdoms_from_the_golden_board(base, cards=None):
    with open(GOLDEN_KINGDOMS) as handle:
        golden = json.load(handle)
    _, table = request(base, "POST", "/api/tables", {"game": "kingdoms", "players": [
        {"name": name, "suits": suits} for name, suits in golden["players"].items()]})
    placed = [(r, c, card) for r, row in enumerate(golden["board_face_up"]) for c, card in enumerate(row)]
    for r, c, card in placed[:cards]:
        submit(base, table, {"type": "place", "cell": [r + 3, c + 3], "card": card})
    return table, list(golden["players"])


def dungeon(base, *events):
    _, table = request(base, "POST", "/api/tables", {"game": "dungeon", "players": PLAYERS})
    submit(base, table, *events)
    return table


GUILDS = ({"type": "choose_guild", "player": "Ann", "guild": "S"}, {"type": "choose_guild", "player": "Bo", "guild": "C"},
          {"type": "choose_guild", "player": "Cy", "guild": "D"})


def chosen(base, *events):
    _, table = request(base, "POST", "/api/tables", {"game": "chosen", "players": [{"name": n} for n in PLAYERS]})
    submit(base, table, *events)
    return table


def tables(base, app):
    """Each game in its phases, and the names they show."""
    names = set(PLAYERS)
    made = {}
    made["kingdoms mid-round"], golden_players = kingdoms_from_the_golden_board(base, 12)
    made["kingdoms between rounds"], _ = kingdoms_from_the_golden_board(base)
    names |= set(golden_players)
    made["dungeon choosing guilds"] = dungeon(base)
    made["dungeon treasure"] = dungeon(base, *GUILDS, {"type": "reveal", "card": "5H"})
    made["dungeon fight"] = dungeon(base, *GUILDS, {"type": "reveal", "card": "3S"}, {"type": "commit", "player": "Ann", "card": "5S"},
                                    {"type": "commit", "player": "Bo", "card": "2D"}, {"type": "commit", "player": "Cy", "card": "4C"},
                                    {"type": "reveal", "card": "9D"}, {"type": "reveal", "card": "2C"},
                                    {"type": "commit", "player": "Ann", "card": "JS"})
    made["dungeon trap"] = dungeon(base, *GUILDS, {"type": "reveal", "card": "SJ"})
    made["chosen start"] = chosen(base)
    made["chosen mid-way"] = chosen(base, {"type": "chip", "onto": "Bo"}, {"type": "end_turn"},
                                    {"type": "send", "card": "QD", "medicine": [], "discard": []},
                                    {"type": "play", "chosen": 1, "card": "3H"})
    made["chosen at the vault"] = chosen(base, {"type": "chip", "onto": "Bo"}, {"type": "end_turn"},
                                         {"type": "send", "card": "QD", "medicine": [], "discard": []},
                                         *[{"type": "end_turn"}] * 7)
    names |= {table["id"] for table in made.values()}
    return made, names


def ask_about_a_ring(app, table_id):
    """A camera question about a card at The Chosen's departure zone, as the tracker asks it."""
    from companion.messages import CardName, Message
    from companion.session.questions import Question

    book = app.extensions["camera"].book(app.extensions["registry"].get(table_id))
    book.add(Question(book.next_id(), Message("did %(code)s become %(code2)s? the camera is only %(confidence)s sure",
                                              code=CardName("QD"), code2=CardName("QH"), confidence="51%"),
                      "overlap", "departure", ["QD", "QH"], track=5))


def deck_photo(folder):
    """A photo of a whole deck face up (the drawn deck, dealt in rows), for the teach page to read."""
    import cv2

    from companion.vision.decks.profile import DECK_CODES
    from helpers.decks import spread

    image, _ = spread(list(DECK_CODES))
    path = folder / "deck.jpg"
    cv2.imwrite(str(path), image)
    return path


def watch_the_kingdoms_demo(app):
    """A Kingdoms table set up as the shipped demo recording's, with a camera feed that has read a third
    of it (the recording's own card list as the eyes) and asked one question, as the camera view and
    the question dialog show it. Returns the table as the API gives it (id and PIN), and its names."""
    from companion.messages import CardName, Message
    from companion.session.camera import CameraFeed
    from companion.session.questions import Question
    from companion.synthetic.recording import TruthDetector
    from companion.table.demos import demo_dir, demo_truth
    from companion.table.sources import open_source

    truth = demo_truth("kingdoms")
    table, pin = app.extensions["registry"].create("kingdoms", truth["setup"])
    hub = app.extensions["camera"]
    detector = TruthDetector.from_jsonl(demo_dir("kingdoms"))
    feed = CameraFeed(table, source=[], detector_loader=lambda: detector, questions=hub.book(table),
                      on_frame=lambda image: hub.publish(table.id, image),
                      description=Message("server camera %(source)s", source="demo/kingdoms"))
    feed.load_detector()
    frames = list(open_source(str(demo_dir("kingdoms"))))
    for timestamp, frame in frames[: len(frames) // 3]:
        feed.frames += 1
        feed.process(timestamp, frame)
    hub.feeds[table.id] = feed
    track = next(t for t in feed._pipeline.tracker.cards if t.zone)
    feed.book.add(Question(feed.book.next_id(), Message("is the card at this spot %(code)s? the camera is only %(confidence)s sure",
                                                        code=CardName(track.code), confidence="48%"),
                           "unsure", track.zone, [track.code], track.id, feed._pixel(track.position)))
    feed.tracks = feed._track_states()
    return {"id": table.id, "pin": pin}, {table.id, *(p["name"] for p in truth["setup"]["players"])}


def screens(page, made, photo):
    """Goes through every screen; yields each one's name once it shows."""
    page.goto("/")
    page.wait_for_selector("#player-rows .player-row")
    page.locator("details summary").click()
    for game in ("kingdoms", "dungeon", "chosen"):
        page.select_option("#game", game)
        page.wait_for_timeout(150)
        yield f"start page, {game}"
    page.goto("/join?code=ZZZZZZ")
    yield "join error"
    for game in ("kingdoms", "dungeon", "chosen"):
        page.goto(f"/rules/{game}")
        yield f"rules, {game}"
    page.goto(f"/t/{made['dungeon fight']['id']}/rules")
    yield "a table's rules"
    for name, table in made.items():
        page.goto(f"/t/{table['id']}")
        page.wait_for_selector("body[data-live='1']")
        yield f"{name}, watcher"
        if name == "kingdoms, the demo's camera":
            page.click("#show-join")
            page.wait_for_selector("#join-dialog[open]")
            yield "join dialog"
            page.keyboard.press("Escape")
            page.click("#referee-toggle")
            page.wait_for_selector("#pin-dialog[open]")
            yield "PIN dialog"
            page.click("#pin-cancel")
        page.evaluate(f"localStorage.setItem('companion-pin:{table['id']}', '{table['pin']}')")
        page.reload()
        page.wait_for_selector("body[data-live='1']")
        yield f"{name}, referee"
        if name == "kingdoms mid-round":
            page.locator(".kcell.empty").first.click()
            page.wait_for_selector("#picker-dialog[open]")
            page.locator("#picker button.pick[data-card='6C']").click()   # ♣6 is no Kingdoms card: refused
            page.wait_for_selector("#message.error:not([hidden])")
            yield "a refused placement"
        if name == "dungeon choosing guilds":
            page.click("#camera-open")
            page.wait_for_selector("#camera-dialog[open]")
            yield "camera dialog, no camera yet"
            page.click("#camera-phone")   # this browser has no camera: the page says why, in words
            page.locator("#camera-status", has_text=re.compile("[:：]")).wait_for()   # (CSP: no wait_for_function)
            yield "this phone's camera, refused"
            page.click("#camera-close")
        if name == "chosen at the vault":
            page.locator(".ring.departure .ask-badge").click()
            page.wait_for_selector("#question-dialog[open]")
            yield "the camera's question about a ring"
            page.click("#question-cancel")
        if name == "kingdoms, the demo's camera":
            page.locator(".kcell.empty:not(.asked)").first.click()
            page.wait_for_selector("#picker-dialog[open]")
            yield "card picker"
            page.click("#picker-cancel")
            page.locator(".kcell.asked").first.click()
            page.wait_for_selector("#question-dialog[open]")
            yield "the camera's question"
            page.click("#question-cancel")
            page.click("#camera-open")
            page.wait_for_selector("#camera-stage:not([hidden]) .cam-label")
            yield "camera view"
            page.click("#camera-close")
            page.click("#event-open")
            page.wait_for_selector("#event-dialog[open]")
            yield "event dialog"
            page.click("#event-cancel")
    page.goto("/decks/teach")
    yield "teach your deck"
    page.fill("#deck-name", "home")
    page.check("#kind-deck")           # a photo of the whole deck (one photo per card is the default)
    page.set_input_files("#deck-photos", str(photo))
    with page.expect_response(lambda r: r.url.endswith("/read"), timeout=180_000):
        page.click("#read-button")
    page.wait_for_selector("#teach-photos img")
    yield "teach your deck, its photo read"
    page.goto(f"/decks/teach?table={made['chosen start']['id']}")
    page.evaluate("document.getElementById('use-deck').hidden = false")   # what a saved deck shows
    yield "teach your deck, from a table"


def phone(browser, base, width, language):
    context = browser.new_context(**{**PHONE, "viewport": {"width": width, "height": 844}}, base_url=base,
                                  locale=language, extra_http_headers={"Accept-Language": language})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("chinese"), SSE_MAX_SECONDS=60.0) as (base, app):
        made, names = tables(base, app)
        made["kingdoms, the demo's camera"], demo_names = watch_the_kingdoms_demo(app)
        names |= demo_names | {"home"}   # the deck's name, as typed on the teach page
        ask_about_a_ring(app, made["chosen at the vault"]["id"])
        yield base, made, names, deck_photo(tmp_path_factory.mktemp("photo"))


@pytest.mark.parametrize("width", [390, NARROW_PHONE_PX])
def test_every_screen_in_chinese_has_no_english_fits_and_passes_axe(browser, served, width):
    base, made, names, photo = served
    page, errors = phone(browser, base, width, "zh-CN")
    problems = {}
    shown = []
    for name in screens(page, made, photo):
        page.wait_for_timeout(150)
        assert page.evaluate("document.documentElement.lang") == "zh-Hans", name
        found = [f"English: {text!r}" for text in english_left(visible_text(page), PROPER_NAMES | CODES | names)]
        found += layout_problems(page) + axe_violations(page)
        if found:
            problems[name] = found
        shown.append(name)
    assert len(shown) == 41, shown
    assert problems == {}, json.dumps(problems, indent=1, ensure_ascii=False)
    assert errors == []


@pytest.mark.parametrize("width", [390, NARROW_PHONE_PX])
def test_every_screen_in_english_fits(browser, served, width):
    base, made, _names, photo = served
    page, errors = phone(browser, base, width, "en-GB")
    problems = {}
    for name in screens(page, made, photo):
        page.wait_for_timeout(150)
        assert page.evaluate("document.documentElement.lang") == "en", name
        found = layout_problems(page)
        if found:
            problems[name] = found
    assert problems == {}, json.dumps(problems, indent=1)
    assert errors == []


def test_the_checker_finds_english_and_overlap(browser, served):
    """The checks above can fail: an English sentence on a Chinese page is found (a card code, a path
    and an allowed name are not), and so are text on text and a page wider than the screen."""
    base, _made, names, _photo = served
    page, _ = phone(browser, base, NARROW_PHONE_PX, "zh-CN")
    page.goto("/")
    page.evaluate("""() => {
        const p = document.createElement('p'); p.textContent = '轮到 Ann：10H 在 demo/kingdoms'; document.querySelector('main').prepend(p);
        const q = document.createElement('p'); q.textContent = 'Your turn'; document.querySelector('main').prepend(q); }""")
    assert english_left(visible_text(page), PROPER_NAMES | names) == ["Your turn"]
    assert layout_problems(page) == []
    page.evaluate("""() => {
        const a = document.createElement('p'); a.textContent = '甲乙丙'; a.style.cssText = 'position:absolute;top:300px;left:10px';
        const b = a.cloneNode(true); b.textContent = '丁戊己'; document.body.append(a, b);
        const w = document.createElement('p'); w.textContent = '很长'; w.style.cssText = 'width:600px';
        document.querySelector('main').append(w); }""")
    problems = layout_problems(page)
    assert "overlapping text: '甲乙丙' and '丁戊己'" in problems, problems
    assert any("wide on a 320 px screen" in p for p in problems), problems
