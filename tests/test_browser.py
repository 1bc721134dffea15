"""Two phones in headless Chromium: the referee changes the table by tapping, the other sees it live.

Drives Debian's Chromium through Playwright (never ``playwright install``). Screenshots of the screens
are written to ``$COMPANION_SCREENSHOTS`` when that is set (for looking at them, not for asserting).
"""
from __future__ import annotations

import os
import pathlib
import re

import pytest

from helpers.browser import PHONE
from helpers.web import request, running_server
from conftest import GOLDEN_KINGDOMS

pytestmark = pytest.mark.browser


def shoot(page, name):
    folder = os.environ.get("COMPANION_SCREENSHOTS")
    if folder:
        pathlib.Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(pathlib.Path(folder) / f"{name}.png"), full_page=True)


def phone(browser, base):
    context = browser.new_context(**PHONE, base_url=base)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def pick(page, card):
    page.locator(f"#picker button.pick[data-card='{card}']").click()


def test_create_a_kingdoms_table_from_the_start_page_and_keep_it_by_tapping(browser, server):
    referee, referee_errors = phone(browser, server)
    referee.goto("/")
    referee.select_option("#game", "kingdoms")
    referee.locator(".player-row .pname").nth(0).fill("Ann")
    referee.locator(".player-row .pname").nth(1).fill("Bo")
    shoot(referee, "01-start")
    referee.click("#create")
    referee.wait_for_url("**/t/*")
    table_id = referee.url.rsplit("/", 1)[1]
    assert referee.locator("#message").inner_text().startswith("Your referee PIN is")
    referee.wait_for_selector("body[data-live='1']")
    assert referee.locator("#referee-bar").is_visible()

    # A second phone joins by the code and watches, read-only.
    watcher, watcher_errors = phone(browser, server)
    watcher.goto("/")
    watcher.fill("#join-code", table_id.lower())
    watcher.click("form.join button")
    watcher.wait_for_url(f"**/t/{table_id}")
    watcher.wait_for_selector("body[data-live='1']")
    assert not watcher.locator("#referee-bar").is_visible()

    # The referee taps cells and picks cards; the watcher sees each one arrive.
    for cell, card in (("6,6", "10H"), ("6,7", "5D"), ("6,8", "KS"), ("7,7", "9S")):
        referee.locator(f".kcell[data-cell='{cell}']").click()
        pick(referee, card)
        watcher.wait_for_selector(f".kcell[data-cell='{cell}'] .pc[data-card='{card}']", timeout=15000)
    # The dragon (9S) turned the 5D above it face down (in its column); the castle scores shown come from the engine.
    watcher.wait_for_selector(".kcell[data-cell='6,7'] .pc[data-card='BACK']")
    watcher.locator(".kcell[data-cell='6,6']").click()
    detail = watcher.locator("section.detail").inner_text()
    assert "Ann" in detail and "rank 1" in detail
    shoot(watcher, "02-kingdoms-watcher")

    # Correct a card (the referee's word wins), then undo and redo it.
    referee.locator(".kcell[data-cell='6,8']").click()
    referee.get_by_role("button", name="Correct card").click()
    pick(referee, "QS")
    watcher.wait_for_selector(".kcell[data-cell='6,8'] .pc[data-card='QS']")
    referee.click("#undo")
    watcher.wait_for_selector(".kcell[data-cell='6,8'] .pc[data-card='KS']")
    referee.click("#redo")
    watcher.wait_for_selector(".kcell[data-cell='6,8'] .pc[data-card='QS']")
    # An illegal placement is refused with the engine's reason and nothing changes.
    referee.locator(".kcell[data-cell='7,6']").click()
    pick(referee, "6C")
    referee.wait_for_selector("#message.error")
    assert "6" in referee.locator("#message").inner_text()
    assert watcher.locator(".kcell[data-cell='7,6'] .pc").count() == 0
    shoot(referee, "03-kingdoms-referee")

    # The watcher cannot change anything: the API refuses without the PIN.
    status, _ = request(server, "POST", f"/api/tables/{table_id}/events", {"type": "place", "cell": [7, 6], "card": "2H"})
    assert status == 403
    assert referee_errors == [] and watcher_errors == []


def test_a_phone_that_lost_its_connection_catches_up(browser, server):
    _, table = request(server, "POST", "/api/tables", {"game": "kingdoms", "players": [
        {"name": "Ann", "suits": ["H", "D"], "colour": "#dc2626"}, {"name": "Bo", "suits": ["S", "C"], "colour": "#1f2937"}]})
    watcher, errors = phone(browser, server)
    watcher.goto(f"/t/{table['id']}")
    watcher.wait_for_selector("body[data-live='1']")
    watcher.context.set_offline(True)
    pin = {"X-Referee-Pin": table["pin"]}
    for cell, card in (([6, 6], "JH"), ([6, 7], "3H"), ([5, 6], "4D")):
        assert request(server, "POST", f"/api/tables/{table['id']}/events", {"type": "place", "cell": cell, "card": card}, pin)[0] == 200
    watcher.context.set_offline(False)
    watcher.wait_for_selector(".kcell[data-cell='5,6'] .pc[data-card='4D']", timeout=15000)
    assert watcher.locator("body").get_attribute("data-seq") == "3"
    # Each change appears once in the log.
    assert sorted(int(v) for v in watcher.locator("#log li").evaluate_all("items => items.map(i => i.dataset.seq)")) == [1, 2, 3]
    assert errors == []


def test_the_chosen_start_page_takes_teams(browser, server):
    page, errors = phone(browser, server)
    page.goto("/")
    page.select_option("#game", "chosen")
    names, teams = page.locator(".player-row .pname"), page.locator(".player-row .pteam")
    page.click("#add-player")
    for n, (name, team) in enumerate([("Ann", "North"), ("Bo", "South"), ("Cy", "North"), ("Di", "South")]):
        names.nth(n).fill(name)
        teams.nth(n).fill(team)
    page.click("#create")
    page.wait_for_url("**/t/*")
    page.wait_for_selector("body[data-live='1']")
    assert "North (Ann, Cy)" in page.locator("#board").inner_text()
    assert errors == []


def test_the_chosen_screen(browser, server):
    _, table = request(server, "POST", "/api/tables", {"game": "chosen", "players": [{"name": "Ann"}, {"name": "Bo"}, {"name": "Cy"}]})
    page, errors = phone(browser, server)
    page.goto(f"/t/{table['id']}")
    page.evaluate(f"localStorage.setItem('companion-pin:{table['id']}', '{table['pin']}')")
    page.reload()
    page.wait_for_selector("body[data-live='1']")
    assert "Ann's turn" in page.locator("#board").inner_text()
    page.locator(".player[data-player='Bo'] button", has_text="chip here").click()
    page.wait_for_selector("body[data-seq='1']")
    page.get_by_role("button", name="end turn").click()
    page.wait_for_selector("body[data-seq='2']")
    assert "Bo's turn" in page.locator("#board").inner_text()
    # Bo sends a chosen carrying the chip: it appears at departure, on the mat and in the list.
    page.get_by_role("button", name="send a chosen", exact=True).click()
    pick(page, "QD")
    page.wait_for_selector("body[data-seq='3']")
    assert page.locator(".mat circle[data-chosen='1']").count() == 1
    # The ring shows what lies there: the chosen's own card and its chip face down.
    departure = page.locator(".ring.departure [data-chosen='1']")
    assert departure.locator(".pc[data-card='QD']").count() == 1 and departure.locator(".pc.back").count() == 1
    assert "1 chip" in departure.inner_text() and "Bo" in departure.inner_text()
    departure.get_by_role("button", name="play a card on it").click()
    pick(page, "3H")
    page.wait_for_selector("body[data-seq='4']")
    assert page.locator(".ring.departure [data-chosen='1'] .pile .pc[data-card='3H']").count() == 1
    shoot(page, "04-chosen")
    # Seven ends of turn later Bo's chosen has stepped in three times: it waits at the vault, chip face down.
    for seq in range(5, 12):
        page.get_by_role("button", name="end turn").click()
        page.wait_for_selector(f"body[data-seq='{seq}']")
    assert page.locator(".ring[data-zone='step 2'] [data-chosen]").count() == 0
    vault = page.locator(".ring.vault [data-chosen='1']")
    assert vault.locator(".pc[data-card='QD']").count() == 1 and vault.locator(".pc.back").count() == 1
    assert vault.locator(".pc[data-card='3H']").count() == 1
    assert "1 chip the companion has not seen face up" in page.locator(".ring.vault").inner_text()
    assert "empty" in page.locator(".ring[data-zone='step 2'] h3").inner_text()
    assert errors == []


def test_the_dungeon_screen_shows_the_doubling_and_the_fight(browser, server):
    _, table = request(server, "POST", "/api/tables", {"game": "dungeon", "players": ["Ann", "Bob", "Cy"]})
    pin = {"X-Referee-Pin": table["pin"]}
    for event in ({"type": "choose_guild", "player": "Ann", "guild": "S"}, {"type": "choose_guild", "player": "Bob", "guild": "C"},
                  {"type": "choose_guild", "player": "Cy", "guild": "D"}, {"type": "reveal", "card": "3S"},
                  {"type": "commit", "player": "Ann", "card": "5S"}, {"type": "commit", "player": "Bob", "card": "2D"},
                  {"type": "commit", "player": "Cy", "card": "4C"}):   # the engine resolves the fight itself (auto_resolve)
        assert request(server, "POST", f"/api/tables/{table['id']}/events", event, pin)[0] == 200
    page, errors = phone(browser, server)
    page.goto(f"/t/{table['id']}")
    page.wait_for_selector("body[data-live='1']")
    assert page.locator(".doubling").get_attribute("data-multiplier") == "3"  # the 3♠ waits as the marker
    for event in ({"type": "reveal", "card": "9D"}, {"type": "reveal", "card": "2C"}, {"type": "commit", "player": "Ann", "card": "JS"}):
        request(server, "POST", f"/api/tables/{table['id']}/events", event, pin)
    page.wait_for_selector("body[data-seq='11']")
    text = page.locator(".battlefield").inner_text()
    assert "29" in text and "11" in text  # 9♦ × 3 + the friend 2♣ against Ann's J♠
    assert page.locator(".doubling").get_attribute("data-multiplier") == "3"
    board = page.locator("#board").inner_text()
    assert "Swordsmen" in board and "27" in board
    assert "An enemy: players commit mercenaries to fight it" in board  # the phase in words
    log = page.locator("#log").inner_text()
    assert "Ann joins the Swordsmen" in log and "Ann commits J♠" in log and "player=" not in log
    assert page.locator("section.card-panel ul.story").count() == 1  # "What happened" carries no second numbering
    shoot(page, "05-dungeon")
    assert errors == []


def test_kingdoms_between_rounds_shows_the_scored_grid_and_the_chart(browser, server):
    import json

    with open(GOLDEN_KINGDOMS) as handle:
        golden = json.load(handle)
    players = [{"name": name, "suits": suits} for name, suits in golden["players"].items()]
    _, table = request(server, "POST", "/api/tables", {"game": "kingdoms", "players": players})
    pin = {"X-Referee-Pin": table["pin"]}
    for r, row in enumerate(golden["board_face_up"]):
        for c, card in enumerate(row):
            placed = request(server, "POST", f"/api/tables/{table['id']}/events", {"type": "place", "cell": [r + 3, c + 3], "card": card}, pin)
            assert placed[0] == 200
    page, errors = phone(browser, server)
    page.goto(f"/t/{table['id']}")
    page.wait_for_selector("body[data-live='1']")
    assert page.locator(".kgrid.final .kcell[data-cell='2,4'] .score").inner_text() == "28"
    page.locator(".kgrid.final .kcell[data-cell='2,4']").click()
    assert "× 4 = 28" in page.locator("ul.explain").inner_text()
    assert page.locator("table.scores tr[data-player='red'] td").nth(1).inner_text() == "53"
    # the chart is the server's (the result page's own), shown as an image: start and round 1 for each player
    page.wait_for_function("(() => { const i = document.querySelector('.table-chart img'); return i && i.complete && i.naturalWidth > 0; })()")
    svg = page.request.get(page.locator(".table-chart img").get_attribute("src")).text()
    assert re.search(r'data-player="black"><polyline points="([^"]*)"', svg).group(1).count(",") == 2
    shoot(page, "06-kingdoms-scored")
    assert errors == []


def test_a_camera_question_is_marked_on_the_board_and_answered_with_one_tap(browser, tmp_path):
    """The camera settles a joker at a cell, then reads the same spot as 3♠ too and asks; the referee's
    phone shows the question on that cell, one tap answers it, and Undo takes the answer back."""
    from helpers.camera import KINGDOMS_SETUP, overlapping_detector
    from companion.session.camera import CameraFeed
    import numpy as np

    with running_server(tmp_path, SSE_MAX_SECONDS=60.0) as (base, app):
        _, created = request(base, "POST", "/api/tables", {"game": "kingdoms", **KINGDOMS_SETUP})
        table = app.extensions["registry"].get(created["id"])
        hub = app.extensions["camera"]
        overlapping_detector.calls = 0
        feed = CameraFeed(table, source=[], detector_loader=lambda: overlapping_detector, questions=hub.book(table))
        feed.load_detector()
        for index in range(30):
            feed.process(index * 0.2, np.zeros((480, 640, 3), np.uint8))
        hub.feeds[table.id] = feed
        cell = ",".join(map(str, table.journal[0].event["cell"]))

        page, errors = phone(browser, base)
        page.goto(f"/t/{table.id}")
        page.evaluate(f"localStorage.setItem('companion-pin:{table.id}', '{created['pin']}')")
        page.reload()
        page.wait_for_selector(f".kcell.asked[data-cell='{cell}'] .pc[data-card='SJ']")
        assert "The camera asks (1)" in page.locator("section.questions").inner_text()
        shoot(page, "07-kingdoms-question")
        page.locator(f".kcell[data-cell='{cell}']").click()
        page.wait_for_selector("#question-dialog[open]")
        assert page.locator("#question-choices button").evaluate_all("bs => bs.map(b => b.dataset.card)") == ["3S", "SJ"]
        page.locator("#question-choices button[data-card='3S']").click()
        page.wait_for_selector(f".kcell[data-cell='{cell}'] .pc[data-card='3S']")
        assert page.locator("section.questions").count() == 0 and page.locator(".kcell.asked").count() == 0
        assert table.journal[-1].source == "referee" and table.journal[-1].event["type"] == "replace"
        page.click("#undo")
        page.wait_for_selector(f".kcell[data-cell='{cell}'] .pc[data-card='SJ']")
        # The camera view: one label per followed card, coloured by its state, with the legend.
        page.click("#camera-open")
        page.wait_for_selector("#camera-dialog[open]")
        assert "settled" in page.locator(".camera-legend").inner_text()
        assert errors == []


def test_a_camera_question_in_a_chosen_ring_is_answered_with_one_tap(browser, tmp_path):
    """A question about a chosen at departure is marked on that ring; one tap on the card the camera
    considered sends the chosen (the referee's event), and the ring then shows it."""
    from companion.session.questions import Question

    with running_server(tmp_path, SSE_MAX_SECONDS=60.0) as (base, app):
        _, created = request(base, "POST", "/api/tables", {"game": "chosen", "players": [{"name": "Ann"}, {"name": "Bo"}]})
        table = app.extensions["registry"].get(created["id"])
        for event in ({"type": "chip", "onto": "Ann"}, {"type": "end_turn"}, {"type": "end_turn"}):
            table.submit(event, source="referee")
        book = app.extensions["camera"].book(table)
        book.add(Question(book.next_id(), "reads as QD and as QH: which is it?", "overlap", "departure", ["QD", "QH"], track=5))

        page, errors = phone(browser, base)
        page.goto(f"/t/{table.id}")
        page.evaluate(f"localStorage.setItem('companion-pin:{table.id}', '{created['pin']}')")
        page.reload()
        page.wait_for_selector(".ring.departure.asked .ask-badge")
        page.locator(".ring.departure .ask-badge").click()
        page.wait_for_selector("#question-dialog[open]")
        page.locator("#question-choices button[data-card='QD']").click()
        page.wait_for_selector(".ring.departure [data-chosen='1'] .pc[data-card='QD']")
        assert page.locator(".ring.asked").count() == 0
        assert table.journal[-1].source == "referee" and table.journal[-1].event["type"] == "send"
        assert errors == []


def test_the_camera_view_labels_each_card_by_state_without_overlap(browser, tmp_path):
    """The Kingdoms demo recording read part-way (its own card list as the eyes): in the Camera dialog
    every followed card has one label, code and state only, coloured by state, none overlapping, all
    inside the picture, with the legend."""
    from companion.session.camera import CameraFeed
    from companion.synthetic.recording import TruthDetector
    from companion.table.demos import demo_dir, demo_truth
    from companion.table.sources import open_source

    with running_server(tmp_path, SSE_MAX_SECONDS=60.0) as (base, app):
        truth = demo_truth("kingdoms")
        table, pin = app.extensions["registry"].create("kingdoms", truth["setup"])
        hub = app.extensions["camera"]
        detector = TruthDetector.from_jsonl(demo_dir("kingdoms"))
        feed = CameraFeed(table, source=[], detector_loader=lambda: detector, questions=hub.book(table),
                          on_frame=lambda image: hub.publish(table.id, image))
        feed.load_detector()
        frames = list(open_source(str(demo_dir("kingdoms"))))
        for timestamp, frame in frames[: len(frames) // 2]:
            feed.process(timestamp, frame)
        hub.feeds[table.id] = feed
        settled = sum(1 for t in feed.tracks if t["state"] == "settled")
        assert settled >= 10

        page, errors = phone(browser, base)
        page.goto(f"/t/{table.id}")
        page.wait_for_selector("body[data-live='1']")
        page.click("#camera-open")
        page.wait_for_selector("#camera-stage:not([hidden]) .cam-label")
        labels = page.locator(".cam-label")
        assert labels.count() == len([t for t in feed.tracks if t["pixel"]])
        assert page.locator(".cam-label.settled").count() == settled
        boxes = labels.evaluate_all("ls => ls.map(l => { const r = l.getBoundingClientRect(); "
                                    "return [r.left, r.top, r.right, r.bottom, l.textContent]; })")
        stage = page.locator("#camera-labels").evaluate("n => { const r = n.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }")
        for i, a in enumerate(boxes):
            assert stage[0] - 0.5 <= a[0] and a[2] <= stage[2] + 0.5 and stage[1] - 0.5 <= a[1] and a[3] <= stage[3] + 0.5, a
            assert a[4] and " " not in a[4]  # the code only: no zone, no confidence
            for b in boxes[i + 1:]:
                assert a[2] <= b[0] + 0.5 or b[2] <= a[0] + 0.5 or a[3] <= b[1] + 0.5 or b[3] <= a[1] + 0.5, (a, b)
        legend = page.locator(".camera-legend").inner_text()
        assert "settled" in legend and "settling" in legend and "question" in legend
        shoot(page, "08-camera-view")
        assert errors == []
