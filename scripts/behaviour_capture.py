"""Captures the project's observable behaviour as JSON, to diff before and after a refactoring.

    python scripts/behaviour_capture.py OUT [cli] [scenarios] [web] [pipeline] [live]

cli: every docs/scenarios replay (json and text, public and --referee), the golden Kingdoms board
scored, the simulator (300 games, seed 1); scenarios: the recording scenarios of seeds 0-3 and a
hash of every rendered frame of seed 1; web: the JSON API over a scripted sequence per game (ids,
pins and times scrubbed); pipeline: the table pipeline's summaries on four rendered games (minutes);
live: the shipped detector reading the three demo recordings incrementally, every frame's cards (codes and
boxes) and table events (a few minutes; ``--live-recording GAME:DIR`` adds a recording of one's own).
Run it from the checkout root on two trees and compare the files (``diff -r``).
"""
import contextlib
import dataclasses
import glob
import hashlib
import io
import json
import pathlib
import sys
import tempfile

args = sys.argv[1:]
extra_recordings = [args[k + 1] for k, arg in enumerate(args) if arg == "--live-recording"]
args = [arg for k, arg in enumerate(args) if arg != "--live-recording" and (k == 0 or args[k - 1] != "--live-recording")]
out = pathlib.Path(args[0])
out.mkdir(parents=True, exist_ok=True)
what = args[1:] or ["cli", "scenarios", "web", "pipeline", "live"]

def dump(name, data):
    (out / name).write_text(json.dumps(data, indent=1, sort_keys=True, default=str) + "\n")

def cli(argv):
    from companion.cli import main
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            rc = main(argv)
        except SystemExit as e:
            rc = e.code
    return {"rc": rc, "out": buf.getvalue()}

if "cli" in what:
    res = {}
    for f in sorted(glob.glob("docs/scenarios/*/*.json")):
        game = f.split("/")[2]
        for extra in ([], ["--referee"]):
            for fmt in ("json", "text"):
                res[f"{f} {fmt} {extra}"] = cli([game, "replay", f, "--format", fmt] + extra)
    golden = json.load(open("../shared/golden/kingdoms_seed_example.json"))
    board = pathlib.Path(tempfile.gettempdir()) / "behaviour-capture-board.json"   # one path: it is printed
    board.write_text(json.dumps({"players": golden["players"], "board": golden["board_face_up"]}))
    for fmt in ("json", "text"):
        res[f"kingdoms score {fmt}"] = cli(["kingdoms", "score", str(board), "--format", fmt])
    for game in ("kingdoms", "dungeon", "chosen"):
        try:
            res[f"simulate {game}"] = cli(["simulate", game, "--games", "300", "--seed", "1", "--format", "json"])
        except Exception as e:
            res[f"simulate {game}"] = repr(e)
    dump("cli.json", res)

if "scenarios" in what:
    from companion.synthetic.recording import build_scenario, render_frames, CameraSettings
    res = {}
    for game in ("kingdoms", "dungeon", "chosen"):
        for seed in range(4):
            s = build_scenario(game, seed)
            d = {k: v for k, v in dataclasses.asdict(s).items() if k != "layout"}
            d["layout"] = s.layout.name
            d["final"] = s.final_view()
            res[f"{game}-{seed}"] = d
        frames = render_frames(build_scenario(game, 1), CameraSettings(width=320, height=240, fps=4.0))
        h = hashlib.sha256()
        cards = []
        for f in frames:
            h.update(f.image.tobytes())
            cards.append((f.time, f.marks, f.cards))
        res[f"{game}-render"] = {"sha": h.hexdigest(), "cards": cards}
    dump("scenarios.json", res)

if "web" in what:
    from web_ui import TestConfig, create_app
    tmp = tempfile.mkdtemp()
    config = {key: getattr(TestConfig, key) for key in dir(TestConfig) if key.isupper()}
    config.update(DATA_DIR=tmp, SSE_MAX_SECONDS=0.3)
    client = create_app(config).test_client()
    res = {"games": client.get("/api/games").get_json()}
    def scrub(x):
        s = json.dumps(x, sort_keys=True)
        for t in tables:
            s = s.replace(t["id"], "ID").replace(t["pin"], "PIN")
        return json.loads(s)
    tables = []
    seqs = []
    golden = json.load(open("../shared/golden/kingdoms_seed_example.json"))
    players = [{"name": n, "suits": s} for n, s in golden["players"].items()]
    kev = [{"type": "place", "cell": [r + 3, c + 3], "card": card} for r, row in enumerate(golden["board_face_up"]) for c, card in enumerate(row)]
    seqs.append(("kingdoms-manual", {"game": "kingdoms", "players": players, "options": {"auto_score": False}}, kev + [{"type": "score_round"}]))
    seqs.append(("kingdoms-auto", {"game": "kingdoms", "players": players}, kev))
    for f in sorted(glob.glob("docs/scenarios/*/*.json")):
        sc = json.load(open(f))
        game = f.split("/")[2]
        body = {"game": game, **{k: v for k, v in sc.get("setup", {}).items()}}
        evs = sc.get("events", [])
        seqs.append((f, body, evs))
    for name, body, evs in seqs:
        r = client.post("/api/tables", json=body)
        if r.status_code != 201:
            res[name] = {"create": r.status_code, "body": r.get_json()}
            continue
        t = r.get_json()
        tables.append(t)
        steps = []
        for e in evs:
            rr = client.post(f"/api/tables/{t['id']}/events", json=e, headers={"X-Referee-Pin": t["pin"]})
            steps.append([rr.status_code, rr.get_json()])
        rr = client.post(f"/api/tables/{t['id']}/undo", headers={"X-Referee-Pin": t["pin"]})
        steps.append([rr.status_code, rr.get_json()])
        steps.append(client.get(f"/api/tables/{t['id']}").get_json())
        steps.append(client.get(f"/api/tables/{t['id']}/journal").get_json())
        res[name] = scrub(steps)
    def strip_times(x):
        if isinstance(x, dict):
            return {k: strip_times(v) for k, v in x.items() if k not in ("at", "created_at", "time", "updated_at", "timestamp")}
        if isinstance(x, list):
            return [strip_times(v) for v in x]
        return x
    dump("web.json", strip_times(res))

if "pipeline" in what:
    from companion.synthetic.recording import build_scenario, render_frames, CameraSettings, TruthDetector
    from companion.table.pipeline import build_pipeline
    res = {}
    for game, seed, mat, cam in [("kingdoms", 2, "auto", CameraSettings(width=512, height=384, fps=6.0)),
                                 ("dungeon", 5, "auto", CameraSettings(width=512, height=384, fps=6.0)),
                                 ("chosen", 7, "auto", CameraSettings(width=512, height=384, fps=6.0)),
                                 ("kingdoms", 3, "none", CameraSettings(width=640, height=480, fps=6.0, tilt=0.0, roll_degrees=0.0))]:
        s = build_scenario(game, seed)
        frames = list(render_frames(s, cam))
        p = build_pipeline(game, TruthDetector([f.cards for f in frames]), s.setup, s.setup_events, mat=mat)
        summary = p.run(((f.time, f.image) for f in frames), flush_seconds=3.0)
        summary["table_events"] = [[e.type, e.track, e.card, e.zone] for r in p.history for e in r.table_events]
        res[f"{game}-{seed}-{mat}"] = summary
    dump("pipeline.json", res)

if "live" in what:
    from companion.table.demos import demo_dir, demo_truth
    from companion.table.pipeline import build_pipeline
    from companion.table.sources import open_source
    from companion.table.tracker import TrackerConfig
    from companion.vision import Detector, grouping

    detector = Detector.load(tile="auto")
    grouped = []
    group_cards = grouping.group_cards

    def recording_group_cards(*a, **k):
        cards = group_cards(*a, **k)
        grouped[-1].append([[code, [round(float(v), 2) for v in box]] for code, box in zip(cards.codes, cards.boxes)])
        return cards

    grouping.group_cards = recording_group_cards   # every reader's cards come through it (cards_from_readings)
    res = {}
    for spec in ["kingdoms:", "dungeon:", "chosen:"] + extra_recordings:
        game, _, where = spec.partition(":")
        truth = demo_truth(game) if not where else json.load(open(pathlib.Path(where) / "truth.json"))
        tracker = {"tracker": TrackerConfig(copies=2)} if game == "kingdoms" else {}   # as the demo runs it
        p = build_pipeline(game, detector, truth["setup"], truth.get("setup_events", []), incremental=True, **tracker)
        frames = []
        for time, frame in open_source(where or str(demo_dir(game))):
            grouped.append([])
            result = p.process(time, frame)
            frames.append({"time": result.time, "cards": grouped[-1], "events": [
                [e.type, e.card, e.zone, round(e.time, 3), e.track, str(e.question)] for e in result.table_events],
                "engine": result.engine_events})
        res[spec] = frames
    grouping.group_cards = group_cards
    dump("live.json", res)
print("done", what)
