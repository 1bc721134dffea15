"""Synthetic table recordings: a seeded game played on the printed mat by a hand, seen by a camera.

A recording is a *script* of physical actions (place, turn, move, remove, a hand passing over) on a
mat drawn from its layout file, with cards from the project's own deck. The renderer plays the
script through a tilted camera with noise and blur and writes the frames (a JPEG folder or a video)
plus ``truth.json``: the setup, the engine events the table implies and the final engine view the
pipeline must reach.

    rec = build_scenario("kingdoms", seed=1)
    write_recording(rec, "out/kingdoms-1")     # frames/ or recording.mp4, and truth.json
"""
from __future__ import annotations

import dataclasses
import gzip
import json
import math
import pathlib
import random
from dataclasses import dataclass, field
from typing import Iterable, Iterator

import cv2
import numpy as np

from calibration.layouts import CARD_MM, Layout, layout_for
from calibration.mats import render_mat
from companion.games import get_engine
from companion.synthetic.deck import DrawnDeck, card_mask

FELT_BGR = (58, 92, 52)     # a green felt table: nothing like skin
SKIN_BGR = (118, 158, 214)


# ---------------------------------------------------------------------------------- script

@dataclass
class Action:
    kind: str                                   # place | turn | move | remove | pass | pause
    ids: tuple[int, ...] = ()
    code: str = ""                              # place: the card's face
    positions: tuple[tuple[float, float], ...] = ()  # place / move: where (mat mm)
    angles: tuple[float, ...] = ()
    face_up: bool = True                        # place: how it lands
    seconds: float = 0.0                        # pause
    note: str = ""


@dataclass
class Scenario:
    game: str
    seed: int
    layout: Layout
    setup: dict
    setup_events: list[dict]
    actions: list[Action]
    events: list[dict]                          # the engine events the table implies, in order
    description: str = ""
    extra: dict = field(default_factory=dict)

    def final_view(self) -> dict:
        engine = get_engine(self.game)
        state = engine.new_game(self.setup)
        for event in self.setup_events + self.events:
            state = engine.apply(state, event)
        return engine.view(state)


class _Script:
    """Helper that hands out card ids and jitters positions the way hands do."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.actions: list[Action] = []
        self.next_id = 1
        self.where: dict[int, tuple[float, float]] = {}

    def jitter(self, point, mm=3.0) -> tuple[float, float]:
        return (point[0] + self.rng.uniform(-mm, mm), point[1] + self.rng.uniform(-mm, mm))

    def place(self, code: str, point, face_up=True, angle=None, note="") -> int:
        cid = self.next_id
        self.next_id += 1
        pos = self.jitter(point)
        angle = self.rng.uniform(-4, 4) if angle is None else angle
        self.actions.append(Action("place", (cid,), code, (pos,), (angle,), face_up, note=note))
        self.where[cid] = pos
        return cid

    def turn(self, cid: int, note="") -> None:
        self.actions.append(Action("turn", (cid,), note=note))

    def move(self, ids, points, angles=None, note="") -> None:
        points = tuple(self.jitter(p, 2.0) for p in points)
        angles = tuple(angles) if angles else tuple(self.rng.uniform(-4, 4) for _ in ids)
        self.actions.append(Action("move", tuple(ids), positions=points, angles=angles, note=note))
        for cid, p in zip(ids, points):
            self.where[cid] = p

    def remove(self, ids, note="") -> None:
        self.actions.append(Action("remove", tuple(ids), note=note))

    def pass_over(self, point, note="a hand passes over the table") -> None:
        self.actions.append(Action("pass", positions=(tuple(point),), note=note))

    def pause(self, seconds: float) -> None:
        self.actions.append(Action("pause", seconds=seconds))


# ---------------------------------------------------------------------------------- scenarios

def kingdoms_scenario(seed: int) -> Scenario:
    """Two players fill the 6 × 5 grid in a random legal order; the full grid scores round 1."""
    from companion.games.kingdoms.engine import ENGINE as engine  # the truth comes from the engine itself

    rng = random.Random(seed)
    layout = layout_for("kingdoms")
    setup = {"players": [{"name": "Red", "suits": ["H", "D"]}, {"name": "Black", "suits": ["S", "C"]}]}
    territory = [f"{r}{s}" for s in "HD" for r in ("A", "2", "3", "4", "5", "6")] + \
                [f"{r}S" for r in ("A", "2", "3", "4", "5", "6")] + ["9S", "BJ", "SJ", "SJ"]
    castles = ["10H", "10D", rng.choice(["JH", "JD"]), rng.choice(["QH", "KD"]),
               "10S", "10C", rng.choice(["JS", "JC"]), rng.choice(["QC", "KS"])]
    cards = territory + castles
    rng.shuffle(cards)
    rows, cols = 5, 6
    cells = [(r, c) for r in range(1, rows + 1) for c in range(1, cols + 1)]
    rng.shuffle(cells)
    spacing = (CARD_MM[0] + 5.0, CARD_MM[1] + 5.0)
    cx, cy = layout.width / 2, layout.height / 2

    def point(cell):
        return (cx + (cell[1] - (cols + 1) / 2) * spacing[0], cy + (cell[0] - (rows + 1) / 2) * spacing[1])

    script = _Script(rng)
    state = engine.new_game(setup)
    events: list[dict] = []
    first = cells[0]
    ids: dict[tuple[int, int], int] = {}
    for n, (cell, code) in enumerate(zip(cells, cards)):
        canvas = [cell[0] - first[0] + 6, cell[1] - first[1] + 6]
        # would the engine turn it face down? (asked without auto-scoring, so the 30th card can be seen too)
        quiet = dataclasses.replace(state, options=dataclasses.replace(state.options, auto_score=False))
        trial = engine.apply(quiet, {"type": "place", "cell": canvas, "card": code})
        down = trial.tiles[tuple(canvas)].face_down
        event = {"type": "place", "cell": canvas, "card": "BACK" if down else code}
        face_down_before = {c for c, t in state.tiles.items() if t.face_down}
        state = engine.apply(state, event)
        events.append(event)
        ids[cell] = script.place(code, point(cell), face_up=not down,
                                 note=f"{code} {'face down ' if down else ''}at row {cell[0]}, column {cell[1]}")
        if n < len(cells) - 1:
            # resources the dragon now reaches are turned face down by the players
            for c, tile in state.tiles.items():
                if tile.face_down and c not in face_down_before and c != tuple(canvas):
                    grid_cell = (c[0] - 6 + first[0], c[1] - 6 + first[1])
                    script.turn(ids[grid_cell], note=f"turned down: the dragon reaches row {grid_cell[0]}, column {grid_cell[1]}")
        if n == 9:
            script.pass_over(point((3, 3)))
    script.pause(1.5)
    return Scenario("kingdoms", seed, layout, setup, [], script.actions, events,
                    "two players fill the grid; the 30th card scores round 1")


def dungeon_scenario(seed: int) -> Scenario:
    """Three encounters: a low enemy becomes the doubling marker, a treasure contest, a doubled enemy beats the players."""
    from companion.games.dungeon.rules import level

    rng = random.Random(seed)
    layout = layout_for("dungeon", 3)
    names = ["Ann", "Bob", "Cy"]
    setup = {"players": names}
    guilds = ["S", "D", "C"]
    setup_events = [{"type": "choose_guild", "player": n, "guild": g} for n, g in zip(names, guilds)]
    script = _Script(rng)
    events: list[dict] = []
    suits = "SDC"
    pool = [f"{r}{s}" for s in suits for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J")]
    rng.shuffle(pool)

    def centre(zone, dx=0.0, dy=0.0):
        x, y = layout.zone(zone).centroid()
        return (x + dx, y + dy)

    low = rng.choice(["2S", "3S", "2D", "3C"])
    treasure = rng.choice(["5H", "7H", "9H"])
    big = rng.choice(["10S", "JD", "10C", "JS"])
    pool = [c for c in pool if c not in (low, big)]

    def pick(count, allowed):
        chosen = []
        for code in list(pool):
            if len(chosen) < count and allowed(code, chosen):
                chosen.append(code)
                pool.remove(code)
        return chosen

    # fight 1: anything beats a level-1-3 enemy
    first = pick(3, lambda c, got: True)
    # the contest: three different powers (a clear winner), no thief matching the treasure's level
    second = pick(3, lambda c, got: level(c) not in [level(g) for g in got]
                  and not (c.endswith("C") and level(c) == level(treasure)))
    # fight 3: small mercenaries against a doubled 10 or J: the players lose
    third = pick(3, lambda c, got: level(c) <= 5)
    rest_slots = {n: 0 for n in names}
    rest_ids: dict[str, list[int]] = {n: [] for n in names}

    def commit_round(kind_note: str, strengths: list[str]):
        slots = []
        for seat, (name, code) in enumerate(zip(names, strengths)):
            cid = script.place(code, centre(f"battlefield:P{seat + 1}"), face_up=False, note=f"{name} commits face down")
            events.append({"type": "commit", "player": name})
            slots.append(cid)
        for seat, (name, code, cid) in enumerate(zip(names, strengths, slots)):
            script.turn(cid, note=f"{name} turns up {code}")
            events.append({"type": "turn_up", "player": name, "card": code})
        events.append({"type": "resolve"})
        return slots

    def to_rest(slots):
        for seat, (name, cid) in enumerate(zip(names, slots)):
            zone = layout.zone(f"rest:P{seat + 1}")
            x1, y1 = zone.points[0]
            x2, y2 = zone.points[2]
            k = rest_slots[name]
            rest_slots[name] += 1
            horizontal = (x2 - x1) > (y2 - y1)
            spot = ((x1 + (x2 - x1) * (0.27 + 0.46 * k), (y1 + y2) / 2) if horizontal
                    else ((x1 + x2) / 2, y1 + (y2 - y1) * (0.27 + 0.46 * k)))
            script.move([cid], [spot], [0.0 if horizontal else 90.0], note=f"{name}'s mercenary rests")
            rest_ids[name].append(cid)

    # encounter 1: a low enemy; the players win; it becomes the doubling marker
    enemy = script.place(low, centre("battlefield"), note=f"Ann reveals {low}")
    events.append({"type": "reveal", "card": low})
    slots = commit_round("fight", first)
    script.move([enemy], [centre("marker")], [90.0], note=f"{low} lies sideways as the doubling marker")
    to_rest(slots)
    # encounter 2: a treasure contest (the marker waits)
    prize = script.place(treasure, centre("battlefield"), note=f"Bob reveals the treasure {treasure}")
    events.append({"type": "reveal", "card": treasure})
    slots = commit_round("contest", second)
    script.pass_over(centre("battlefield", 0, 40))
    script.remove([prize], note="the winner takes the treasure to the warehouse")
    to_rest(slots)
    # encounter 3: a big enemy, doubled by the marker: the players lose, everything is exiled
    script.place(big, centre("battlefield"), note=f"Cy reveals {big}: the marker multiplies it")
    events.append({"type": "reveal", "card": big})
    commit_round("fight", third)
    script.pause(1.5)
    return Scenario("dungeon", seed, layout, setup, setup_events, script.actions, events,
                    "three encounters: the doubling marker, a treasure contest, a doubled enemy")


def chosen_scenario(seed: int) -> Scenario:
    """Two players: chips (one seen, one unseen), a chosen sent with medicine, walked to the vault and judged."""
    rng = random.Random(seed)
    layout = layout_for("chosen", 2)
    names = ["Ann", "Bob"]
    setup = {"players": names}
    script = _Script(rng)
    events: list[dict] = []
    red = [f"{r}{s}" for s in "HD" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")]
    black = [f"{r}{s}" for s in "SC" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")]
    rng.shuffle(red)
    rng.shuffle(black)
    chosen = rng.choice(["JH", "QS", "JD", "QC", "BJ"])
    rings = layout.rings
    area = {0: layout.zone("area:P1"), 1: layout.zone("area:P2")}

    def in_area(seat, k):
        x1, y1 = area[seat].points[0]
        x2, y2 = area[seat].points[2]
        return (x1 + (x2 - x1) * (0.2 + 0.2 * k), (y1 + y2) / 2)

    seen_chip, unseen_chip, second_seen = red.pop(), red.pop(), red.pop()
    cx, cy = rings.center
    # Ann walks her chosen straight towards the vault from her side: a row of three cards
    # (chosen, then its two chips) in each band, centres inside the band.
    departure_r = rings.outer + 12
    row = (-75.0, 0.0, 75.0)

    def row_at(radius, gap=75.0):
        return [(cx + dx * gap / 75.0, cy + radius) for dx in row]

    # turn 1, Ann: a chip on her own area, shown before it is turned down
    c1 = script.place(seen_chip, in_area(0, 0), note=f"Ann shows {seen_chip} and lays it as a chip")
    script.turn(c1, note="the chip is turned face down")
    events.append({"type": "chip", "onto": "Ann", "card": seen_chip})
    # turn 2, Bob: a chip on Ann's area, face down from the start
    c2 = script.place(unseen_chip, in_area(0, 1), face_up=False, note="Bob lays a chip on Ann's area, unseen")
    events += [{"type": "end_turn"}, {"type": "chip", "onto": "Ann"}]
    # turn 3, Ann: a chip on Bob, then she sends her chosen carrying both chips
    c3 = script.place(second_seen, in_area(1, 0), note=f"Ann shows {second_seen} and lays it on Bob's area")
    script.turn(c3)
    events += [{"type": "end_turn"}, {"type": "chip", "onto": "Bob", "card": second_seen}]
    spots = row_at(departure_r)
    script.move([c1, c2], spots[1:], angles=[0.0, 0.0], note="Ann's chips join her chosen in departure")
    ch = script.place(chosen, spots[0], angle=0.0, note=f"Ann sends {chosen} to departure")
    events.append({"type": "send", "card": chosen, "medicine": [], "discard": []})
    group = [ch, c1, c2]

    def walk(radius, gap=75.0, note="Ann's chosen steps inwards"):
        script.move(group, row_at(radius, gap), angles=[0.0, 0.0, 0.0], note=note)

    walk((rings.inner + rings.outer) / 2)
    events.append({"type": "end_turn"})
    # turn 4, Bob: an unseen chip on his own area
    script.place(black.pop(), in_area(1, 1), face_up=False, note="Bob lays a chip on his area, unseen")
    events.append({"type": "chip", "onto": "Bob"})
    # turn 5, Ann: a chip on Bob's area ends Bob's turn; her chosen steps to step 2
    script.place(black.pop(), in_area(1, 2), face_up=False, note="Ann lays a chip on Bob's area")
    events += [{"type": "end_turn"}, {"type": "chip", "onto": "Bob"}]
    script.pass_over(rings.center)
    walk((rings.vault + rings.inner) / 2 - 5)
    events.append({"type": "end_turn"})
    # turn 6, Bob: a chip on Ann; turn 7, Ann: her chosen enters the vault and its chips are turned
    script.place(black.pop(), in_area(0, 2), face_up=False, note="Bob lays a chip on Ann's area")
    events.append({"type": "chip", "onto": "Ann"})
    walk(0, gap=70.0, note="Ann's chosen enters the vault")
    events += [{"type": "end_turn"}, {"type": "end_turn"}]
    script.turn(c1, note="the vault turns the chips")
    script.turn(c2)
    events.append({"type": "reveal", "faces": [unseen_chip]})
    script.pause(1.5)
    return Scenario("chosen", seed, layout, setup, [], script.actions, events,
                    "a chosen carries a seen and an unseen chip to the vault")


SCENARIOS = {"kingdoms": kingdoms_scenario, "dungeon": dungeon_scenario, "chosen": chosen_scenario}


def build_scenario(game: str, seed: int = 0) -> Scenario:
    if game not in SCENARIOS:
        raise ValueError(f"no recording scenario for {game!r}: choose one of {', '.join(SCENARIOS)}")
    return SCENARIOS[game](int(seed))


# ---------------------------------------------------------------------------------- rendering

@dataclass(frozen=True)
class CameraSettings:
    width: int = 960
    height: int = 720
    fps: float = 8.0
    tilt: float = 0.10            # how much narrower the far edge looks (perspective)
    roll_degrees: float = 2.0
    noise: float = 4.0            # gaussian sensor noise, grey levels
    blur: float = 0.6             # gaussian blur sigma, pixels
    margin_mm: float = 15.0       # table visible around the mat
    style_seed: int = 0
    # the deck the cards are drawn with (companion.synthetic.deck.ArtDeck, DrawnDeck); None: the drawn deck of style_seed
    deck: object = field(default=None, compare=False)


@dataclass
class _Card:
    code: str
    pos: tuple[float, float]
    angle: float
    face_up: bool


class Renderer:
    """Draws the table in mat millimetres on a world canvas and films it through a tilted camera."""

    def __init__(self, layout: Layout, camera: CameraSettings, seed: int = 0) -> None:
        self.layout = layout
        self.camera = camera
        self.rng = np.random.default_rng(seed)
        world_w, world_h = layout.width + 2 * camera.margin_mm, layout.height + 2 * camera.margin_mm
        self.scale = 1.25 * max(camera.width / world_w, camera.height / world_h)   # world px per mm
        self.world_size = (int(round(world_w * self.scale)), int(round(world_h * self.scale)))
        self.world = np.empty((self.world_size[1], self.world_size[0], 3), np.uint8)
        self.world[:] = FELT_BGR
        grain = self.rng.normal(0, 5, self.world.shape[:2]).astype(np.float32)
        self.world = np.clip(self.world.astype(np.float32) + grain[..., None], 0, 255).astype(np.uint8)
        mat = render_mat(layout, self.scale)
        ox = oy = int(round(camera.margin_mm * self.scale))
        self.world[oy:oy + mat.shape[0], ox:ox + mat.shape[1]] = mat
        self.camera_matrix = self._camera_matrix(seed)
        self.card_px = (int(round(CARD_MM[0] * self.scale)), int(round(CARD_MM[1] * self.scale)))
        self._sprites: dict[tuple[str, bool], np.ndarray] = {}
        self.deck = camera.deck if camera.deck is not None else DrawnDeck(camera.style_seed)

    def _camera_matrix(self, seed: int) -> np.ndarray:
        cam = self.camera
        rng = random.Random(seed * 7 + 1)
        w, h = self.world_size
        tilt = cam.tilt * rng.uniform(0.7, 1.3)
        src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        dst = np.array([[tilt * w, 0], [w - tilt * w, 0], [w, h], [0, h]], np.float32)
        roll = math.radians(rng.uniform(-cam.roll_degrees, cam.roll_degrees))
        centre = dst.mean(0)
        rot = np.array([[math.cos(roll), -math.sin(roll)], [math.sin(roll), math.cos(roll)]], np.float32)
        dst = (dst - centre) @ rot.T + centre
        # fit the quad into the frame with a small border, keeping its aspect
        lo, hi = dst.min(0), dst.max(0)
        fit = min(cam.width * 0.97 / (hi[0] - lo[0]), cam.height * 0.97 / (hi[1] - lo[1]))
        dst = (dst - (lo + hi) / 2) * fit + np.array([cam.width / 2, cam.height / 2], np.float32)
        return cv2.getPerspectiveTransform(src, dst.astype(np.float32))

    def mat_to_frame(self, points_mm) -> np.ndarray:
        pts = (np.asarray(points_mm, np.float32).reshape(-1, 2) + self.camera.margin_mm) * self.scale
        return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), self.camera_matrix).reshape(-1, 2)

    def _sprite(self, code: str, face_up: bool) -> np.ndarray:
        key = (code, face_up)
        if key not in self._sprites:
            width = max(2 * self.card_px[0], 126)    # drawn large, then scaled down: crisp small cards
            height = int(round(width * CARD_MM[1] / CARD_MM[0]))
            shown = code if face_up else "BACK"
            self._sprites[key] = (self.deck.render(shown, width, height), self.deck.mask(shown, width, height))
        return self._sprites[key]

    def _paste_card(self, canvas: np.ndarray, card: _Card) -> None:
        sprite, sprite_mask = self._sprite(card.code, card.face_up)
        sh, sw = sprite.shape[:2]
        w, h = self.card_px
        cx, cy = (card.pos[0] + self.camera.margin_mm) * self.scale, (card.pos[1] + self.camera.margin_mm) * self.scale
        half = int(math.hypot(w, h) / 2) + 2
        x0, y0 = int(cx) - half, int(cy) - half
        size = 2 * half
        matrix = cv2.getRotationMatrix2D((sw / 2, sh / 2), -card.angle, w / sw)
        matrix[:, 2] += (cx - x0) - sw / 2, (cy - y0) - sh / 2
        patch = cv2.warpAffine(sprite, matrix, (size, size), flags=cv2.INTER_AREA)
        alpha = cv2.warpAffine(sprite_mask, matrix, (size, size), flags=cv2.INTER_LINEAR)
        H, W = canvas.shape[:2]
        xa, ya, xb, yb = max(0, x0), max(0, y0), min(W, x0 + size), min(H, y0 + size)
        if xa >= xb or ya >= yb:
            return
        a = (alpha[ya - y0:yb - y0, xa - x0:xb - x0].astype(np.float32) / 255)[..., None]
        region = canvas[ya:yb, xa:xb]
        # a soft shadow first, so cards read as objects on the table
        region[:] = (region * (1 - 0.25 * a)).astype(np.uint8)
        region[:] = (region * (1 - a) + patch[ya - y0:yb - y0, xa - x0:xb - x0] * a).astype(np.uint8)

    def _draw_hand(self, canvas: np.ndarray, at_mm, entry_mm, skin) -> None:
        s = self.scale
        m = self.camera.margin_mm
        p = np.array([(at_mm[0] + m) * s, (at_mm[1] + m) * s])
        e = np.array([(entry_mm[0] + m) * s, (entry_mm[1] + m) * s])
        direction = p - e
        length = np.linalg.norm(direction) or 1.0
        u = direction / length
        palm = p - u * 30 * s       # the palm sits just short of the point, fingers over it
        arm_width = int(70 * s)
        cv2.line(canvas, tuple(map(int, e - u * 200 * s)), tuple(map(int, palm)), skin, arm_width, cv2.LINE_AA)
        angle = math.degrees(math.atan2(u[1], u[0]))
        cv2.ellipse(canvas, tuple(map(int, palm)), (int(48 * s), int(42 * s)), angle, 0, 360, skin, -1, cv2.LINE_AA)
        normal = np.array([-u[1], u[0]])
        for k, (offset, reach) in enumerate(((-27, 55), (-9, 68), (9, 66), (26, 52))):
            base = palm + normal * offset * s + u * 25 * s
            tip = base + u * reach * s
            cv2.line(canvas, tuple(map(int, base)), tuple(map(int, tip)), skin, int(15 * s), cv2.LINE_AA)
        thumb = palm - normal * 45 * s + u * 10 * s
        cv2.line(canvas, tuple(map(int, palm - normal * 20 * s)), tuple(map(int, thumb)), skin, int(17 * s), cv2.LINE_AA)
        shade = int(skin * 0.85) if isinstance(skin, int) else tuple(int(c * 0.85) for c in skin)
        cv2.ellipse(canvas, tuple(map(int, palm)), (int(48 * s), int(42 * s)), angle, 0, 360, shade, max(1, int(2 * s)), cv2.LINE_AA)

    def card_truth(self, card: _Card, hand_mask: np.ndarray | None, covering: "Iterable[_Card]" = ()) -> dict | None:
        """The card as a perfect detector would report it, or None when the hand hides both indices.

        ``indices`` are the frame-pixel boxes of the corner indices a camera could read: face up,
        neither under the hand nor under a card drawn over this one (``covering``), each with
        ``up_degrees``: where the index's own top points, clockwise from the frame's up.
        """
        w, h = CARD_MM
        local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2],
                          [-w / 2 + 0.11 * w, -h / 2 + 0.14 * h], [w / 2 - 0.11 * w, h / 2 - 0.14 * h]])
        world_mm = _card_to_world(card, local)
        if hand_mask is not None and all(self._under_hand(hand_mask, point) for point in world_mm[4:]):
            return None
        corners = self.mat_to_frame(world_mm[:4])
        centre = self.mat_to_frame([card.pos])[0]
        if not (0 <= centre[0] < self.camera.width and 0 <= centre[1] < self.camera.height):
            return None   # still outside the picture, in the hand coming in
        corners = np.clip(corners, 0, [self.camera.width - 1, self.camera.height - 1])
        x1, y1 = corners.min(0)
        x2, y2 = corners.max(0)
        return {"code": card.code if card.face_up else "BACK", "face": card.code,
                "box": [round(float(v), 1) for v in (x1, y1, x2, y2)],
                "center": [round(float(centre[0]), 1), round(float(centre[1]), 1)],
                "mat_mm": [round(float(card.pos[0]), 1), round(float(card.pos[1]), 1)],
                "indices": self._visible_indices(card, hand_mask, list(covering)) if card.face_up else []}

    def _under_hand(self, hand_mask: np.ndarray, point_mm) -> bool:
        x, y = (np.asarray(point_mm) + self.camera.margin_mm) * self.scale
        height, width = hand_mask.shape
        return 0 <= int(y) < height and 0 <= int(x) < width and hand_mask[int(y), int(x)] > 0

    def _visible_indices(self, card: _Card, hand_mask: np.ndarray | None, covering: list[_Card]) -> list[dict]:
        w, h = CARD_MM
        unit = 1000   # index_boxes in a 1000 x 1400 card: fractions of the card, to a thousandth
        centre, top = self.mat_to_frame(_card_to_world(card, np.array([[0.0, 0.0], [0.0, -h / 2]])))
        card_up = math.degrees(math.atan2(top[0] - centre[0], centre[1] - top[1]))
        visible = []
        for corner, (x1, y1, x2, y2) in enumerate(self.deck.index_boxes(card.code, unit, round(unit * h / w))):
            fx1, fy1, fx2, fy2 = x1 / unit, y1 / (unit * h / w), x2 / unit, y2 / (unit * h / w)
            rect = np.array([[fx1, fy1], [fx2, fy1], [fx2, fy2], [fx1, fy2]]) * (w, h) - (w / 2, h / 2)
            world = _card_to_world(card, rect)
            middle = world.mean(0)
            if hand_mask is not None and self._under_hand(hand_mask, middle):
                continue
            if any(_inside_card(other, middle) for other in covering):
                continue
            corners = self.mat_to_frame(world)
            lo, hi = corners.min(0), corners.max(0)
            if lo[0] < 0 or lo[1] < 0 or hi[0] > self.camera.width or hi[1] > self.camera.height:
                continue
            # the bottom-right index is printed turned half a turn
            visible.append({"box": [round(float(v), 1) for v in (*lo, *hi)],
                            "up_degrees": round((card_up + 180 * corner) % 360, 1)})
        return visible

    def film(self, canvas: np.ndarray) -> np.ndarray:
        cam = self.camera
        frame = cv2.warpPerspective(canvas, self.camera_matrix, (cam.width, cam.height), flags=cv2.INTER_AREA,
                                    borderMode=cv2.BORDER_CONSTANT, borderValue=FELT_BGR)
        if cam.blur > 0:
            frame = cv2.GaussianBlur(frame, (0, 0), cam.blur)
        if cam.noise > 0:
            noise = self.rng.normal(0, cam.noise, frame.shape).astype(np.float32)
            frame = np.clip(frame.astype(np.float32) + noise, 0, 255).astype(np.uint8)
        return frame


_MASKS: dict[tuple[int, int], np.ndarray] = {}


def _card_to_world(card: _Card, local_mm: np.ndarray) -> np.ndarray:
    """Points in the card's own millimetres (centre origin, upright) to mat millimetres."""
    a = math.radians(card.angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return np.asarray(local_mm, np.float64) @ rot.T + np.asarray(card.pos)


def _inside_card(card: _Card, point_mm) -> bool:
    a = math.radians(card.angle)
    dx, dy = point_mm[0] - card.pos[0], point_mm[1] - card.pos[1]
    # the inverse rotation: the point in the card's own upright frame
    x, y = math.cos(a) * dx + math.sin(a) * dy, -math.sin(a) * dx + math.cos(a) * dy
    return abs(x) <= CARD_MM[0] / 2 and abs(y) <= CARD_MM[1] / 2


def _sprite_mask(width: int, height: int) -> np.ndarray:
    if (width, height) not in _MASKS:
        _MASKS[(width, height)] = card_mask(width, height)
    return _MASKS[(width, height)]


@dataclass
class RenderedFrame:
    time: float
    image: np.ndarray
    marks: list[dict]
    cards: list[dict]       # what a perfect detector would report: code, box and centre in frame pixels


@dataclass
class _Timing:
    reach: float = 0.55     # seconds for the hand to reach its target
    leave: float = 0.45
    settle: float = 0.55    # still table after each action, so the next card does not race the last


def render_frames(scenario: Scenario, camera: CameraSettings | None = None,
                  timing: _Timing | None = None) -> Iterator[RenderedFrame]:
    """Yields one :class:`RenderedFrame` per frame; ``marks`` name the actions completed in it."""
    camera = camera or CameraSettings()
    timing = timing or _Timing()
    renderer = Renderer(scenario.layout, camera, scenario.seed)
    rng = random.Random(scenario.seed * 31 + 5)
    skin = tuple(int(c + rng.randint(-12, 12)) for c in SKIN_BGR)
    table: dict[int, _Card] = {}
    step = 1.0 / camera.fps
    clock = [0.0]
    static = [None]

    def static_layer():
        if static[0] is None:
            canvas = renderer.world.copy()
            for card in table.values():
                renderer._paste_card(canvas, card)
            static[0] = canvas
        return static[0]

    def frame(carried=(), hand=None, marks=()):
        canvas = static_layer()
        hand_mask = None
        if carried or hand is not None:
            canvas = canvas.copy()
            for card in carried:
                renderer._paste_card(canvas, card)
            if hand is not None:
                renderer._draw_hand(canvas, hand[0], hand[1], skin)
                hand_mask = np.zeros(canvas.shape[:2], np.uint8)
                renderer._draw_hand(hand_mask, hand[0], hand[1], 255)
        painted = list(table.values()) + list(carried)
        cards = [renderer.card_truth(c, hand_mask, painted[k + 1:]) for k, c in enumerate(painted)]
        out = RenderedFrame(clock[0], renderer.film(canvas), list(marks), [c for c in cards if c is not None])
        clock[0] += step
        return out

    def entry_for(point):
        x, y = point
        w, h = scenario.layout.width, scenario.layout.height
        m = camera.margin_mm + 150
        options = [(x, -m, y), (x, h + m, h - y), (-m, y, x), (w + m, y, w - x)]
        best = min(options, key=lambda o: o[2])
        return (best[0], best[1])

    def travel(start, end, seconds, carried_offsets=(), marks_at_end=()):
        frames = max(1, int(round(seconds * camera.fps)))
        for k in range(1, frames + 1):
            f = k / frames
            f = f * f * (3 - 2 * f)
            at = (start[0] + (end[0] - start[0]) * f, start[1] + (end[1] - start[1]) * f)
            carried = [_Card(c.code, (at[0] + dx, at[1] + dy), c.angle, c.face_up) for c, dx, dy in carried_offsets]
            yield frame(carried, (at, entry), marks_at_end if k == frames else ())

    for index, action in enumerate(scenario.actions):
        mark = {"action": index, "kind": action.kind, "ids": list(action.ids), "note": action.note}
        if action.kind == "pause":
            for _ in range(max(1, int(round(action.seconds * camera.fps)))):
                yield frame()
            continue
        if action.kind == "place":
            target = action.positions[0]
            entry = entry_for(target)
            card = _Card(action.code, target, action.angles[0], action.face_up)
            yield from travel(entry, target, timing.reach, [(card, 0.0, 0.0)])
            table[action.ids[0]] = card
            static[0] = None
            mark["time"] = clock[0]
            yield from travel(target, entry, timing.leave, marks_at_end=[mark])
        elif action.kind == "turn":
            card = table[action.ids[0]]
            entry = entry_for(card.pos)
            yield from travel(entry, card.pos, timing.reach)
            card.face_up = not card.face_up
            static[0] = None
            mark["time"] = clock[0]
            yield from travel(card.pos, entry, timing.leave, marks_at_end=[mark])
        elif action.kind in ("move", "remove"):
            cards = [table[i] for i in action.ids]
            centre = (sum(c.pos[0] for c in cards) / len(cards), sum(c.pos[1] for c in cards) / len(cards))
            entry = entry_for(centre)
            yield from travel(entry, centre, timing.reach)
            for i in action.ids:
                table.pop(i)
            static[0] = None
            offsets = [(c, c.pos[0] - centre[0], c.pos[1] - centre[1]) for c in cards]
            if action.kind == "move":
                new_centre = (sum(p[0] for p in action.positions) / len(cards), sum(p[1] for p in action.positions) / len(cards))
                yield from travel(centre, new_centre, timing.reach + 0.2, offsets)
                for cid, card, pos, angle in zip(action.ids, cards, action.positions, action.angles):
                    table[cid] = _Card(card.code, pos, angle, card.face_up)
                static[0] = None
                mark["time"] = clock[0]
                entry = entry_for(new_centre)
                yield from travel(new_centre, entry, timing.leave, marks_at_end=[mark])
            else:
                mark["time"] = clock[0]
                yield from travel(centre, entry, timing.leave, offsets, marks_at_end=[mark])
        elif action.kind == "pass":
            target = action.positions[0]
            entry = entry_for(target)
            yield from travel(entry, target, timing.reach)
            yield from travel(target, entry, timing.leave, marks_at_end=[mark])
        for _ in range(max(1, int(round(timing.settle * camera.fps)))):
            yield frame()


def write_recording(scenario: Scenario, out: "str | pathlib.Path", camera: CameraSettings | None = None,
                    video: bool = False, jpeg_quality: int = 85, card_truth: bool = False) -> dict:
    """Writes frames (``frames/NNNNNN.jpg`` or ``recording.mp4``) and ``truth.json``; returns the truth.

    ``card_truth`` also writes ``cards.jsonl.gz``: per frame, every card a perfect detector would see.
    """
    camera = camera or CameraSettings()
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    writer = None
    frames_dir = out / "frames"
    if video:
        path = out / "recording.mp4"
        writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), camera.fps, (camera.width, camera.height))
        if not writer.isOpened():
            raise OSError(f"cannot write the video {path}: this OpenCV has no mp4v encoder")
    else:
        frames_dir.mkdir(exist_ok=True)
        for old in frames_dir.glob("*.jpg"):
            old.unlink()
    marks = []
    count = 0
    cards_log = gzip.open(out / "cards.jsonl.gz", "wt") if card_truth else None
    try:
        for rendered in render_frames(scenario, camera):
            if writer is not None:
                writer.write(rendered.image)
            else:
                cv2.imwrite(str(frames_dir / f"{count:06d}.jpg"), rendered.image, [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality])
            marks.extend(rendered.marks)
            if cards_log is not None:
                cards_log.write(json.dumps({"time": round(rendered.time, 4), "cards": rendered.cards}) + "\n")
            count += 1
    finally:
        if writer is not None:
            writer.release()
        if cards_log is not None:
            cards_log.close()
    truth = {
        "game": scenario.game,
        "seed": scenario.seed,
        "description": scenario.description,
        "layout": scenario.layout.name,
        "fps": camera.fps,
        "frames": count,
        "size": [camera.width, camera.height],
        "source": "recording.mp4" if video else "frames",
        "setup": scenario.setup,
        "setup_events": scenario.setup_events,
        "events": scenario.events,
        "actions": marks,
        "final_state": scenario.final_view(),
    }
    (out / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    return truth


class TruthDetector:
    """A stand-in detector that reports exactly the cards the renderer drew, frame after frame.

    It exists to test the tracking, zones and bindings on realistic sequences (hands, moves, turns)
    independently of the neural detector; it is never used by ``companion table run`` on real input.
    """

    def __init__(self, frames_cards: list[list[dict]], confidence: float = 0.95) -> None:
        self.frames_cards = frames_cards
        self.confidence = confidence
        self.calls = 0

    @classmethod
    def from_jsonl(cls, path: "str | pathlib.Path") -> "TruthDetector":
        """From ``cards.jsonl`` or ``cards.jsonl.gz`` (a file, or the recording folder holding it)."""
        path = pathlib.Path(path)
        if path.is_dir():
            path = next((path / n for n in ("cards.jsonl.gz", "cards.jsonl") if (path / n).is_file()), path / "cards.jsonl.gz")
        if not path.is_file():
            raise ValueError(f"no {path.name} in {path.parent}: render the recording with --card-truth")
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt") as handle:
            lines = handle.read().splitlines()
        return cls([json.loads(line)["cards"] for line in lines if line.strip()])

    def __call__(self, frame: np.ndarray):
        from companion.vision.detections import Detections

        cards = self.frames_cards[self.calls] if self.calls < len(self.frames_cards) else []
        self.calls += 1
        if not cards:
            return Detections.empty()
        return Detections(np.array([c["box"] for c in cards], np.float32), np.full(len(cards), self.confidence, np.float32),
                          tuple(c["code"] for c in cards), np.array([c["center"] for c in cards], np.float32))


def replay_truth(truth: dict) -> dict:
    """The final state a recording's truth implies, replayed through today's engine.

    ``truth.json`` stores ``final_state`` for people to read, but comparisons use this: the events
    are the contract, and an engine whose view gained a field must not make old recordings wrong.
    """
    engine = get_engine(truth["game"])
    state = engine.new_game(truth["setup"])
    for event in list(truth.get("setup_events", [])) + list(truth["events"]):
        state = engine.apply(state, event)
    return json.loads(json.dumps(engine.view(state)))


def load_truth(folder: "str | pathlib.Path") -> dict:
    path = pathlib.Path(folder)
    path = path / "truth.json" if path.is_dir() else path
    if not path.is_file():
        raise ValueError(f"no truth.json in {folder}: render a recording with 'companion demo render'")
    return json.loads(path.read_text())
