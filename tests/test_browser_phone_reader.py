"""The phone reads its own cards, in a real browser (issue 23): when the phone cannot read (the runtime
not installed), the page says why and sends frames; with a table's learned deck it reads with the deck.
The end-to-end reading of the demo recordings: tests/test_browser_phone_reads.py."""
from __future__ import annotations


import pytest

from helpers.browser import phone_camera
from helpers.pacing import write_y4m
from helpers.web import running_server
from test_browser_camera import Y4M_FPS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

def recording_frames(game: str) -> list:
    from companion.table.demos import demo_dir

    from helpers.video import video_frames

    return video_frames(demo_dir(game) / "recording.mp4")


def test_without_the_runtime_the_phone_says_why_and_sends_frames(tmp_path, monkeypatch):
    from web_ui import models as served

    monkeypatch.setattr(served, "VENDOR", tmp_path / "no-vendor")   # as a server installed without npm
    frames = recording_frames("chosen")[:1]
    video = tmp_path / "camera.y4m"
    write_y4m(frames, video, [4], Y4M_FPS)
    with running_server(tmp_path / "data", CAMERA_DETECTION=False) as (base, app):
        table, pin = app.extensions["registry"].create("chosen", {"players": ["Ann", "Bo"], "seed": 5})
        with phone_camera(base, table.id, pin, video, locale="zh-CN") as (page, _errors):
            page.wait_for_selector("body[data-frames-sent]", timeout=60000)
            reason = page.evaluate("document.body.dataset.readerFallback")
            said = page.inner_text("#camera-status")
    assert page is not None and reason and reason in said
    assert "scripts/setup.sh" in reason and "服务器" in reason, reason   # the page's language: Chinese


def test_the_phone_reads_with_the_tables_learned_deck_and_says_its_backend(tmp_path):
    """A table reading with a learned deck (taught from a real deck's card photos): the phone reads with that
    deck itself (no fallback), names it in its posts (the server takes them: reader.deck is the table's), and
    the page says the backend it got (headless Chromium has no WebGPU adapter here: WebAssembly). The deck
    turned off meanwhile, the phone reads on with the general models."""
    from companion.vision import Detector
    from companion.vision.decks.store import DeckStore
    from companion.vision.decks.teaching import teach
    from helpers.web import request
    from test_browser_reader_deck import KENTDOAN, play_frames

    result = teach(Detector.load(tile="auto"), [str(KENTDOAN / "cards")], "kentdoan")
    DeckStore(tmp_path / "data").save(result.profile)
    frame = play_frames()[0][1]
    frame = frame[: frame.shape[0] // 2 * 2, : frame.shape[1] // 2 * 2]
    video = tmp_path / "camera.y4m"
    write_y4m([frame], video, [4], Y4M_FPS)
    with running_server(tmp_path / "data", CAMERA_DETECTION=False) as (base, app):
        table, pin = app.extensions["registry"].create("chosen", {"players": ["Ann", "Bo"], "seed": 5})
        status, _ = request(base, "POST", f"/api/tables/{table.id}/deck", {"deck": "kentdoan"}, {"X-Referee-Pin": pin})
        assert status == 200
        with phone_camera(base, table.id, pin, video) as (page, _errors):
            page.wait_for_selector("body[data-detections-sent], body[data-reader-fallback]", timeout=240000)
            seen = page.evaluate("({...document.body.dataset})")
            said = page.inner_text("#camera-status")
            # the referee turns the deck off meanwhile: the server refuses the next post (409), the page
            # fetches the table's deck again and reads on with the general models
            status, _ = request(base, "POST", f"/api/tables/{table.id}/deck", {"deck": None}, {"X-Referee-Pin": pin})
            assert status == 200
            sent = int(seen.get("detectionsSent", 0))
            page.wait_for_function("(sent) => document.body.dataset.readerFallback || (document.body.dataset.readerDeck === '' "
                                   "&& Number(document.body.dataset.detectionsSent) > sent)", arg=sent, timeout=240000)
            after = page.evaluate("({...document.body.dataset})")
        status, camera = request(base, "GET", f"/api/tables/{table.id}/camera")
    assert "readerFallback" not in seen, seen.get("readerFallback")
    assert seen["reader"] == "browser" and seen["readerDeck"] == "kentdoan" and seen["readerBackend"] == "wasm"
    assert seen["readerWebgpu"] == "no WebGPU adapter" and seen["readerPrecision"] == "int8"
    assert "kentdoan" in said and "WebAssembly" in said, said
    assert camera["feed"]["reader"]["backend"] == "wasm" and camera["deck"]["reading_with"] is None, camera
    assert "readerFallback" not in after and after["readerDeck"] == "", after.get("readerFallback")


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_the_camera_page_says_where_the_phone_reads_and_why(tmp_path, locale):
    """The camera dialog says which backend reads and why, in the page's language: headless Chromium here
    gives no WebGPU device (the suite's --disable-gpu), so WebAssembly with SIMD and the worker's threads
    (the page is cross-origin isolated), and that WebGPU is missing."""
    frames = recording_frames("dungeon")[:1]
    video = tmp_path / "camera.y4m"
    write_y4m(frames, video, [4], Y4M_FPS)
    with running_server(tmp_path / "data", CAMERA_DETECTION=False) as (base, app):
        table, pin = app.extensions["registry"].create("chosen", {"players": ["Ann", "Bo"], "seed": 5})
        with phone_camera(base, table.id, pin, video, locale=locale) as (page, errors):
            page.wait_for_selector("#camera-reader:not([hidden])", timeout=240000)
            said = page.inner_text("#camera-reader")
            seen = page.evaluate("({...document.body.dataset})")
            assert errors == []
    assert seen["readerBackend"] == "wasm" and seen["readerWebgpu"] == "no WebGPU adapter", seen
    threads = int(seen["readerThreads"])
    if locale == "zh-CN":
        assert said == f"用 WebAssembly（SIMD，{threads} 个线程）识牌：浏览器在这部手机上没有提供 WebGPU 设备。", said
    else:
        plural = "thread" if threads == 1 else "threads"
        assert said == f"Reading on WebAssembly with SIMD and {threads} {plural}: the browser offers no WebGPU device on this phone.", said
