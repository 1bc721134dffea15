"""Configuration objects (Flask tutorial style): pick one, override what you need."""
from __future__ import annotations

import os


class Config:
    # Where the SQLite journal (and the --https certificate) live.
    DATA_DIR = os.environ.get("COMPANION_DATA", "companion-data")
    # A postgresql:// URL: the tables live there, shared with every server that names it (docs/web.md,
    # *Several servers*); None: the SQLite journal in DATA_DIR (one server).
    DATABASE: str | None = os.environ.get("COMPANION_DATABASE") or None
    # What a request answers while the database cannot be reached (503): try again in this many seconds.
    DATABASE_RETRY_SECONDS = 2
    # Largest request body: a phone camera frame as JPEG is well under this.
    MAX_CONTENT_LENGTH = 4 * 1024 * 1024
    MAX_FRAME_BYTES = 4 * 1024 * 1024
    # The host's import of an export (POST /api/evening/import), the one larger body: 1,000 finished games of
    # the three games in turn export as about 7.6 MB of JSON; six times that leaves room for longer games.
    MAX_IMPORT_BYTES = 48 * 1024 * 1024
    # Pixels a frame may have, read from its header before it is decoded (a 12000×12000 image once took
    # 800 MB and 18 s to decode): 4096×4096 holds a 12-megapixel phone photo; phones send 1280×720.
    MAX_FRAME_PIXELS = 4096 * 4096
    # Frames a table takes per second (the phone camera sends one about every 0.7 s; more are refused, 429).
    MAX_FRAMES_PER_SECOND = 5.0
    # A phone feed without frames this long is stopped (its thread and pipeline freed); the next frame restarts it.
    CAMERA_IDLE_SECONDS = 60.0
    # Posted detections (a phone or a table computer reading its own cards): each table takes this many
    # posts a second on average, in bursts of up to DETECTIONS_BURST (a token bucket; more are 429 with
    # Retry-After). A reader reads as fast as it can: 5-10 frames a second is plenty for the tracker.
    MAX_DETECTIONS_PER_SECOND = 10.0
    DETECTIONS_BURST = 10
    # Posts of detections the server works on at once (the others wait their turn, holding no CPU): all of
    # them share one interpreter lock, so more at once are no faster, and every one running makes the
    # referee's request, which needs that lock too, wait longer.
    DETECTIONS_AT_ONCE = 2
    # Largest post of detections (JSON; a still of the frame, base64, is most of it when asked for one).
    MAX_DETECTIONS_BYTES = 4 * 1024 * 1024
    # OpenCV's own threads per call (process-wide; None: OpenCV's default, one per core). A server runs
    # many small calls from many threads at once (tables' stills, crops, the mat's markers): with its
    # default two threads each call waited for the other's, and a still's bare-back check (one LAB
    # conversion of a card-sized region) took 1.0 ms of wall time on the loaded 2 cores, 0.17 ms with one.
    OPENCV_THREADS: int | None = 1
    # The sha256 of every models.json whose readings this server takes, besides its own
    # (vision_models/weights/models.json): readings of other models are refused (409).
    KNOWN_MODELS: tuple[str, ...] = ()
    # A phone whose own card reader (issue 23) takes longer than this a frame (median of its last 3) sends
    # frames instead. A card settles after two sightings 0.6 s apart once the hand left: at 3 s a frame its
    # event comes about 6 s late, longer than players wait, and the server reads a phone's frame in ~0.3 s.
    READER_SLOW_MS = 3000.0
    # Whether phones read their own cards (issue 23) when they can; False: every phone sends frames and
    # this server reads them (a venue whose phones are too weak, or a test of the frames path).
    PHONE_READER = True
    # A table setup or an event is small: anything bigger is a mistake or an attack.
    MAX_JSON_BYTES = 64 * 1024
    # Server-sent events: a comment every few seconds keeps proxies and phones from closing an idle
    # stream (and lets the kernel notice a phone that vanished); each stream ends after an hour all the
    # same (the browser reconnects at once with Last-Event-ID and misses nothing).
    SSE_KEEPALIVE_SECONDS = 15.0
    SSE_MAX_SECONDS = 3600.0
    SSE_RETRY_MS = 1000
    # Base of join links and QR codes, e.g. "http://192.168.1.20:8000/"; None: the request's own host.
    PUBLIC_URL: str | None = None
    # Camera source for the table pipeline (a device index, a file or a URL); None: no server camera.
    CAMERA_SOURCE: str | None = None
    # Read cards in camera frames (loads the shipped ONNX detector on a table's first frame).
    CAMERA_DETECTION = True
    # Cross-table batching in the shared detector of tables that send frames (companion serve --batching):
    # None, "classifier", "detector", "both" or "both:2" (companion.vision.batching; measured in docs/table.md).
    CAMERA_BATCHING: str | None = None
    # Hooks for tests and experiments: a zero-argument detector loader and a pipeline factory.
    CAMERA_DETECTOR_LOADER = None
    CAMERA_PIPELINE_FACTORY = None
    # The learned deck (DATA_DIR/decks/NAME) the cameras of tables that name none read with
    # (``companion serve --deck NAME``); None: the general models.
    DEFAULT_DECK: str | None = None
    # Wrong PINs a table takes before it locks PINs out (429) for PIN_LOCKOUT_SECONDS, doubled after each
    # further wrong one up to PIN_LOCKOUT_MAX_SECONDS; the referee token still works meanwhile. With 5
    # free tries and doubling, trying the million 6-digit PINs would take far longer than any evening.
    PIN_ATTEMPTS = 5
    PIN_LOCKOUT_SECONDS = 30.0
    PIN_LOCKOUT_MAX_SECONDS = 3600.0
    # Host names this server answers to (Flask checks the Host header; the port is ignored): a page on
    # another name that resolves here (DNS rebinding) gets 400. ``companion serve`` adds the LAN
    # address, the public URL's host and every --allow-host; None would allow any name.
    TRUSTED_HOSTS = ["localhost", "127.0.0.1", "::1"]
    # Whether GET /api/tables and the start page list the tables' join codes: a code is the key to
    # watching a table, so by default strangers are shown none (``companion serve --list-tables``).
    LIST_TABLES = False
    # The host's token (``companion serve`` reads or draws it in DATA_DIR/host-token and prints the host's link
    # ``/evening#host=TOKEN``): the evening's list of every table, the players' records, merging names,
    # exporting and importing (web_ui/evening.py). None: nobody is the host (--list-tables still lists).
    HOST_TOKEN: str | None = None
    # The language of a phone whose browser asks for none the companion has ("en" or "zh-Hans";
    # ``companion serve --language``). Each phone may choose its own (web_ui/i18n.py).
    LANGUAGE = "en"
    # The game catalogue: None means the real engines (companion.games).
    ENGINES = None
    GAMES = None


class TestConfig(Config):
    TESTING = True
    # None: a fresh temporary directory per app, so tests never touch a real data directory.
    DATA_DIR = None
    DATABASE = None   # a test names its own throw-away database (tests/postgres_cluster.py)
    CAMERA_DETECTION = False
    SSE_KEEPALIVE_SECONDS = 0.2
    SSE_MAX_SECONDS = 2.0
