"""Rendering a recording scenario: the mat in millimetres, cards from the project's deck, a hand
coming in from the nearest edge, filmed through a tilted camera with noise and blur.

    for frame in render_frames(build_scenario("kingdoms", 1)):
        frame.image, frame.cards    # the picture, and what a perfect detector would report in it
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Iterable, Iterator

import cv2
import numpy as np

from calibration.layouts import CARD_MM, Layout
from calibration.mats import render_mat
from companion.synthetic.deck import DrawnDeck
from companion.synthetic.scenarios import Scenario

FELT_BGR = (58, 92, 52)     # a green felt table: nothing like skin
SKIN_BGR = (118, 158, 214)


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
        for offset, reach in ((-27, 55), (-9, 68), (9, 66), (26, 52)):
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
            # the bottom ones (odd places: bottom-right, bottom-left) are printed turned half a turn
            visible.append({"box": [round(float(v), 1) for v in (*lo, *hi)],
                            "up_degrees": round((card_up + 180 * (corner % 2)) % 360, 1)})
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


class _Playback:
    """Plays a scenario's actions frame by frame: the cards lying on the table, the clock, and the
    picture of the still table (redrawn only after a card lands, turns or leaves)."""

    def __init__(self, scenario: Scenario, camera: CameraSettings, timing: _Timing) -> None:
        self.scenario = scenario
        self.camera = camera
        self.timing = timing
        self.renderer = Renderer(scenario.layout, camera, scenario.seed)
        rng = random.Random(scenario.seed * 31 + 5)
        self.skin = tuple(int(c + rng.randint(-12, 12)) for c in SKIN_BGR)
        self.table: dict[int, _Card] = {}
        self.step = 1.0 / camera.fps
        self.clock = 0.0
        self._static: np.ndarray | None = None

    def table_changed(self) -> None:
        self._static = None

    def static_layer(self) -> np.ndarray:
        if self._static is None:
            canvas = self.renderer.world.copy()
            for card in self.table.values():
                self.renderer._paste_card(canvas, card)
            self._static = canvas
        return self._static

    def frame(self, carried=(), hand=None, marks=()) -> RenderedFrame:
        renderer = self.renderer
        canvas = self.static_layer()
        hand_mask = None
        if carried or hand is not None:
            canvas = canvas.copy()
            for card in carried:
                renderer._paste_card(canvas, card)
            if hand is not None:
                renderer._draw_hand(canvas, hand[0], hand[1], self.skin)
                hand_mask = np.zeros(canvas.shape[:2], np.uint8)
                renderer._draw_hand(hand_mask, hand[0], hand[1], 255)
        painted = list(self.table.values()) + list(carried)
        cards = [renderer.card_truth(c, hand_mask, painted[k + 1:]) for k, c in enumerate(painted)]
        out = RenderedFrame(self.clock, renderer.film(canvas), list(marks), [c for c in cards if c is not None])
        self.clock += self.step
        return out

    def entry_for(self, point) -> tuple[float, float]:
        """Where a hand reaching ``point`` comes in: the nearest edge of the table."""
        x, y = point
        w, h = self.scenario.layout.width, self.scenario.layout.height
        m = self.camera.margin_mm + 150
        options = [(x, -m, y), (x, h + m, h - y), (-m, y, x), (w + m, y, w - x)]
        best = min(options, key=lambda o: o[2])
        return (best[0], best[1])

    def travel(self, start, end, seconds, entry, carried_offsets=(), marks_at_end=()) -> Iterator[RenderedFrame]:
        """The hand (arm from ``entry``) moving from ``start`` to ``end``, carrying cards at offsets."""
        frames = max(1, int(round(seconds * self.camera.fps)))
        for k in range(1, frames + 1):
            f = k / frames
            f = f * f * (3 - 2 * f)
            at = (start[0] + (end[0] - start[0]) * f, start[1] + (end[1] - start[1]) * f)
            carried = [_Card(c.code, (at[0] + dx, at[1] + dy), c.angle, c.face_up) for c, dx, dy in carried_offsets]
            yield self.frame(carried, (at, entry), marks_at_end if k == frames else ())

    def play(self) -> Iterator[RenderedFrame]:
        camera, timing, table = self.camera, self.timing, self.table
        for index, action in enumerate(self.scenario.actions):
            mark = {"action": index, "kind": action.kind, "ids": list(action.ids), "note": action.note}
            if action.kind == "pause":
                for _ in range(max(1, int(round(action.seconds * camera.fps)))):
                    yield self.frame()
                continue
            if action.kind == "place":
                target = action.positions[0]
                entry = self.entry_for(target)
                card = _Card(action.code, target, action.angles[0], action.face_up)
                yield from self.travel(entry, target, timing.reach, entry, [(card, 0.0, 0.0)])
                table[action.ids[0]] = card
                self.table_changed()
                mark["time"] = self.clock
                yield from self.travel(target, entry, timing.leave, entry, marks_at_end=[mark])
            elif action.kind == "turn":
                card = table[action.ids[0]]
                entry = self.entry_for(card.pos)
                yield from self.travel(entry, card.pos, timing.reach, entry)
                card.face_up = not card.face_up
                self.table_changed()
                mark["time"] = self.clock
                yield from self.travel(card.pos, entry, timing.leave, entry, marks_at_end=[mark])
            elif action.kind in ("move", "remove"):
                cards = [table[i] for i in action.ids]
                centre = (sum(c.pos[0] for c in cards) / len(cards), sum(c.pos[1] for c in cards) / len(cards))
                entry = self.entry_for(centre)
                yield from self.travel(entry, centre, timing.reach, entry)
                for i in action.ids:
                    table.pop(i)
                self.table_changed()
                offsets = [(c, c.pos[0] - centre[0], c.pos[1] - centre[1]) for c in cards]
                if action.kind == "move":
                    new_centre = (sum(p[0] for p in action.positions) / len(cards),
                                  sum(p[1] for p in action.positions) / len(cards))
                    yield from self.travel(centre, new_centre, timing.reach + 0.2, entry, offsets)
                    for cid, card, pos, angle in zip(action.ids, cards, action.positions, action.angles):
                        table[cid] = _Card(card.code, pos, angle, card.face_up)
                    self.table_changed()
                    mark["time"] = self.clock
                    entry = self.entry_for(new_centre)
                    yield from self.travel(new_centre, entry, timing.leave, entry, marks_at_end=[mark])
                else:
                    mark["time"] = self.clock
                    yield from self.travel(centre, entry, timing.leave, entry, offsets, marks_at_end=[mark])
            elif action.kind == "pass":
                target = action.positions[0]
                entry = self.entry_for(target)
                yield from self.travel(entry, target, timing.reach, entry)
                yield from self.travel(target, entry, timing.leave, entry, marks_at_end=[mark])
            for _ in range(max(1, int(round(timing.settle * camera.fps)))):
                yield self.frame()


def render_table(layout: Layout, cards: "Iterable[tuple[str, tuple[float, float], float, bool]]",
                 camera: CameraSettings | None = None, seed: int = 0) -> RenderedFrame:
    """One frame of a still table: ``cards`` as (code, mat position in mm, angle in degrees clockwise,
    face up), each drawn over the ones before it (rows, cascades, fans), with what a perfect detector
    would see of each (``RenderedFrame.cards``: the indices the cards above leave visible)."""
    renderer = Renderer(layout, camera or CameraSettings(), seed)
    laid = [_Card(code, (float(pos[0]), float(pos[1])), float(angle), bool(face_up)) for code, pos, angle, face_up in cards]
    canvas = renderer.world.copy()
    for card in laid:
        renderer._paste_card(canvas, card)
    truth = [renderer.card_truth(card, None, laid[k + 1:]) for k, card in enumerate(laid)]
    return RenderedFrame(0.0, renderer.film(canvas), [], [t for t in truth if t is not None])


def render_frames(scenario: Scenario, camera: CameraSettings | None = None,
                  timing: _Timing | None = None) -> Iterator[RenderedFrame]:
    """Yields one :class:`RenderedFrame` per frame; ``marks`` name the actions completed in it."""
    yield from _Playback(scenario, camera or CameraSettings(), timing or _Timing()).play()
