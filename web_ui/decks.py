"""The phone's "teach your deck" flow: photograph or upload the whole deck, check every card it labelled, correct, save.

    GET  /decks/teach[?table=ID]        the page (web_ui/templates/teach_deck.html, static/teach_deck.js); from a
                                        table's page it offers "use this deck for table ID" once saved
    GET  /api/decks/drafts/<id>/card/<n>  a picture of card n (those it asks about are shown so)
    GET  /api/decks                     the learned decks
    POST /api/decks/drafts              multipart: name, photos (files), parts ("1"): read the photos, label every card
    POST /api/decks/drafts/<id>/save    JSON {"corrections": {"NUMBER": "CODE"}}: learn with the player's corrections, save
    DELETE /api/decks/<name>            forget a deck

A draft keeps the uploaded photos in memory (a few per server, the oldest dropped first) so the
player can correct labels without uploading again; nothing is written until a save is complete.
Decks are saved in the server's data folder (``DATA_DIR``/decks), where ``companion deck`` and
``--deck`` find them.
"""
from __future__ import annotations

import collections
import secrets
import threading

from flask import Blueprint, current_app, jsonify, render_template, request
from flask_babel import gettext as _

from web_ui.i18n import error_text

bp = Blueprint("decks", __name__)

MAX_DRAFTS = 4           # photos of a deck are a few MB decoded; a server keeps only the latest drafts
MAX_PHOTOS = 6
_lock = threading.Lock()


def _drafts() -> collections.OrderedDict:
    return current_app.extensions.setdefault("deck_drafts", collections.OrderedDict())


def _store():
    from companion.vision.decks.store import DeckStore

    return DeckStore(current_app.config["DATA_DIR"])


def _detector():
    """One detector per app, loaded on first use (``DECK_DETECTOR_LOADER`` in tests)."""
    if "deck_detector" not in current_app.extensions:
        loader = current_app.config.get("DECK_DETECTOR_LOADER")
        if loader is None:
            from companion.vision import Detector

            def loader():
                return Detector.load(tile="auto")
        current_app.extensions["deck_detector"] = loader()
    return current_app.extensions["deck_detector"]


def _error(message: str, status: int = 400):
    return jsonify({"error": message}), status


def _result_json(result, photos) -> dict:
    data = result.to_json()
    data["photo_sizes"] = [[int(f.shape[1]), int(f.shape[0])] for _label, f in photos]
    return data


@bp.get("/decks/teach")
def teach():
    from companion.session import TableNotFound

    table = None
    if request.args.get("table"):
        try:
            table = current_app.extensions["registry"].get(request.args["table"])
        except TableNotFound as error:
            return render_template("teach_deck.html", decks=_store().names(), table=None, error=error_text(error)), 404
    return render_template("teach_deck.html", decks=_store().names(), table=table)


@bp.get("/api/decks")
def list_decks():
    store = _store()
    return jsonify({"decks": [{"name": n, "cards": store.load(n).info.get("cards")} for n in store.names()]})


@bp.post("/api/decks/drafts")
def new_draft():
    from companion.vision.decks.photos import learn_from_photos
    from companion.vision.decks.store import DeckStore
    from companion.vision.frames import decode_image

    name = (request.form.get("name") or "").strip()
    try:
        DeckStore.check_name(name)
    except ValueError as error:
        return _error(error_text(error))
    if _store().exists(name):
        return _error(_("a deck named %(name)s already exists: pick another name, or forget that deck first (`companion deck remove "
                        "%(name2)s`)",
                        name=repr(name), name2=name), 409)
    files = request.files.getlist("photos")
    if not files:
        return _error(_("no photos: take or upload photos of the whole deck, face up"))
    if len(files) > MAX_PHOTOS:
        return _error(_('at most %(max_photos)s photos at a time', max_photos=MAX_PHOTOS))
    photos = []
    for number, upload in enumerate(files, 1):
        label = upload.filename or f"photo {number}"
        try:
            photos.append((label, decode_image(upload.read(), label)))
        except ValueError as error:
            return _error(error_text(error))
    parts = request.form.get("parts") in ("1", "true", "on")
    with _lock:
        result = learn_from_photos(_detector(), photos, name, parts=parts)
        draft = secrets.token_urlsafe(8)
        drafts = _drafts()
        drafts[draft] = {"name": name, "photos": photos, "parts": parts, "cards": result.cards}
        while len(drafts) > MAX_DRAFTS:
            drafts.popitem(last=False)
    return jsonify({"draft": draft, **_result_json(result, photos)})


@bp.get("/api/decks/drafts/<draft>/photo/<int:number>")
def draft_photo(draft: str, number: int):
    import cv2

    entry = _drafts().get(draft)
    if entry is None or not 0 <= number < len(entry["photos"]):
        return _error(_("no such draft photo"), 404)
    _ok, jpeg = cv2.imencode(".jpg", entry["photos"][number][1], [cv2.IMWRITE_JPEG_QUALITY, 80])
    return current_app.response_class(jpeg.tobytes(), mimetype="image/jpeg")


@bp.get("/api/decks/drafts/<draft>/card/<int:number>")
def draft_card(draft: str, number: int):
    """A picture of one card of the draft (as the latest reading numbered them), for the player to name it."""
    import cv2

    from companion.vision.decks.result import card_crop

    entry = _drafts().get(draft)
    if entry is None or not 0 <= number < len(entry.get("cards", [])):
        return _error(_("no such card in this draft"), 404)
    card = entry["cards"][number]
    _ok, jpeg = cv2.imencode(".jpg", card_crop(entry["photos"][card.photo][1], card), [cv2.IMWRITE_JPEG_QUALITY, 85])
    return current_app.response_class(jpeg.tobytes(), mimetype="image/jpeg")


@bp.post("/api/decks/drafts/<draft>/save")
def save_draft(draft: str):
    from companion.cards import Card, InvalidCardError
    from companion.vision.decks.photos import learn_from_photos

    entry = _drafts().get(draft)
    if entry is None:
        return _error(_("this draft is gone (the server keeps only the latest few): read the photos again"), 404)
    body = request.get_json(silent=True) or {}
    corrections = {}
    for number, code in (body.get("corrections") or {}).items():
        try:
            corrections[int(number)] = Card.parse(str(code)).code
        except (ValueError, InvalidCardError):
            return _error(_('card %(number)s: %(code)s is not a card code (e.g. AS, 10H, QD, BJ)', number=number, code=repr(code)))
    with _lock:
        try:
            result = learn_from_photos(_detector(), entry["photos"], entry["name"], parts=entry["parts"],
                                       corrections=corrections)
        except ValueError as error:
            return _error(error_text(error))
        if not result.complete:
            entry["cards"] = result.cards
            return jsonify({"saved": False, "draft": draft, **_result_json(result, entry["photos"])}), 422
        try:
            _store().save(result.profile)
        except ValueError as error:
            return _error(error_text(error), 409)
        _drafts().pop(draft, None)
    return jsonify({"saved": True, "name": entry["name"], **_result_json(result, entry["photos"])})


@bp.delete("/api/decks/<name>")
def remove_deck(name: str):
    from companion.vision.decks.store import DeckStore

    try:
        DeckStore.check_name(name)
    except ValueError as error:
        return _error(error_text(error))
    try:
        _store().remove(name)
    except ValueError as error:
        return _error(error_text(error), 404)
    return jsonify({"removed": name})
