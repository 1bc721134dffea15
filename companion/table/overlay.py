"""Drawing what the pipeline understood on top of a frame (for the live view and debugging).

The mat's zones are projected back into the picture through the current homography; every card the
tracker follows gets a box (settled: green, still settling: amber) and its zone; a face-down card
shows ``BACK`` only — the remembered face stays hidden, as on the phones.
"""
from __future__ import annotations

import cv2
import numpy as np

from companion.table.pipeline import FrameResult, TablePipeline

SETTLED = (60, 200, 60)
SETTLING = (0, 170, 255)
ZONE = (255, 200, 80)
HAND = (60, 60, 230)


def draw_overlay(frame: np.ndarray, pipeline: TablePipeline, result: FrameResult | None = None,
                 tracks: bool = True) -> np.ndarray:
    """A copy of ``frame`` with zones, tracked cards (unless ``tracks`` is off: the phone's camera view
    draws them itself, legibly at its own size) and the occlusion flag drawn on it."""
    canvas = frame.copy()
    locator = pipeline.locator
    on_mat = locator is not None and locator.ready and pipeline.units == "mm"
    if on_mat:
        layout = pipeline.layout
        for zone in layout.zones:
            if zone.shape == "circle":
                ring = np.array([(zone.center[0] + zone.radius * np.cos(a), zone.center[1] + zone.radius * np.sin(a))
                                 for a in np.linspace(0, 2 * np.pi, 48)])
                pts = locator.to_image(ring)
            else:
                pts = locator.to_image(np.array(zone.points))
            cv2.polylines(canvas, [np.round(pts).astype(np.int32)], True, ZONE, 1, cv2.LINE_AA)
        if layout.rings:
            r = layout.rings
            for radius in (r.vault, r.inner, r.outer):
                ring = np.array([(r.center[0] + radius * np.cos(a), r.center[1] + radius * np.sin(a))
                                 for a in np.linspace(0, 2 * np.pi, 72)])
                cv2.polylines(canvas, [np.round(locator.to_image(ring)).astype(np.int32)], True, ZONE, 1, cv2.LINE_AA)
    for track in pipeline.tracker.tracks if tracks else ():
        position = np.array([track.position])
        centre = locator.to_image(position)[0] if on_mat else position[0]
        colour = SETTLED if track.settled else SETTLING
        label = (track.code or "?") if track.settled else "…"
        if track.settled and track.zone:
            label += f" {track.zone}"
        x, y = int(round(centre[0])), int(round(centre[1]))
        cv2.circle(canvas, (x, y), 5, colour, -1, cv2.LINE_AA)
        cv2.putText(canvas, label, (x + 7, y - 7), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(canvas, label, (x + 7, y - 7), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA)
    if result is not None and result.occluded:
        cv2.putText(canvas, "hand over the table", (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6, HAND, 2, cv2.LINE_AA)
    return canvas


def readings(pipeline: TablePipeline) -> list[dict]:
    """The settled cards as JSON for a live view: code (BACK for face-down), zone, and where in the picture."""
    locator = pipeline.locator
    on_mat = locator is not None and locator.ready and pipeline.units == "mm"
    out = []
    for track in pipeline.tracker.cards:
        centre = locator.to_image(np.array([track.position]))[0] if on_mat else np.asarray(track.position)
        out.append({"card": track.code, "zone": track.zone, "pixel": [round(float(v), 1) for v in centre]})
    return out
