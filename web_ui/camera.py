"""Camera frames: a phone posting JPEGs (the push source) or the server's ``--camera``, and the live view.

Frames go to the table pipeline (``companion.table``) when it is installed; what it reads becomes
camera events in the session, where the referee's word still wins. The latest frame, with boxes and
zones drawn when the pipeline gives them, is served as a JPEG and as an MJPEG stream.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from flask import Blueprint, Response, current_app, jsonify, request

from web_ui.api import ApiError, referee_table, registry

bp = Blueprint("camera", __name__, url_prefix="/api")


@dataclass
class Frame:
    jpeg: bytes
    at: float
    seq: int
    width: int
    height: int
    readings: list | None = None


class CameraHub:
    """The latest frame of each table, and a condition so MJPEG viewers wake when one arrives."""

    def __init__(self, config: Any) -> None:
        self.max_bytes = int(config.get("MAX_FRAME_BYTES", 4 * 1024 * 1024))
        self._frames: dict[str, Frame] = {}
        self._changed = threading.Condition()
        self.feeders: dict[str, Any] = {}

    def decode(self, data: bytes) -> np.ndarray:
        if not data:
            raise ApiError(400, "no frame: send the JPEG (or PNG) bytes as the request body")
        if len(data) > self.max_bytes:
            raise ApiError(413, f"a frame may be at most {self.max_bytes} bytes")
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        if image is None or image.size == 0:
            raise ApiError(400, "the body does not decode as an image")
        return image

    def publish(self, table_id: str, image: np.ndarray, readings: list | None = None) -> Frame:
        ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
        if not ok:
            raise ApiError(500, "could not encode the frame")
        with self._changed:
            previous = self._frames.get(table_id)
            frame = Frame(encoded.tobytes(), time.time(), (previous.seq + 1) if previous else 1,
                          image.shape[1], image.shape[0], readings)
            self._frames[table_id] = frame
            self._changed.notify_all()
        return frame

    def latest(self, table_id: str) -> Frame | None:
        with self._changed:
            return self._frames.get(table_id)

    def wait(self, table_id: str, after_seq: int, timeout: float) -> Frame | None:
        with self._changed:
            self._changed.wait_for(lambda: (f := self._frames.get(table_id)) is not None and f.seq > after_seq, timeout)
            return self._frames.get(table_id)


def hub() -> CameraHub:
    return current_app.extensions["camera"]


@bp.post("/tables/<table_id>/frames")
def post_frame(table_id: str):
    table = referee_table(table_id)
    length = request.content_length
    if length is not None and length > hub().max_bytes:
        raise ApiError(413, f"a frame may be at most {hub().max_bytes} bytes")
    image = hub().decode(request.get_data(cache=False))
    frame = hub().publish(table.id, image)
    return jsonify(frame=frame.seq, width=frame.width, height=frame.height), 202


@bp.get("/tables/<table_id>/frame.jpg")
def latest_frame(table_id: str):
    table = registry().get(table_id)
    frame = hub().latest(table.id)
    if frame is None:
        raise ApiError(404, "no camera frame yet for this table")
    return Response(frame.jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store", "X-Frame-Seq": str(frame.seq)})


@bp.get("/tables/<table_id>/camera.mjpeg")
def mjpeg(table_id: str):
    table = registry().get(table_id)
    camera, lifetime = hub(), current_app.config["SSE_MAX_SECONDS"]

    def generate():
        deadline, last = time.monotonic() + lifetime, 0
        while time.monotonic() < deadline:
            frame = camera.wait(table.id, last, timeout=1.0)
            if frame is None or frame.seq <= last:
                continue
            last = frame.seq
            yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " + str(len(frame.jpeg)).encode()
                   + b"\r\n\r\n" + frame.jpeg + b"\r\n")

    return Response(generate(), mimetype="multipart/x-mixed-replace; boundary=frame", headers={"Cache-Control": "no-store"})
