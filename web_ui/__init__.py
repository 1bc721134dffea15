"""The phone referee: a Flask app (factory, blueprints, config objects) over the session layer.

    from web_ui import create_app
    app = create_app({"DATA_DIR": "/tmp/tables"})

Pages live in :mod:`web_ui.pages`, the JSON API and the live stream in :mod:`web_ui.api`, camera
frames in :mod:`web_ui.camera`. Everything the browser needs ships in ``web_ui/static``.
"""
from __future__ import annotations

import tempfile
from typing import Any, Mapping

from flask import Flask

from web_ui.config import Config, TestConfig

__all__ = ["create_app", "shutdown", "Config", "TestConfig", "SECURITY_HEADERS"]

# Everything the pages need comes from this server (no CDN, no inline script or style markup); camera
# frames are shown as blob: and data: images; no page of ours may be framed by another site. The phone's
# own reader compiles onnxruntime-web's WebAssembly ('wasm-unsafe-eval' allows that and no script eval).
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", "worker-src 'self'", "style-src 'self'", "img-src 'self' data: blob:",
    "media-src 'self' blob: mediastream:", "connect-src 'self'", "object-src 'none'", "base-uri 'none'",
    "form-action 'self'", "frame-ancestors 'none'",
])
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    # Opener and embedder policies together make the pages cross-origin isolated, which WebAssembly threads
    # need (SharedArrayBuffer): the phone's reader runs onnxruntime-web on several cores. Everything a page
    # loads is this server's, so requiring CORP costs nothing.
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(self), microphone=(), geolocation=()",
}


def create_app(config: Any = None) -> Flask:
    """A new app. ``config`` is a config class or object (see :mod:`web_ui.config`) or a mapping
    of overrides applied on top of :class:`Config`."""
    from companion.games import GAMES, get_engine
    from companion.session import TableRegistry
    from web_ui import api, camera, i18n, models, pages

    app = Flask(__name__)
    app.config.from_object(Config)
    if isinstance(config, Mapping):
        app.config.update(config)
    elif config is not None:
        app.config.from_object(config)
    app.json.sort_keys = False
    if app.testing and isinstance(config, Mapping):
        # A test app ends its event streams quickly unless told otherwise, so reading one never hangs.
        for key in ("SSE_KEEPALIVE_SECONDS", "SSE_MAX_SECONDS"):
            if key not in config:
                app.config[key] = getattr(TestConfig, key)
    if not app.config.get("DATA_DIR"):
        app.config["DATA_DIR"] = tempfile.mkdtemp(prefix="companion-tables-")

    engines = app.config.get("ENGINES") or get_engine
    games = tuple(app.config.get("GAMES") or GAMES)
    app.extensions["registry"] = TableRegistry(app.config["DATA_DIR"], engines=engines, games=games,
                                               database=app.config.get("DATABASE"))
    app.extensions["camera"] = camera.CameraHub(app.config)
    app.extensions["camera"].store = app.extensions["registry"].store   # the feeds' leases, with several servers
    app.extensions["pin_lockout"] = api.PinLockout()

    i18n.init_app(app)   # the request's language (Flask-Babel over companion/locale), /language, /i18n/<tag>.js
    api.register_error_handlers(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(camera.bp)
    app.register_blueprint(models.bp)   # the shipped models and their reading contract, for the phone's reader
    app.register_blueprint(__import__("web_ui.decks", fromlist=["bp"]).bp)   # "teach your deck" (web_ui/decks.py)
    app.register_blueprint(__import__("web_ui.evening", fromlist=["bp"]).bp)   # the evening's tables, records, export
    app.register_blueprint(__import__("web_ui.results", fromlist=["bp"]).bp)   # a table's result page and charts

    @app.after_request
    def security_headers(response):
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

    return app


def shutdown(app: Flask) -> None:
    """Ends the app's live streams and camera feeds and closes its database (before the server stops)."""
    app.extensions["camera"].close()
    app.extensions["registry"].close()
