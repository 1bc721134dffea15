"""Printable mats drawn from layout files: true-scale PDFs (reportlab) and raster images (OpenCV).

The ArUco marker images come from OpenCV (``cv2.aruco.generateImageMarker``) and are embedded
pixel-exact; zones are outlined and labelled. A mat larger than the chosen paper is tiled across
several sheets at true scale, with an overlap strip and alignment crosses to tape them together.
"""
from __future__ import annotations

import io
import math
import pathlib

import cv2
import numpy as np

from calibration.layouts import Layout
from calibration.markers import charuco_board, marker_image

PAPER_MM = {"A4": (210.0, 297.0), "A3": (297.0, 420.0)}
PAPERS = ("A4", "A3", "A4-tiled", "A3-tiled")
PRINT_MARGIN_MM = 8.0
TILE_OVERLAP_MM = 10.0
MM = 72.0 / 25.4  # PDF points per millimetre


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


def write_mat_pdf(layout: Layout, path: "str | pathlib.Path", paper: str = "A3") -> int:
    """Writes the mat at true scale; returns the number of pages. Check the 100 mm ruler after printing."""
    from PIL import Image
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    path = pathlib.Path(path)
    if path.parent and not path.parent.exists():
        raise ValueError(f"folder {path.parent} does not exist")
    page, offsets = sheet_plan(layout, paper)
    pdf = canvas.Canvas(str(path), pagesize=(page[0] * MM, page[1] * MM))
    pdf.setTitle(layout.title or layout.name)
    pdf.setCreator("Card Companion (companion mat)")
    markers = {}
    for marker in layout.markers:
        cells = marker_image(layout.dictionary, marker.id, 700)
        buffer = io.BytesIO()
        Image.fromarray(cells).save(buffer, format="PNG")
        buffer.seek(0)
        markers[marker.id] = ImageReader(buffer)
    for number, (ox, oy) in enumerate(offsets, start=1):
        _draw_page(pdf, layout, page, ox, oy, markers)
        if len(offsets) > 1:
            pdf.setFont("Helvetica", 7)
            pdf.setFillGray(0.4)
            pdf.drawString(4 * MM, 3 * MM, f"{layout.name}: sheet {number} of {len(offsets)}, true scale. "
                                           f"Overlap the sheets by {TILE_OVERLAP_MM:g} mm so the crosses meet.")
        pdf.showPage()
    pdf.save()
    return len(offsets)


def _draw_page(pdf, layout: Layout, page, ox: float, oy: float, markers) -> None:
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
        pdf.setFont("Helvetica-Bold", 12)
        pdf.drawCentredString(cx, cy - 4, "VAULT")
        pdf.setFont("Helvetica", 10)
        pdf.drawCentredString(cx, P(0, r.center[1] - (r.vault + r.inner) / 2)[1], "STEP 2")
        pdf.drawCentredString(cx, P(0, r.center[1] - (r.inner + r.outer) / 2)[1], "STEP 1")
        pdf.drawCentredString(cx, P(0, r.center[1] - r.outer - 8)[1], "DEPARTURE (outside the circle)")
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
        pdf.setFont("Helvetica", 9)
        pdf.drawCentredString(0, -3, zone.label)
        pdf.restoreState()
    for marker in layout.markers:
        mx, my = P(marker.x, marker.y + marker.size)
        pdf.drawImage(markers[marker.id], mx, my, marker.size * MM, marker.size * MM)
        pdf.setFont("Helvetica", 6)
        pdf.drawString(mx, my - 7, f"marker {marker.id}")
    # a 100 mm ruler to check the printer kept true scale
    rx, ry = P(layout.width / 2 - 50, layout.height - 3)
    pdf.setLineWidth(0.6)
    pdf.line(rx, ry, rx + 100 * MM, ry)
    for tick in range(0, 101, 10):
        pdf.line(rx + tick * MM, ry, rx + tick * MM, ry + (3 if tick % 50 else 5) * MM / 2)
    pdf.setFont("Helvetica", 6)
    pdf.drawString(rx + 101 * MM, ry, "100 mm")
    pdf.setFont("Helvetica-Bold", 11)
    tx, ty = P(layout.width / 2, 8)
    if layout.title:
        pdf.drawCentredString(tx, ty - 4, layout.title)
    # alignment crosses every 100 mm help to tape tiles together
    pdf.setLineWidth(0.3)
    for gx in range(100, int(layout.width), 100):
        for gy in range(100, int(layout.height), 100):
            cx, cy = P(gx, gy)
            pdf.line(cx - 4, cy, cx + 4, cy)
            pdf.line(cx, cy - 4, cx, cy + 4)


def write_charuco_pdf(path: "str | pathlib.Path", paper: str = "A4", squares=(7, 5), square_mm: float = 30.0,
                      marker_mm: float = 22.0) -> tuple[float, float]:
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
    pdf.setTitle("ChArUco lens calibration board")
    x, y = (long - width) / 2, (short - height) / 2
    pdf.drawImage(ImageReader(buffer), x * MM, y * MM, width * MM, height * MM)
    pdf.setFont("Helvetica", 8)
    pdf.drawString(x * MM, (y - 5) * MM, f"ChArUco {squares[0]}x{squares[1]}, squares {square_mm:g} mm, markers {marker_mm:g} mm "
                                         "(DICT_5X5_100 from id 50). Print at 100 %; check a square measures "
                                         f"{square_mm:g} mm.")
    pdf.showPage()
    pdf.save()
    return width, height
