"""Recording scenarios: a seeded game played on the printed mat, as a script of physical actions.

A scenario is a *script* (place, turn, move, remove, a hand passing over) on a mat drawn from its
layout file, plus the engine events the table implies; :mod:`companion.synthetic.rendering` films it
and :mod:`companion.synthetic.truth` reads back what a recording should reach.

    scenario = build_scenario("kingdoms", seed=1)
"""
from __future__ import annotations

from companion.messages import N_

import dataclasses
import random
from dataclasses import dataclass, field

from calibration.layouts import CARD_MM, Layout, layout_for
from companion.games import get_engine


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
                    N_("two players fill the grid; the 30th card scores round 1"))


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
        for name, code, cid in zip(names, strengths, slots):
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
                    N_("three encounters: the doubling marker, a treasure contest, a doubled enemy"))


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
                    N_("a chosen carries a seen and an unseen chip to the vault"))


SCENARIOS = {"kingdoms": kingdoms_scenario, "dungeon": dungeon_scenario, "chosen": chosen_scenario}


def build_scenario(game: str, seed: int = 0) -> Scenario:
    if game not in SCENARIOS:
        raise ValueError(f"no recording scenario for {game!r}: choose one of {', '.join(SCENARIOS)}")
    return SCENARIOS[game](int(seed))
