"""Printable mats drawn from layout files: true-scale PDFs (reportlab) and raster images (OpenCV).

The ArUco marker images come from OpenCV (``cv2.aruco.generateImageMarker``) and are embedded
pixel-exact; zones are outlined and labelled. A mat larger than the chosen paper is tiled across
several sheets at true scale, with an overlap strip and alignment crosses to tape them together.

The PDF speaks the reader's language (``language``: English or Simplified Chinese). The shipped
layouts' words (a zone's label, the title) are catalogue messages, found by the zone's role and seat;
a label a table wrote in its own layout file is drawn as written. Chinese is drawn with reportlab's
built-in CID font STSong-Light (Adobe's Asian font pack names it; the PDF viewer supplies the
glyphs), so no font file ships or downloads. The raster mat (:func:`render_mat`) is the background of
the synthetic tables the detector is tested on, not a sheet anyone reads: its labels stay in English,
since OpenCV's Hershey fonts draw no Chinese and the synthetic scenes must not change with a language.
"""
from __future__ import annotations

import io
import math
import pathlib

import cv2
import numpy as np

from calibration.layouts import Layout, Zone
from calibration.markers import charuco_board, marker_image
from companion.i18n import DEFAULT_LANGUAGE, Translator, translator
from companion.messages import Message, N_, Plural, english

PAPER_MM = {"A4": (210.0, 297.0), "A3": (297.0, 420.0)}
PAPERS = ("A4", "A3", "A4-tiled", "A3-tiled")
PRINT_MARGIN_MM = 8.0
TILE_OVERLAP_MM = 10.0
MM = 72.0 / 25.4  # PDF points per millimetre


# ---------------------------------------------------------------- the mat's words

#: The shipped layouts' zone labels by role (``calibration/build_layouts.py`` writes them in English);
#: ``%(seat)d`` is the owner's seat. A zone labelled otherwise keeps its own words.
ROLE_LABELS = {
    "grid": N_("the grid floats: start anywhere"),
    "marker": N_("doubling marker"),
    "dungeon": N_("dungeon"),
    "exile": N_("exile"),
    "battlefield": N_("battlefield: revealed"),
    "committed": N_("P%(seat)d commits"),
    "rest": N_("P%(seat)d rest area"),
    "treasures": N_("P%(seat)d treasures"),
    "trophies": N_("P%(seat)d trophies"),
    "area": N_("P%(seat)d chips"),
}
KINGDOMS_TITLE = N_("Kingdoms — lay the 6×5 grid anywhere inside the frame")


def _game_title(game: str, players: int) -> "Message | None":
    """Each game's title for a player count, as the shipped layouts write it in English."""
    if game == "dungeon":
        return Plural("Guilds and Dungeon — %(n)d player", "Guilds and Dungeon — %(n)d players", n=players)
    if game == "chosen":
        return Plural("The Chosen — %(n)d player", "The Chosen — %(n)d players", n=players)
    return None


def zone_label(zone: Zone) -> "Message | str":
    """The words on a zone: its role's message when the label is that message in English, else the label."""
    msgid = ROLE_LABELS.get(zone.role)
    if msgid is None or (("%(seat)d" in msgid) != (zone.player is not None)):
        return zone.label
    message = Message(msgid, seat=zone.player) if zone.player is not None else Message(msgid)
    return message if english(message) == zone.label else zone.label


def mat_title(layout: Layout) -> "Message | str":
    """The mat's title: the shipped one's message when the title is that message in English, else the title."""
    candidates = [Message(KINGDOMS_TITLE)]
    if layout.players:
        candidates.append(_game_title(layout.game, layout.players))
    for message in candidates:
        if message is not None and english(message) == layout.title:
            return message
    return layout.title


# Helvetica (a PDF base font) draws Latin text; anything it cannot encode, STSong-Light, reportlab's
# built-in CID font for Simplified Chinese (it also has Latin letters and digits, so one label stays
# in one font).
CHINESE_FONT = "STSong-Light"


def _font(text: str, bold: bool = False) -> str:
    try:
        text.encode("cp1252")
    except UnicodeEncodeError:
        from reportlab.pdfbase import pdfmetrics
        from reportlab.pdfbase.cidfonts import UnicodeCIDFont
        if CHINESE_FONT not in pdfmetrics.getRegisteredFontNames():
            pdfmetrics.registerFont(UnicodeCIDFont(CHINESE_FONT))
        return CHINESE_FONT
    return "Helvetica-Bold" if bold else "Helvetica"


def _say(words: Translator, text: "Message | str") -> str:
    """A message in the reader's language; a layout's own words as written (never looked up)."""
    return words.render(text) if isinstance(text, Message) else text


def _text(pdf, draw: str, x: float, y: float, text: str, size: float, bold: bool = False) -> None:
    """``pdf.drawString``/``drawCentredString`` (``draw``) in the font that can draw ``text``."""
    pdf.setFont(_font(text, bold), size)
    getattr(pdf, draw)(x, y, text)


# ---------------------------------------------------------------- raster (for screens and synthetic tables)

def render_mat(layout: Layout, px_per_mm: float = 2.0, background=(236, 240, 238), ink=(90, 90, 90)) -> np.ndarray:
    """The mat as a BGR image at ``px_per_mm``; a pixel (u, v) is mat point (u, v) / px_per_mm."""
    width, height = int(round(layout.width * px_per_mm)), int(round(layout.height * px_per_mm))
    image = np.full((height, width, 3), background, np.uint8)
    line = max(1, int(round(0.8 * px_per_mm)))

    def p(x, y):
        return int(round(x * px_per_mm)), int(round(y * px_per_mm))

    if layout.rings:
        r = layout.rings
        for radius, thickness in ((r.outer, line), (r.inner, line), (r.vault, 2 * line)):
            cv2.circle(image, p(*r.center), int(round(radius * px_per_mm)), ink, thickness, cv2.LINE_AA)
        cv2.circle(image, p(*r.center), int(round(r.vault * 0.6 * px_per_mm)), ink, line, cv2.LINE_AA)
        for text, at in (("VAULT", r.center), ("STEP 2", (r.center[0], r.center[1] - (r.vault + r.inner) / 2)),
                         ("STEP 1", (r.center[0], r.center[1] - (r.inner + r.outer) / 2))):
            _raster_label(image, text, p(*at), 5.0 * px_per_mm, ink, 0.0)
    for zone in layout.zones:
        if zone.shape == "circle":
            cv2.circle(image, p(*zone.center), int(round(zone.radius * px_per_mm)), ink, line, cv2.LINE_AA)
        else:
            pts = np.array([p(x, y) for x, y in zone.points], np.int32)
            cv2.polylines(image, [pts], True, ink, line, cv2.LINE_AA)
        _raster_label(image, zone.label.upper(), p(*zone.centroid()), 4.0 * px_per_mm, ink, zone.facing)
    for marker in layout.markers:
        size = int(round(marker.size * px_per_mm))
        quiet = int(round(4 * px_per_mm))
        x, y = p(marker.x, marker.y)
        cv2.rectangle(image, (x - quiet, y - quiet), (x + size + quiet, y + size + quiet), (255, 255, 255), -1)
        tile = marker_image(layout.dictionary, marker.id, size)
        image[y:y + size, x:x + size] = tile[..., None]
    return image


def _raster_label(image, text, center, height_px, colour, facing):
    """A label centred at ``center``, turned so that the seated player reads it."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    scale = max(0.2, height_px / 22.0)
    thickness = max(1, int(round(scale * 1.5)))
    (tw, th), base = cv2.getTextSize(text, font, scale, thickness)
    patch = np.zeros((th + base + 4, tw + 4), np.uint8)
    cv2.putText(patch, text, (2, th + 2), font, scale, 255, thickness, cv2.LINE_AA)
    patch = np.rot90(patch, -int(round(facing / 90.0)) % 4)  # the seated player reads it
    ph, pw = patch.shape
    x0, y0 = int(center[0] - pw / 2), int(center[1] - ph / 2)
    h, w = image.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + pw), min(h, y0 + ph)
    if xa >= xb or ya >= yb:
        return
    alpha = (patch[ya - y0:yb - y0, xa - x0:xb - x0].astype(np.float32) / 255)[..., None]
    region = image[ya:yb, xa:xb]
    region[:] = (region * (1 - alpha) + np.array(colour, np.float32) * alpha).astype(np.uint8)


# ---------------------------------------------------------------- PDF (true scale)

def sheet_plan(layout: Layout, paper: str) -> tuple[tuple[float, float], list[tuple[float, float]]]:
    """The page size (mm, in the orientation used) and the mat offset (mm) shown on each page."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}: choose one of {', '.join(PAPERS)}")
    short, long = PAPER_MM[paper.split("-")[0]]
    best = None
    for page in ((long, short), (short, long)):
        usable_w, usable_h = page[0] - 2 * PRINT_MARGIN_MM, page[1] - 2 * PRINT_MARGIN_MM
        if layout.width <= usable_w + 1e-6 and layout.height <= usable_h + 1e-6:
            return page, [(-(page[0] - layout.width) / 2, -(page[1] - layout.height) / 2)]
        step_w, step_h = usable_w - TILE_OVERLAP_MM, usable_h - TILE_OVERLAP_MM
        cols = max(1, math.ceil((layout.width - TILE_OVERLAP_MM) / step_w))
        rows = max(1, math.ceil((layout.height - TILE_OVERLAP_MM) / step_h))
        if best is None or cols * rows < best[0]:
            offsets = [(c * step_w - PRINT_MARGIN_MM, r * step_h - PRINT_MARGIN_MM) for r in range(rows) for c in range(cols)]
            best = (cols * rows, page, offsets, cols)
    _, page, offsets, _ = best
    return page, offsets


def write_mat_pdf(layout: Layout, path: "str | pathlib.Path", paper: str = "A3", language: str = DEFAULT_LANGUAGE) -> int:
    """Writes the mat at true scale with its words in ``language`` (a code :func:`companion.i18n.normalize`
    reads; unknown: English); returns the number of pages. Check the 100 mm ruler after printing."""
    from PIL import Image
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    path = pathlib.Path(path)
    if path.parent and not path.parent.exists():
        raise ValueError(f"folder {path.parent} does not exist")
    page, offsets = sheet_plan(layout, paper)
    words = translator(language)
    pdf = canvas.Canvas(str(path), pagesize=(page[0] * MM, page[1] * MM))
    pdf.setTitle(_say(words, mat_title(layout)) or layout.name)
    pdf.setCreator("Card Companion (companion mat)")
    markers = {}
    for marker in layout.markers:
        cells = marker_image(layout.dictionary, marker.id, 700)
        buffer = io.BytesIO()
        Image.fromarray(cells).save(buffer, format="PNG")
        buffer.seek(0)
        markers[marker.id] = ImageReader(buffer)
    for number, (ox, oy) in enumerate(offsets, start=1):
        _draw_page(pdf, layout, page, ox, oy, markers, words)
        if len(offsets) > 1:
            pdf.setFillGray(0.4)
            _text(pdf, "drawString", 4 * MM, 3 * MM, words.render(Message(
                "%(name)s: sheet %(number)d of %(count)d, true scale. Overlap the sheets by %(overlap)s mm so the crosses meet.",
                name=layout.name, number=number, count=len(offsets), overlap=format(TILE_OVERLAP_MM, "g"))), 7)
        pdf.showPage()
    pdf.save()
    return len(offsets)


def _draw_page(pdf, layout: Layout, page, ox: float, oy: float, markers, words: Translator) -> None:
    page_h = page[1]

    def P(x, y):  # mat mm → PDF points (PDF y grows upwards)
        return (x - ox) * MM, (page_h - (y - oy)) * MM

    pdf.setStrokeGray(0.35)
    pdf.setLineWidth(0.6)
    x1, y1 = P(0, 0)
    x2, y2 = P(layout.width, layout.height)
    pdf.rect(x1, y2, x2 - x1, y1 - y2)
    if layout.rings:
        r = layout.rings
        cx, cy = P(*r.center)
        for radius, width in ((r.outer, 0.8), (r.inner, 0.8), (r.vault, 1.6), (r.vault * 0.6, 0.6)):
            pdf.setLineWidth(width)
            pdf.circle(cx, cy, radius * MM)
        _text(pdf, "drawCentredString", cx, cy - 4, words.render(Message("VAULT")), 12, bold=True)
        _text(pdf, "drawCentredString", cx, P(0, r.center[1] - (r.vault + r.inner) / 2)[1], words.render(Message("STEP 2")), 10)
        _text(pdf, "drawCentredString", cx, P(0, r.center[1] - (r.inner + r.outer) / 2)[1], words.render(Message("STEP 1")), 10)
        _text(pdf, "drawCentredString", cx, P(0, r.center[1] - r.outer - 8)[1],
              words.render(Message("DEPARTURE (outside the circle)")), 10)
    pdf.setLineWidth(0.8)
    for zone in layout.zones:
        if zone.shape == "circle":
            cx, cy = P(*zone.center)
            pdf.circle(cx, cy, zone.radius * MM)
        else:
            path = pdf.beginPath()
            first = P(*zone.points[0])
            path.moveTo(*first)
            for point in zone.points[1:]:
                path.lineTo(*P(*point))
            path.close()
            pdf.drawPath(path)
        cx, cy = P(*zone.centroid())
        pdf.saveState()
        pdf.translate(cx, cy)
        pdf.rotate(-zone.facing)  # the seated player reads their own labels
        _text(pdf, "drawCentredString", 0, -3, _say(words, zone_label(zone)), 9)
        pdf.restoreState()
    for marker in layout.markers:
        mx, my = P(marker.x, marker.y + marker.size)
        pdf.drawImage(markers[marker.id], mx, my, marker.size * MM, marker.size * MM)
        _text(pdf, "drawString", mx, my - 7, words.render(Message("marker %(id)s", id=marker.id)), 6)
    # a 100 mm ruler to check the printer kept true scale
    rx, ry = P(layout.width / 2 - 50, layout.height - 3)
    pdf.setLineWidth(0.6)
    pdf.line(rx, ry, rx + 100 * MM, ry)
    for tick in range(0, 101, 10):
        pdf.line(rx + tick * MM, ry, rx + tick * MM, ry + (3 if tick % 50 else 5) * MM / 2)
    _text(pdf, "drawString", rx + 101 * MM, ry, words.render(Message("%(length)s mm", length=100)), 6)
    tx, ty = P(layout.width / 2, 8)
    title = _say(words, mat_title(layout))
    if title:
        _text(pdf, "drawCentredString", tx, ty - 4, title, 11, bold=True)
    # alignment crosses every 100 mm help to tape tiles together
    pdf.setLineWidth(0.3)
    for gx in range(100, int(layout.width), 100):
        for gy in range(100, int(layout.height), 100):
            cx, cy = P(gx, gy)
            pdf.line(cx - 4, cy, cx + 4, cy)
            pdf.line(cx, cy - 4, cx, cy + 4)


def write_charuco_pdf(path: "str | pathlib.Path", paper: str = "A4", squares=(7, 5), square_mm: float = 30.0,
                      marker_mm: float = 22.0, language: str = DEFAULT_LANGUAGE) -> tuple[float, float]:
    """The ChArUco board of :func:`calibration.markers.charuco_board` at true scale on one sheet."""
    from PIL import Image
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}: choose one of {', '.join(PAPERS)}")
    short, long = PAPER_MM[paper.split("-")[0]]
    width, height = squares[0] * square_mm, squares[1] * square_mm
    if width > long - 2 * PRINT_MARGIN_MM or height > short - 2 * PRINT_MARGIN_MM:
        raise ValueError(f"a {width:g}×{height:g} mm board does not fit on {paper}")
    board = charuco_board(squares[0], squares[1], square_mm, marker_mm)
    pixels = board.generateImage((int(width * 10), int(height * 10)), marginSize=0)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG")
    buffer.seek(0)
    pdf = canvas.Canvas(str(path), pagesize=(long * MM, short * MM))
    words = translator(language)
    pdf.setTitle(words.render(Message("ChArUco lens calibration board")))
    x, y = (long - width) / 2, (short - height) / 2
    pdf.drawImage(ImageReader(buffer), x * MM, y * MM, width * MM, height * MM)
    _text(pdf, "drawString", x * MM, (y - 5) * MM, words.render(Message(
        "ChArUco %(columns)sx%(rows)s, squares %(square)s mm, markers %(marker)s mm (DICT_5X5_100 from id 50). "
        "Print at full size (no scaling); check a square measures %(square)s mm.",
        columns=squares[0], rows=squares[1], square=format(square_mm, "g"), marker=format(marker_mm, "g"))), 8)
    pdf.showPage()
    pdf.save()
    return width, height
