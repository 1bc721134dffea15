"""The phone's own reader (web_ui/static/reader_worker.js) driven in headless Chromium, for the parity test
and the benchmark: the page's worker reads frames handed to it as raw pixels, so both readers see the
same pixels (no JPEG decoder of the browser's own in between)."""
from __future__ import annotations

import contextlib
import hashlib
import itertools

import numpy as np

from helpers.browser import ARGS, CHROMIUM, require_chromium

FRAME_PATH = "/__test-frame/"
# Loading the two networks into WebAssembly takes a few seconds on 2 loaded cores; a frame of a whole
# table (the closer look's windows) up to a few more.
INIT_TIMEOUT_MS = 120_000
READ_TIMEOUT_MS = 120_000

START = """async ({worker, models, precision, deck, backends, threads}) => {
  const answer = await (await fetch(models)).json();
  if (precision) answer.precision = precision;
  const profile = deck ? await (await fetch(deck)).json() : null;
  const reader = new Worker(worker);
  const waiting = new Map();
  reader.onmessage = (event) => {
    const message = event.data, key = message.type === "ready" || message.stage === "init" ? "init" : message.id;
    const [resolve, reject] = waiting.get(key); waiting.delete(key);
    if (message.type === "error") reject(new Error(message.message)); else resolve(message);
  };
  const ask = (key, message) => new Promise((resolve, reject) => { waiting.set(key, [resolve, reject]); reader.postMessage(message); });
  let next = 0;
  window.__readFrame = async (url, width, height, indexPx, whole) => {
    const rgb = await (await fetch(url)).arrayBuffer();
    const id = ++next;
    return ask(id, {type: "read", id, width, height, rgb, indexPx, whole}, [rgb]);
  };
  window.__resetReader = async () => { const id = ++next; return ask(id, {type: "reset", id}); };
  const ready = await ask("init", {type: "init", models: answer, deck: profile && profile.deck ? profile : null, backends, threads});
  return {...ready, isolated: self.crossOriginIsolated, precision: answer.precision, models: answer.models};
}"""


class BrowserReader:
    """One page of the server with the reader's worker started in it."""

    def __init__(self, page, base: str, precision: str | None = None, deck: str | None = None,
                 backends: list[str] | None = None, threads: int | None = None):
        self.page, self.base = page, base
        self._frames: dict[str, bytes] = {}
        self._count = itertools.count()
        page.route(f"{base}{FRAME_PATH}**", self._serve)
        page.goto(f"{base}/")
        self.ready = page.evaluate(START, {"worker": f"{base}/static/reader_worker.js", "models": f"{base}/api/models",
                                                 "precision": precision, "deck": deck and f"{base}{deck}", "backends": backends,
                                                 "threads": threads})

    def _serve(self, route) -> None:
        body = self._frames.pop(route.request.url.rsplit("/", 1)[1])
        route.fulfill(status=200, body=body, headers={"Content-Type": "application/octet-stream"})

    def read(self, frame_bgr: np.ndarray, index_px: float | None = None, whole: bool = True) -> dict:
        """{indices: [{box, score, code, code_score, turn}], backs: [{box, score}], ms, work, detect_ms,
        classify_ms} of one BGR frame: read in full (``whole``, as ``Detector.read``), or as the next frame
        of a camera, re-reading what changed since the frame read before (as ``IncrementalReader``)."""
        name = str(next(self._count))
        self._frames[name] = np.ascontiguousarray(frame_bgr[:, :, ::-1]).tobytes()
        height, width = frame_bgr.shape[:2]
        return self.page.evaluate("([url, w, h, px, whole]) => window.__readFrame(url, w, h, px, whole)",
                                  [f"{self.base}{FRAME_PATH}{name}", width, height, index_px, whole])

    def reset(self) -> None:
        """The next frame read incrementally is a camera's first (a fresh IncrementalReader)."""
        self.page.evaluate("() => window.__resetReader()")


@contextlib.contextmanager
def browser_reader(base: str, precision: str | None = None, deck: str | None = None, backends: list[str] | None = None,
                   args: list[str] | None = None, timeout_ms: int = READ_TIMEOUT_MS, threads: int | None = None):
    """Headless Chromium (Debian's) with one page of the server at ``base`` and its reader started
    (``precision``: "int8" or "f32" instead of what the server's reader loads; ``deck``: the path of a
    table's deck profile to read with, GET /api/tables/<id>/deck/profile; ``backends``: the worker's
    choice, default WebGPU where there is an adapter, else WebAssembly; ``args``: Chromium's, instead of ARGS;
    ``timeout_ms``: for the start and each frame; ``threads``: WebAssembly's, instead of the worker's choice)."""
    from playwright import sync_api

    require_chromium()
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS if args is None else args)
        try:
            page = browser.new_page()
            page.set_default_timeout(timeout_ms)
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            reader = BrowserReader(page, base, precision, deck, backends, threads)
            reader.errors = errors
            yield reader
        finally:
            browser.close()


def python_reading(detector, frame: np.ndarray, index_px: float | None = None) -> dict:
    """companion.vision's reading of the same frame, in the browser reader's shape (``detector``: a
    ``Detector``, read in full, or an ``IncrementalReader``, told ``index_px`` already, the frame its next)."""
    from companion.vision.incremental import IncrementalReader

    if isinstance(detector, IncrementalReader):
        detector.read(frame)
        reading = detector.last_reading
    else:
        told = detector.expecting_index_px(index_px) if index_px else detector
        reading = told.read(frame)
    return {"indices": [{"box": list(r.box), "score": r.detection_confidence, "code": r.code,
                         "code_score": r.class_confidence, "turn": r.rotation} for r in reading.indices],
            "backs": [{"box": list(box), "score": score} for box, score in reading.backs]}


def disagreements(python: dict, browser: dict, box_px: float = 2.0) -> list[str]:
    """What differs between two readings of one frame: each box of one matched to the nearest of the other
    (the same kind), its corners within ``box_px``; indices also the same code and turn."""
    problems = []
    for kind in ("indices", "backs"):
        left, right = list(python[kind]), list(browser[kind])
        unmatched = list(range(len(right)))
        for entry in left:
            if not unmatched:
                problems.append(f"{kind}: only Python read {entry}")
                continue
            distance = [max(abs(a - b) for a, b in zip(entry["box"], right[k]["box"])) for k in unmatched]
            best = unmatched[int(np.argmin(distance))]
            if min(distance) > box_px:
                problems.append(f"{kind}: only Python read {entry} (nearest in the browser {min(distance):.2f} px away)")
                continue
            unmatched.remove(best)
            if kind == "indices" and (entry["code"], entry["turn"]) != (right[best]["code"], right[best]["turn"]):
                problems.append(f"indices: Python read {entry['code']} at {entry['turn']}°, the browser {right[best]['code']} "
                                f"at {right[best]['turn']}° ({entry['box']})")
        problems += [f"{kind}: only the browser read {right[k]}" for k in unmatched]
    return problems


class PageDetector:
    """The page's reader as ``companion.vision.Detector``'s ``read`` and ``expecting_index_px`` (what
    helpers.pacing.read_on_the_server asks of a reader), each frame read once per index size: the page's
    readings, posted at any pace without a camera's clock in the way. The same pixels read the same in
    the page (reader_worker.js is deterministic), so a frame's second reading is its first."""

    def __init__(self, reader: BrowserReader, index_px: float | None = None, cache: dict | None = None):
        self.reader, self.index_px = reader, index_px
        self.cache = {} if cache is None else cache

    def expecting_index_px(self, index_px: float | None) -> "PageDetector":
        return PageDetector(self.reader, index_px, self.cache)

    def read(self, frame_bgr: np.ndarray):
        from types import SimpleNamespace

        key = (hashlib.sha1(np.ascontiguousarray(frame_bgr).tobytes()).hexdigest(), self.index_px)
        if key not in self.cache:
            read = self.reader.read(frame_bgr, self.index_px)
            # readings_json takes FrameReading's names
            indices = [SimpleNamespace(box=r["box"], detection_confidence=r["score"], code=r["code"],
                                       class_confidence=r["code_score"], rotation=r["turn"]) for r in read["indices"]]
            self.cache[key] = SimpleNamespace(indices=indices, backs=[(b["box"], b["score"]) for b in read["backs"]])
        return self.cache[key]
