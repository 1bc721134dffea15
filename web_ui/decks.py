"""The phone's "teach your deck" flow: photograph or upload the deck, check every card it labelled, correct, save.

    GET  /decks/teach[?table=ID]        the page (web_ui/templates/teach_deck.html, static/teach_deck.js); from a
                                        table's page it offers "use this deck for table ID" once saved
    GET  /api/decks                     the learned decks (their names as typed)
    POST /api/decks/drafts              form: name, kind ("deck": each photo shows the whole deck, "parts": the
                                        photos together do, "cards": one photo per card), replace ("1": a deck of
                                        that name is replaced once saved), and either photos (files, read at once)
                                        or expect (how many photos will follow): a new draft
    POST /api/decks/drafts/<id>/photos  form: photos (files, each under the server's body limit) and at ("k": the
                                        first one's place among the photos, so a photo sent again replaces itself):
                                        each photo checked (a card photo read at once); one that fails says why
                                        and the others are kept
    POST /api/decks/drafts/<id>/read    label every card of the photos sent so far (as ``companion deck learn`` does)
    GET  /api/decks/drafts/<id>/photo/<n>, /card/<n>  a photo, a picture of card n (those it asks about are shown so)
    POST /api/decks/drafts/<id>/save    JSON {"corrections": {"NUMBER": "CODE"}}: learn with the player's corrections, save
    DELETE /api/decks/<name>            forget a deck

One photo per card is how a deck is taught most surely (``companion deck learn DIR``: the real decks are
learned so with no card asked), and a deck's 52 photos are far more than one request may carry (4 MiB):
the page sends them one at a time, with progress, and the draft reads each as it comes, as the command
line reads a folder's files (:func:`companion.vision.decks.folder.read_card_image`): a photo named by
its card (``4S.jpg``) is that card; a camera's ``IMG_0001.jpg`` is named by the classifier, each code
once over the deck, and what it cannot place surely is asked on the page.

A draft keeps what it needs in memory (a few per server, the oldest dropped first) so the player can
correct labels without uploading again; nothing is written until a save is complete. Decks are saved
in the server's data folder (``DATA_DIR``/decks), where ``companion deck`` and ``--deck`` find them.
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
MAX_PHOTOS = 6           # whole-deck photos in one draft (each is read whole: 6 take a minute on a laptop)
# Card photos in one draft: a deck's 54 cards and its back, and a few sent again.
MAX_CARD_PHOTOS = 60
# A card photo is kept this large (long side, px) to show on the page and to cut its crop from; what
# learning needs of it is read when it arrives.
CARD_THUMB_PX = 360
KINDS = ("deck", "parts", "cards")
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


def _error(message: str, status: int = 400, **extra):
    return jsonify({"error": message, **extra}), status


def _limit_mb() -> str:
    return format(int(current_app.config["MAX_CONTENT_LENGTH"]) / (1024 * 1024), "g")


def _name_in_use(name: str):
    return _error(_("a deck named %(name)s already exists: replace it, or pick another name", name=repr(name)), 409, exists=name)


def _result_json(entry: dict, result) -> dict:
    data = result.to_json()
    data["kind"] = entry["kind"]
    data["photo_sizes"] = [list(size) for size in entry["sizes"]]
    return data


@bp.get("/decks/teach")
def teach():
    from companion.session import TableNotFound

    settings = {"decks": _store().names(), "max_photos": MAX_PHOTOS, "max_card_photos": MAX_CARD_PHOTOS,
                "max_bytes": int(current_app.config["MAX_CONTENT_LENGTH"]), "limit_mb": _limit_mb()}
    table = None
    if request.args.get("table"):
        try:
            table = current_app.extensions["registry"].get(request.args["table"])
        except TableNotFound as error:
            return render_template("teach_deck.html", table=None, error=error_text(error), **settings), 404
    return render_template("teach_deck.html", table=table, **settings)


@bp.get("/api/decks")
def list_decks():
    from companion.vision.decks.store import DamagedDeck

    store = _store()
    decks = []
    for name in store.names():
        try:
            decks.append({"name": name, "cards": store.load(name).info.get("cards")})
        except DamagedDeck as error:    # one damaged deck hides none of the others: it is listed with what to do
            decks.append({"name": name, "cards": None, "problem": error_text(error)})
    return jsonify({"decks": decks})


def _photo_label(upload, number: int) -> str:
    return (upload.filename or "").replace("\\", "/").rsplit("/", 1)[-1][:80] or _("photo %(number)s", number=number)


def _take_photo(entry: dict, at: int, label: str, data: bytes) -> None:
    """Put one uploaded photo into the draft at place ``at`` (ValueError: it is no photo, or not one this draft takes)."""
    import cv2

    from companion.vision.deck_folder import code_from_filename
    from companion.vision.decks.folder import read_card_image
    from companion.vision.frames import decode_image

    frame = decode_image(data, label)
    if entry["kind"] != "cards":
        entry["photos"][at] = (label, frame)
        entry["sizes"][at] = (int(frame.shape[1]), int(frame.shape[0]))
        return
    from pathlib import PurePath

    try:
        code = code_from_filename(PurePath(label))    # 4S.jpg: that card, as in a folder of card images
    except ValueError:
        code = None                                   # IMG_0001.jpg: the classifier names it
    with _lock:
        scan = read_card_image(_detector(), frame, code)
    scale = min(1.0, CARD_THUMB_PX / max(frame.shape[:2]))
    thumb = cv2.resize(frame, (max(1, round(frame.shape[1] * scale)), max(1, round(frame.shape[0] * scale))), interpolation=cv2.INTER_AREA)
    entry["photos"][at] = (label, cv2.imencode(".jpg", thumb, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes())
    entry["scans"][at] = scan
    entry["sizes"][at] = (int(frame.shape[1]), int(frame.shape[0]))


def _add_photos(entry: dict, first: int) -> tuple[list[dict], list[dict]]:
    """The request's photos into the draft from place ``first`` on: (those taken, those that failed and why)."""
    added, failed = [], []
    for offset, upload in enumerate(request.files.getlist("photos")):
        at = first + offset
        label = _photo_label(upload, at + 1)
        if not 0 <= at < entry["expect"]:
            failed.append({"at": at, "name": label, "error": _("%(name)s: more photos than were announced (%(count)s)",
                                                                 name=label, count=entry["expect"])})
            continue
        try:
            _take_photo(entry, at, label, upload.read())
        except ValueError as error:
            failed.append({"at": at, "name": label, "error": error_text(error)})
            continue
        scan = entry["scans"].get(at)
        added.append({"at": at, "name": label, **({"card": scan.code} if scan is not None and scan.code else {})})
    return added, failed


def _new_entry(name: str, kind: str, expect: int, replace: bool) -> dict:
    return {"name": name, "kind": kind, "expect": expect, "replace": replace, "photos": {}, "scans": {}, "sizes": {}, "cards": []}


def _keep(entry: dict) -> str:
    with _lock:
        draft = secrets.token_urlsafe(8)
        drafts = _drafts()
        drafts[draft] = entry
        while len(drafts) > MAX_DRAFTS:
            drafts.popitem(last=False)
    return draft


@bp.post("/api/decks/drafts")
def new_draft():
    from companion.vision.decks.store import DeckStore

    try:
        name = DeckStore.check_name(DeckStore.clean_name(request.form.get("name") or ""))
    except ValueError as error:
        return _error(error_text(error))
    replace = request.form.get("replace") in ("1", "true", "on")
    if _store().exists(name) and not replace:
        return _name_in_use(name)
    kind = request.form.get("kind") or ("parts" if request.form.get("parts") in ("1", "true", "on") else "deck")
    if kind not in KINDS:
        return _error(_("kind is one of deck, parts or cards"))
    most = MAX_CARD_PHOTOS if kind == "cards" else MAX_PHOTOS
    files = request.files.getlist("photos")
    expect = request.form.get("expect")
    if not files and expect is None:
        return _error(_("no photos: take or upload photos of the whole deck, face up"))
    count = len(files) if expect is None else (int(expect) if expect.isdigit() else -1)
    if count < 1 or count > most or len(files) > count:
        return _error(_("at most %(max_photos)s photos at a time", max_photos=most) if count > most else
                      _("say how many photos will come (1 to %(max_photos)s)", max_photos=most))
    entry = _new_entry(name, kind, count, replace)
    if expect is not None:
        return jsonify({"draft": _keep(entry), "name": name, "kind": kind, "expect": count}), 201
    added, failed = _add_photos(entry, 0)
    if failed:
        return _error(failed[0]["error"], failed=failed)
    draft = _keep(entry)
    return _read(draft, entry)


@bp.post("/api/decks/drafts/<draft>/photos")
def add_photos(draft: str):
    entry = _drafts().get(draft)
    if entry is None:
        return _error(_("this draft is gone (the server keeps only the latest few): read the photos again"), 404)
    at = request.form.get("at", "")
    if not at.isdigit():
        return _error(_("say where the photos go among the others (at: 0 for the first)"))
    if not request.files.getlist("photos"):
        return _error(_("no photos: take or upload photos of the whole deck, face up"))
    with _lock:
        _drafts().move_to_end(draft)       # a draft being filled is not the oldest, whatever others began since
    added, failed = _add_photos(entry, int(at))
    return jsonify({"added": added, "failed": failed, "received": len(entry["photos"]), "expect": entry["expect"]})


@bp.post("/api/decks/drafts/<draft>/read")
def read_draft(draft: str):
    entry = _drafts().get(draft)
    if entry is None:
        return _error(_("this draft is gone (the server keeps only the latest few): read the photos again"), 404)
    if not entry["photos"]:
        return _error(_("no photo has arrived: none could be read"))
    return _read(draft, entry)


def _learn(entry: dict, corrections: dict[int, str] | None = None):
    """What learning makes of the draft's photos so far (with the player's ``corrections``)."""
    from companion.vision.decks.folder import learn_from_card_scans
    from companion.vision.decks.photos import learn_from_photos
    from companion.vision.decks.result import PHONE_ADVICE

    places = sorted(entry["photos"])
    if entry["kind"] == "cards":
        scans = [(entry["photos"][k][0], entry["scans"][k]) for k in places]
        return learn_from_card_scans(entry["name"], scans, {"photos": [label for label, _scan in scans], "source": "card photos"},
                                     corrections, advice=PHONE_ADVICE)
    photos = [entry["photos"][k] for k in places]
    with _lock:
        return learn_from_photos(_detector(), photos, entry["name"], parts=entry["kind"] == "parts", corrections=corrections,
                                 advice=PHONE_ADVICE)


def _read(draft: str, entry: dict):
    result = _learn(entry)
    entry["cards"] = result.cards
    entry["order"] = sorted(entry["photos"])
    entry["sizes_read"] = [entry["sizes"][k] for k in entry["order"]]
    return jsonify({"draft": draft, **_result_json({"kind": entry["kind"], "sizes": entry["sizes_read"]}, result)})


def _photo_of(entry: dict, number: int):
    """The draft's ``number``-th photo as read (None: no such photo)."""
    order = entry.get("order") or sorted(entry["photos"])
    return entry["photos"][order[number]] if 0 <= number < len(order) else None


@bp.get("/api/decks/drafts/<draft>/photo/<int:number>")
def draft_photo(draft: str, number: int):
    import cv2

    entry = _drafts().get(draft)
    photo = _photo_of(entry, number) if entry is not None else None
    if photo is None:
        return _error(_("no such draft photo"), 404)
    if isinstance(photo[1], bytes):
        return current_app.response_class(photo[1], mimetype="image/jpeg")
    _ok, jpeg = cv2.imencode(".jpg", photo[1], [cv2.IMWRITE_JPEG_QUALITY, 80])
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
    photo = _photo_of(entry, card.photo)
    if isinstance(photo[1], bytes):      # a photo of one card: the card is the photo
        return current_app.response_class(photo[1], mimetype="image/jpeg")
    _ok, jpeg = cv2.imencode(".jpg", card_crop(photo[1], card), [cv2.IMWRITE_JPEG_QUALITY, 85])
    return current_app.response_class(jpeg.tobytes(), mimetype="image/jpeg")


@bp.post("/api/decks/drafts/<draft>/save")
def save_draft(draft: str):
    from companion.cards import Card, InvalidCardError

    entry = _drafts().get(draft)
    if entry is None:
        return _error(_("this draft is gone (the server keeps only the latest few): read the photos again"), 404)
    if "order" not in entry:
        return _error(_("read the cards before saving"))
    body = request.get_json(silent=True) or {}
    corrections = {}
    for number, code in (body.get("corrections") or {}).items():
        try:
            corrections[int(number)] = Card.parse(str(code)).code
        except (ValueError, InvalidCardError):
            return _error(_('card %(number)s: %(code)s is not a card code (e.g. AS, 10H, QD, BJ)', number=number, code=repr(code)))
    try:
        result = _learn(entry, corrections)
    except ValueError as error:
        return _error(error_text(error))
    view = {"kind": entry["kind"], "sizes": entry["sizes_read"]}
    if not result.complete:
        entry["cards"] = result.cards
        return jsonify({"saved": False, "draft": draft, **_result_json(view, result)}), 422
    with _lock:
        if _store().exists(entry["name"]) and not entry["replace"]:
            return _name_in_use(entry["name"])
        try:
            _store().save(result.profile, replace=entry["replace"])
        except ValueError as error:
            return _error(error_text(error), 409)
        _drafts().pop(draft, None)
    return jsonify({"saved": True, "name": entry["name"], **_result_json(view, result)})


@bp.delete("/api/decks/<name>")
def remove_deck(name: str):
    from companion.vision.decks.store import DeckStore

    try:
        name = DeckStore.check_name(name)
    except ValueError as error:
        return _error(error_text(error))
    try:
        _store().remove(name)
    except ValueError as error:
        return _error(error_text(error), 404)
    return jsonify({"removed": name})
