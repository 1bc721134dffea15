"""The ArUco markers shared by the printed mats (:mod:`calibration.mats`) and the code that finds them
(:mod:`calibration.homography`): dictionaries by name, single marker images and the ChArUco board.

Both sides import from here, so neither needs the other.
"""
from __future__ import annotations

import cv2
import numpy as np


def aruco_dictionary(name: str):
    try:
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
    except AttributeError:
        raise ValueError(f"unknown ArUco dictionary {name!r} (e.g. DICT_5X5_100)") from None


def marker_image(dictionary: str, marker_id: int, pixels: int) -> np.ndarray:
    """One marker as a grayscale image drawn by OpenCV, black border included."""
    return cv2.aruco.generateImageMarker(aruco_dictionary(dictionary), int(marker_id), int(pixels))


def charuco_board(squares_x: int = 7, squares_y: int = 5, square_mm: float = 30.0, marker_mm: float = 22.0,
                  dictionary: str = "DICT_5X5_100"):
    # ids from 50 up, so the board never collides with the mats' markers (0-49)
    ids = np.arange(50, 50 + (squares_x * squares_y) // 2, dtype=np.int32)
    return cv2.aruco.CharucoBoard((squares_x, squares_y), square_mm, marker_mm, aruco_dictionary(dictionary), ids)
