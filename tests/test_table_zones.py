"""Zone mapping: mat zones by name, Chosen rings by distance, the floating Kingdoms lattice."""
import math

import pytest

from calibration.layouts import layout_for
from companion.table.zones import GridZones, MatZones, lattice_angle, parse_cell


def test_dungeon_points_land_in_the_smallest_named_zone():
    layout = layout_for("dungeon", 3)
    zones = MatZones(layout)
    for name in ("dungeon", "marker", "exile", "battlefield", "battlefield:P2", "rest:P1", "treasures:P3", "trophies:P2"):
        assert zones(layout.zone(name).centroid()) == name
    assert zones((layout.width / 2, layout.height / 2 - 20)) == "battlefield"
    assert zones((layout.width + 500, 10)) is None          # far off the mat
    assert zones((layout.width / 2, 460)) is None            # on the mat, between zones


def test_warehouses_keep_treasures_on_the_players_left():
    layout = layout_for("dungeon", 4)
    # seat 1 (bottom) faces up the sheet: their left is smaller x
    assert layout.zone("treasures:P1").centroid()[0] < layout.zone("trophies:P1").centroid()[0]
    # seat 3 (top) faces down the sheet: their left is larger x
    assert layout.zone("treasures:P3").centroid()[0] > layout.zone("trophies:P3").centroid()[0]
    # seat 2 (left edge) faces right: their left is smaller y; seat 4 (right edge) the opposite
    assert layout.zone("treasures:P2").centroid()[1] < layout.zone("trophies:P2").centroid()[1]
    assert layout.zone("treasures:P4").centroid()[1] > layout.zone("trophies:P4").centroid()[1]


def test_chosen_rings_by_distance_and_player_areas_first():
    layout = layout_for("chosen", 4)
    zones = MatZones(layout)
    cx, cy = layout.rings.center
    r = layout.rings
    assert zones((cx, cy)) == "vault"
    assert zones((cx + r.vault + 1, cy)) == "step2"
    assert zones((cx, cy - (r.inner + r.outer) / 2)) == "step1"
    assert zones((cx - r.outer - 5, cy - r.outer * 0.9)) == "departure"
    assert zones(layout.zone("area:P3").centroid()) == "area:P3"
    assert zones.player_facing((cx, cy + r.outer + 10)) == 1   # towards the bottom seat
    assert zones.player_facing((cx - r.outer - 10, cy)) == 2   # towards the left seat


def lattice_points(angle_deg, spacing, cells, origin=(300.0, 200.0)):
    a = math.radians(angle_deg)
    points = []
    for row, col in cells:
        u, v = (col - 1) * spacing[0], (row - 1) * spacing[1]
        points.append((origin[0] + u * math.cos(a) - v * math.sin(a), origin[1] + u * math.sin(a) + v * math.cos(a)))
    return points


@pytest.mark.parametrize("angle", [0.0, 12.0, -30.0, 40.0])
def test_the_lattice_angle_comes_from_the_cards(angle):
    cells = [(1, 1), (1, 2), (2, 1), (2, 2), (3, 3)]
    points = lattice_points(angle, (68.0, 93.0), cells)
    assert math.degrees(lattice_angle(points, (68.0, 93.0))) == pytest.approx(angle, abs=0.5)
    assert lattice_angle(points[:1], (68.0, 93.0)) is None
    assert lattice_angle([(0, 0), (300, 300)], (68.0, 93.0)) is None   # too far apart to be neighbours


@pytest.mark.parametrize("angle", [0.0, 12.0, -30.0])
def test_a_diagonal_neighbour_laid_a_little_close_does_not_tilt_the_lattice(angle):
    spacing = (68.5, 93.9)
    # side by side, and one cell down and across from the second laid 6 mm short of the diagonal's 116 mm
    # (hands are not precise): within 20 % of the rows' spacing, but a diagonal, not a column neighbour
    side_by_side = lattice_points(angle, spacing, [(2, 1), (2, 2)])
    a = math.radians(angle)
    toward = (65.9, -87.8)
    across = (side_by_side[1][0] + toward[0] * math.cos(a) - toward[1] * math.sin(a),
              side_by_side[1][1] + toward[0] * math.sin(a) + toward[1] * math.cos(a))
    assert math.hypot(across[0] - side_by_side[1][0], across[1] - side_by_side[1][1]) < 1.2 * spacing[1]
    assert math.degrees(lattice_angle([*side_by_side, across], spacing)) == pytest.approx(angle, abs=0.5)


@pytest.mark.parametrize("angle", [0.0, 15.0, -20.0])
def test_the_floating_grid_names_cells_from_the_first_card(angle):
    spacing = (68.0, 93.0)
    cells = [(1, 1), (1, 2), (2, 2), (3, 1), (2, -1), (0, 3)]
    points = lattice_points(angle, spacing, cells)
    grid = GridZones(spacing=spacing, first_cell=(6, 6))
    named = []
    for n, point in enumerate(points):
        grid.observe(points[:n + 1])
        jittered = (point[0] + 4, point[1] - 3)   # hands are not precise
        named.append(parse_cell(grid(jittered)))
    assert named == [(r + 5, c + 5) for r, c in cells]


def test_grid_without_a_scale_names_nothing_until_it_knows_the_card_size():
    grid = GridZones(spacing=None)
    assert grid((10, 10)) is None
    grid.observe([(10, 10)], card_size=(50, 70))
    assert grid((10, 10)) == "1,1"
    assert grid((10 + 54, 10)) == "1,2"
    with pytest.raises(ValueError):
        parse_cell("a,b")
