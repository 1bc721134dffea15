"""Calibration: layout files, printed mats, the ArUco homography and ChArUco lens calibration."""
import json
import re

import cv2
import numpy as np
import pytest

from calibration.homography import (CalibrationError, LensCalibration, MatLocator, calibrate_lens, charuco_board,
                                    detect_markers, homography_from_markers)
from calibration.layouts import LayoutError, layout_for, layout_from_dict, load_layout, shipped_layouts
from calibration.mats import render_mat, sheet_plan, write_mat_pdf


def test_every_shipped_layout_loads_and_its_markers_do_not_collide_with_zones():
    names = shipped_layouts()
    assert {"kingdoms", "dungeon-3p", "dungeon-4p", "chosen-3p", "chosen-4p"} <= set(names)
    for name in names:
        layout = load_layout(name)
        for marker in layout.markers:
            for corner in marker.corners():
                assert layout.zone_at(corner) is None, f"{name}: marker {marker.id} lies in a zone"
    dungeon = layout_for("dungeon", 4)
    assert {f"battlefield:P{i}" for i in range(1, 5)} <= {z.name for z in dungeon.zones}
    assert {"dungeon", "marker", "exile", "battlefield"} <= {z.name for z in dungeon.zones}
    # the doubling marker lies left of the pile
    assert dungeon.zone("marker").centroid()[0] < dungeon.zone("dungeon").centroid()[0]


def good_layout():
    return {"name": "mine", "game": "dungeon", "players": 2, "size_mm": [300, 200],
            "markers": {"size_mm": 30, "items": [{"id": 1, "x": 5, "y": 5}, {"id": 2, "x": 265, "y": 165}]},
            "zones": [{"name": "pile", "rect": [100, 50, 180, 150]},
                      {"name": "coin", "shape": "circle", "center": [240, 60], "radius": 20}]}


def test_a_table_can_draw_its_own_layout_and_bad_ones_are_explained(tmp_path):
    layout = layout_from_dict(good_layout())
    assert layout.zone_at((120, 60)).name == "pile" and layout.zone_at((245, 65)).name == "coin"
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(good_layout()))
    assert load_layout(path).name == "mine"
    broken = [
        ({"markers": {"size_mm": 30, "items": [{"id": 1, "x": 5, "y": 5}, {"id": 1, "x": 50, "y": 5}]}}, "distinct"),
        ({"markers": {"size_mm": 30, "items": [{"id": 1, "x": 290, "y": 5}]}}, "outside"),
        ({"zones": [{"name": "a", "shape": "blob"}]}, "unknown shape"),
        ({"zones": [{"name": "a", "rect": [10, 10, 5, 5]}]}, "empty rectangle"),
        ({"zones": [{"name": "a", "rect": [0, 0, 5, 5]}, {"name": "a", "rect": [0, 0, 5, 5]}]}, "distinct"),
        ({"size_mm": "big"}, "not a mat layout"),
    ]
    for change, message in broken:
        with pytest.raises(LayoutError, match=message):
            layout_from_dict({**good_layout(), **change})
    with pytest.raises(LayoutError, match="shipped layouts are"):
        load_layout("no-such-mat")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(LayoutError, match="not valid JSON"):
        load_layout(tmp_path / "bad.json")


def test_pdf_mats_are_true_scale_and_tile_when_larger_than_the_paper(tmp_path):
    kingdoms = layout_for("kingdoms")
    page, offsets = sheet_plan(kingdoms, "A3")
    assert sorted(page) == [297.0, 420.0] and len(offsets) > 1     # 520 × 600 mm does not fit one A3
    small = layout_from_dict({**good_layout(), "size_mm": [250, 180],
                              "markers": {"size_mm": 30, "items": [{"id": 1, "x": 5, "y": 5}]}})
    page, offsets = sheet_plan(small, "A4")
    assert len(offsets) == 1 and page == (297.0, 210.0)             # one landscape sheet, mat centred
    assert offsets[0] == pytest.approx((-(297 - 250) / 2, -(210 - 180) / 2))
    out = tmp_path / "mat.pdf"
    pages = write_mat_pdf(layout_for("dungeon", 3), out, "A4-tiled")
    data = out.read_bytes()
    assert data.startswith(b"%PDF") and pages > 1
    assert len(re.findall(rb"/Type /Page\b(?!s)", data)) == pages
    assert data.count(b"/Subtype /Image") >= 4                     # the four markers, drawn by OpenCV
    # page size in points: A4 landscape or portrait at 72 points per inch
    assert b"841.8898" in data and b"595.2756" in data
    with pytest.raises(ValueError, match="unknown paper"):
        sheet_plan(small, "Letter")


def warp(image, matrix, size):
    return cv2.warpPerspective(image, matrix, size, borderValue=(60, 90, 50))


def test_the_homography_maps_pixels_back_to_mat_millimetres():
    layout = layout_for("chosen", 3)
    px_per_mm = 1.2
    mat = render_mat(layout, px_per_mm)
    h, w = mat.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[90, 40], [860, 70], [930, 690], [30, 650]])
    camera = cv2.getPerspectiveTransform(src, dst)
    frame = warp(mat, camera, (960, 720))
    found = detect_markers(frame, layout.dictionary)
    assert set(found) == {m.id for m in layout.markers}
    matrix, used, error = homography_from_markers(layout, found)
    assert error < 1.5
    # a point anywhere on the mat comes back within a couple of millimetres
    for point_mm in ((400, 380), (100, 600), (700, 120)):
        pixel = cv2.perspectiveTransform(np.float32([[point_mm]]) * px_per_mm, camera)[0, 0]
        back = cv2.perspectiveTransform(np.float32([[pixel]]), matrix)[0, 0]
        assert np.linalg.norm(back - np.float32(point_mm)) < 2.5
    with pytest.raises(CalibrationError, match="none of the mat's markers"):
        homography_from_markers(layout, {})


def test_the_locator_recovers_when_the_camera_is_bumped_and_keeps_the_last_view_when_covered():
    layout = layout_for("dungeon", 3)
    mat = render_mat(layout, 1.2)
    h, w = mat.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    first = cv2.getPerspectiveTransform(src, np.float32([[60, 40], [880, 60], [920, 690], [30, 660]]))
    bumped = cv2.getPerspectiveTransform(src, np.float32([[120, 80], [900, 30], [940, 640], [90, 700]]))
    locator = MatLocator(layout, refresh_seconds=2.0)
    assert locator.update(0.0, warp(mat, first, (960, 720)))
    centre_first = locator.to_image([[350, 310]])[0]
    # within the refresh time nothing is re-detected, even if the camera moved
    assert not locator.update(1.0, warp(mat, bumped, (960, 720)))
    # a covered view (no markers) keeps the last homography
    assert not locator.update(2.5, np.full((720, 960, 3), 80, np.uint8))
    assert np.allclose(locator.to_image([[350, 310]])[0], centre_first)
    assert locator.update(5.0, warp(mat, bumped, (960, 720)))
    expected = cv2.perspectiveTransform(np.float32([[[350 * 1.2, 310 * 1.2]]]), bumped)[0, 0]
    assert np.linalg.norm(locator.to_image([[350, 310]])[0] - expected) < 3
    assert locator.refreshes == 2
    assert 0.5 < locator.mm_per_pixel((480, 360)) < 1.5
    with pytest.raises(CalibrationError):
        MatLocator(layout).to_mat([[1, 2]])


class CountingDetector:
    """An ArucoDetector that notes the size of every image it searches."""

    def __init__(self, detector) -> None:
        self.detector, self.searched = detector, []

    def detectMarkers(self, image):
        self.searched.append(image.shape[:2])
        return self.detector.detectMarkers(image)


def test_a_found_mat_is_refound_in_windows_round_its_markers_with_the_whole_frames_corners():
    layout = layout_for("kingdoms", 2)
    mat = render_mat(layout, 1.2)
    h, w = mat.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    first = cv2.getPerspectiveTransform(src, np.float32([[60, 40], [880, 60], [920, 690], [30, 660]]))
    nudged = cv2.getPerspectiveTransform(src, np.float32([[66, 44], [884, 63], [925, 694], [35, 664]]))
    locator = MatLocator(layout, refresh_seconds=1.0)
    locator.detector = CountingDetector(locator.detector)
    assert locator.update(0.0, warp(mat, first, (960, 720)))
    assert locator.detector.searched == [(720, 960)]          # not found yet: the whole frame
    frame = warp(mat, nudged, (960, 720))
    locator.detector.searched.clear()
    windows = locator.find_markers(frame)
    whole = detect_markers(frame, layout.dictionary)
    assert set(windows) == set(whole) == {m.id for m in layout.markers}
    for marker_id, corners in whole.items():
        assert np.allclose(windows[marker_id], corners, atol=0.01)
    searched = locator.detector.searched
    assert len(searched) == len(layout.markers) and sum(a * b for a, b in searched) < 0.25 * 720 * 960
    # a marker the last view used that is not where it was (the camera moved far): the whole frame again
    moved = cv2.getPerspectiveTransform(src, np.float32([[260, 200], [940, 210], [950, 700], [250, 690]]))
    locator.detector.searched.clear()
    assert set(locator.find_markers(warp(mat, moved, (960, 720)))) == {m.id for m in layout.markers}
    assert locator.detector.searched[-1] == (720, 960)


def test_lens_calibration_from_charuco_views_round_trips_through_json(tmp_path):
    board = charuco_board()                               # 7 × 5 squares of 30 mm: 210 × 150 mm
    margin, px_per_mm = 40, 1400 / 210
    image = cv2.cvtColor(board.generateImage((1400 + 2 * margin, 1000 + 2 * margin), marginSize=margin), cv2.COLOR_GRAY2BGR)
    # film the board through a known pinhole camera from several angles
    focal = 1000.0
    camera = np.array([[focal, 0, 640], [0, focal, 480], [0, 0, 1]])
    board_px_to_mm = np.array([[1 / px_per_mm, 0, -margin / px_per_mm], [0, 1 / px_per_mm, -margin / px_per_mm], [0, 0, 1]])
    views = []
    for rx, ry, rz in ((0.25, 0.1, 0.0), (-0.2, 0.3, 0.1), (0.1, -0.35, -0.05), (0.35, 0.0, 0.2), (-0.3, -0.2, 0.0)):
        rotation, _ = cv2.Rodrigues(np.array([rx, ry, rz]))
        translation = rotation @ np.array([-105.0, -75.0, 0.0]) + np.array([0.0, 0.0, 420.0])
        plane_to_image = camera @ np.column_stack([rotation[:, 0], rotation[:, 1], translation])
        views.append(cv2.warpPerspective(image, plane_to_image @ board_px_to_mm, (1280, 960), borderValue=(255, 255, 255)))
    lens = calibrate_lens(views, board, camera="test")
    assert lens.error < 1.0
    assert lens.camera_matrix[0, 0] == pytest.approx(focal, rel=0.05)
    assert lens.camera_matrix[1, 2] == pytest.approx(480, abs=40)
    assert lens.image_size == (1280, 960)
    path = tmp_path / "camera.json"
    lens.save(path)
    again = LensCalibration.load(path)
    assert np.allclose(again.camera_matrix, lens.camera_matrix)
    points = np.float32([[640, 480], [100, 100]])
    assert again.undistort_points(points).shape == (2, 2)
    with pytest.raises(CalibrationError, match="at least"):
        calibrate_lens(views[:2], board)
    with pytest.raises(CalibrationError, match="no lens calibration"):
        LensCalibration.load(tmp_path / "missing.json")
