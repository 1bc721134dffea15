"""From camera pixels to mat millimetres, via the mat's ArUco markers (OpenCV 5 ``ArucoDetector``).

The homography is re-found every ``refresh_seconds`` so a bumped camera recovers on its own; a
frame where too few markers are visible (a hand over them) keeps the last good homography.
Optional lens calibration (ChArUco board, ``CharucoDetector``) is stored per camera as JSON and
undistorts points before they are mapped.
"""
from __future__ import annotations

import json
import pathlib
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.layouts import Layout
from calibration.markers import aruco_dictionary, charuco_board


class CalibrationError(ValueError):
    """Too little of the mat or board was seen, or a calibration file is not usable."""


def detect_markers(frame: np.ndarray, dictionary: str = "DICT_5X5_100", detector=None) -> dict[int, np.ndarray]:
    """Marker id → its four corners in pixels (top-left, top-right, bottom-right, bottom-left)."""
    if detector is None:
        detector = cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), cv2.aruco.DetectorParameters())
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = detector.detectMarkers(gray)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2).astype(np.float32) for i, c in zip(ids.reshape(-1), corners)}


def homography_from_markers(layout: Layout, found: dict[int, np.ndarray]) -> tuple[np.ndarray, list[int], float]:
    """The image→mat homography from the layout's markers that were found; returns it, the ids used,
    and the mean reprojection error in mm. Raises CalibrationError when no layout marker is seen."""
    used = [mid for mid in sorted(found) if layout.marker(mid) is not None]
    if not used:
        raise CalibrationError(f"none of the mat's markers ({', '.join(str(m.id) for m in layout.markers)}) is visible")
    image_pts = np.concatenate([found[m] for m in used])
    mat_pts = np.concatenate([layout.marker(m).corners() for m in used])
    method = cv2.RANSAC if len(used) >= 2 else 0
    matrix, _ = cv2.findHomography(image_pts, mat_pts, method, 3.0)
    if matrix is None:
        raise CalibrationError("the visible markers do not fix a perspective (are they all in a line?)")
    projected = cv2.perspectiveTransform(image_pts.reshape(-1, 1, 2), matrix).reshape(-1, 2)
    error = float(np.linalg.norm(projected - mat_pts, axis=1).mean())
    return matrix, used, error


@dataclass
class LensCalibration:
    camera_matrix: np.ndarray
    distortion: np.ndarray
    image_size: tuple[int, int]
    error: float = 0.0
    camera: str = ""

    def undistort_points(self, points: np.ndarray) -> np.ndarray:
        pts = np.asarray(points, np.float32).reshape(-1, 1, 2)
        if not len(pts):
            return pts.reshape(-1, 2)
        return cv2.undistortPoints(pts, self.camera_matrix, self.distortion, P=self.camera_matrix).reshape(-1, 2)

    def to_json(self) -> dict:
        return {"camera": self.camera, "image_size": list(self.image_size), "rms_error_px": round(self.error, 4),
                "camera_matrix": self.camera_matrix.tolist(), "distortion": self.distortion.reshape(-1).tolist()}

    def save(self, path: "str | pathlib.Path") -> None:
        pathlib.Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n")

    @classmethod
    def load(cls, path: "str | pathlib.Path") -> "LensCalibration":
        path = pathlib.Path(path)
        try:
            data = json.loads(path.read_text())
            matrix = np.asarray(data["camera_matrix"], np.float64).reshape(3, 3)
            distortion = np.asarray(data["distortion"], np.float64).reshape(1, -1)
            size = tuple(int(v) for v in data["image_size"])
        except FileNotFoundError:
            raise CalibrationError(f"no lens calibration file {path}") from None
        except (ValueError, KeyError, TypeError) as error:
            raise CalibrationError(f"{path} is not a lens calibration ({error})") from None
        return cls(matrix, distortion, size, float(data.get("rms_error_px", 0.0)), str(data.get("camera", "")))


def calibrate_lens(frames, board=None, camera: str = "", min_views: int = 4) -> LensCalibration:
    """Lens calibration from several views of a ChArUco board (``charuco_board()``)."""
    board = board or charuco_board()
    detector = cv2.aruco.CharucoDetector(board)
    object_points, image_points, size = [], [], None
    for frame in frames:
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        size = gray.shape[::-1]
        corners, ids, _, _ = detector.detectBoard(gray)
        if ids is None or len(ids) < 6:
            continue
        obj, img = board.matchImagePoints(corners, ids)
        if obj is None or len(obj) < 6:
            continue
        object_points.append(obj.astype(np.float32))
        image_points.append(img.astype(np.float32))
    if len(object_points) < min_views:
        raise CalibrationError(f"the board was found in {len(object_points)} view(s); at least {min_views} are needed")
    error, matrix, distortion, _, _ = cv2.calibrateCamera(object_points, image_points, size, None, None)
    return LensCalibration(matrix, distortion, tuple(size), float(error), camera)


# A re-found mat's markers are looked for first in windows round where they were: each window is the
# marker's box grown by this many of its diagonals on every side (MatLocator.find_markers), and one
# narrower than MIN_MARKER_WINDOW_PX (a marker off the frame) is not searched.
MARKER_WINDOW_MARGIN = 1.0
MIN_MARKER_WINDOW_PX = 16


class MatLocator:
    """Keeps the current image→mat homography for a stream of frames."""

    def __init__(self, layout: Layout, refresh_seconds: float = 3.0, lens: LensCalibration | None = None,
                 min_markers: int = 1) -> None:
        if refresh_seconds <= 0:
            raise ValueError("refresh_seconds must be positive")
        self.layout = layout
        self.refresh_seconds = refresh_seconds
        self.lens = lens
        self.min_markers = min_markers
        self.detector = cv2.aruco.ArucoDetector(aruco_dictionary(layout.dictionary), cv2.aruco.DetectorParameters())
        self.matrix: np.ndarray | None = None
        self.inverse: np.ndarray | None = None
        self.markers_used: list[int] = []
        self.error_mm = float("nan")
        self.found_at: float | None = None
        self._tried_at: float | None = None
        self.refreshes = 0
        self.last_look_found = False   # whether the last look at a frame found the mat (a hand may hide its markers)

    def __getstate__(self) -> dict:
        """Everything but the OpenCV detector (it cannot be pickled and holds nothing of the mat): a table's
        pipeline is saved with its feed's lease, for the server that takes the feed over."""
        return {key: value for key, value in self.__dict__.items() if key != "detector"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.detector = cv2.aruco.ArucoDetector(aruco_dictionary(self.layout.dictionary), cv2.aruco.DetectorParameters())

    @property
    def ready(self) -> bool:
        return self.matrix is not None

    def update(self, time: float, frame: np.ndarray, force: bool = False) -> bool:
        """Re-finds the mat when due (or when not yet found); True if the homography changed."""
        if not (force or self.due(time)):
            return False
        return self.update_found(time, self.find_markers(frame), force=True)

    def find_markers(self, frame: np.ndarray) -> dict[int, np.ndarray]:
        """The mat's markers in ``frame``. Once the mat is known, each marker is looked for first in a window
        round where the last homography puts it; the whole frame is searched only when a marker the last
        homography used is not found there (the camera moved, a hand covers it). The windows give the
        markers the whole frame gives (the detector's thresholds and corner refinement are local: the same
        corners to the pixel on the three demo recordings' stills) at a quarter of the pixels: a server
        re-finds the mat of every venue table every few seconds (benchmarks/load_venue.py)."""
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        if self.inverse is not None and self.markers_used:
            near = self._markers_near_last(gray)
            if set(self.markers_used) <= set(near):
                return near
        return detect_markers(gray, detector=self.detector)

    def _markers_near_last(self, gray: np.ndarray) -> dict[int, np.ndarray]:
        height, width = gray.shape[:2]
        found: dict[int, np.ndarray] = {}
        for marker in self.layout.markers:
            corners = self.to_image(marker.corners())
            if not np.isfinite(corners).all():
                continue
            # a marker's diagonal of room on every side: its white quiet zone and a camera nudged by that much
            margin = float(np.linalg.norm(corners[0] - corners[2])) * MARKER_WINDOW_MARGIN
            x1, y1 = (int(max(0.0, v)) for v in corners.min(0) - margin)
            x2, y2 = (int(min(limit, v)) for v, limit in zip(corners.max(0) + margin, (width, height)))
            if x2 - x1 < MIN_MARKER_WINDOW_PX or y2 - y1 < MIN_MARKER_WINDOW_PX:
                continue   # off the frame
            for marker_id, points in detect_markers(gray[y1:y2, x1:x2], detector=self.detector).items():
                found.setdefault(marker_id, points + np.array([x1, y1], np.float32))
        return found

    def due(self, time: float) -> bool:
        """Whether the mat is to be looked for again now (not found yet, or ``refresh_seconds`` since the last look)."""
        return self.matrix is None or self._tried_at is None or time - self._tried_at >= self.refresh_seconds

    def update_found(self, time: float, found: dict[int, np.ndarray], force: bool = False) -> bool:
        """As :meth:`update`, from markers already found in the frame (marker id → its four corners in
        pixels, ``detect_markers``' order): a reader elsewhere found them in its own frame."""
        if not (force or self.due(time)):
            return False
        self._tried_at = time
        self.last_look_found = False
        if self.lens is not None:
            found = {k: self.lens.undistort_points(v) for k, v in found.items()}
        known = [k for k in found if self.layout.marker(k) is not None]
        if len(known) < self.min_markers:
            return False
        try:
            matrix, used, error = homography_from_markers(self.layout, found)
            inverse = np.linalg.inv(matrix)
        except (CalibrationError, cv2.error, np.linalg.LinAlgError):
            return False   # markers that fix no perspective (degenerate corners): the last good homography stands
        if not (np.isfinite(matrix).all() and np.isfinite(inverse).all()):
            return False
        self.matrix, self.inverse = matrix, inverse
        self.markers_used, self.error_mm, self.found_at = used, error, time
        self.refreshes += 1
        self.last_look_found = True
        return True

    def to_mat(self, points_px: np.ndarray) -> np.ndarray:
        if self.matrix is None:
            raise CalibrationError("the mat has not been found yet")
        pts = np.asarray(points_px, np.float32).reshape(-1, 2)
        if not len(pts):
            return pts
        if self.lens is not None:
            pts = self.lens.undistort_points(pts)
        return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), self.matrix).reshape(-1, 2)

    def to_image(self, points_mm: np.ndarray) -> np.ndarray:
        if self.inverse is None:
            raise CalibrationError("the mat has not been found yet")
        pts = np.asarray(points_mm, np.float32).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.inverse).reshape(-1, 2)

    def mm_per_pixel(self, at_px: tuple[float, float]) -> float:
        """The local scale near a pixel: how many mat millimetres one pixel spans."""
        x, y = at_px
        a, b, c = self.to_mat(np.array([[x, y], [x + 1, y], [x, y + 1]], np.float32))
        return float((np.linalg.norm(b - a) + np.linalg.norm(c - a)) / 2)
