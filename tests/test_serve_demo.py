"""`companion serve --demo GAME`: the shipped recording plays through the table pipeline into a new table.

The recording's own card list stands in for the neural detector here, so what is tested is the wiring
(recording → pipeline → session → the table every phone sees); the neural detector on the same
recordings is tested in the table pipeline's end-to-end tests.
"""
import time

import pytest
from helpers.web import comparable

from companion.commands.serve import demo_config, start_demo_table
from companion.synthetic.recording import replay_truth
from companion.table.demos import DEMO_GAMES, demo_truth
from companion.table.live import SimulatedClock
from web_ui import create_app, shutdown



@pytest.mark.slow
@pytest.mark.parametrize("game", DEMO_GAMES)
def test_the_demo_recording_reaches_its_truth_through_the_web_table(tmp_path, game):
    """Played live, as the server plays it, on a simulated clock charging every frame a third of a
    second (the neural pipeline's rate before issue 14): most frames are dropped, as a camera would."""
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), **demo_config(game, "truth", SimulatedClock(1 / 3))})
    try:
        table, pin = start_demo_table(app, game)
        feed = app.extensions["camera"].feeds[table.id]
        deadline = time.monotonic() + 240
        while feed.running and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not feed.running, "the recording did not finish playing"
        assert feed.error is None
        state = app.test_client().get(f"/api/tables/{table.id}").get_json()
        assert comparable(state) == comparable(replay_truth(demo_truth(game)))
        assert pin.isdigit()
        assert feed.source.dropped > feed.source.delivered // 2
    finally:
        shutdown(app)


def test_demo_and_a_camera_do_not_mix(capsys):
    from companion.cli import main

    assert main(["serve", "--demo", "kingdoms", "--camera", "0", "--data", "/nonexistent/never-created"]) == 2
    assert "--demo plays a recording as the camera" in capsys.readouterr().err


def test_a_second_demo_run_reuses_its_table_rewound_to_the_setup(tmp_path):
    """Rerunning the demo adds no table: the one it made is rewound by undos (journaled, nothing
    deleted) and watched again; its PIN is the one printed the first time."""
    game = "dungeon"
    first_app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), **demo_config(game, "truth")})
    try:
        table, pin = start_demo_table(first_app, game)
        first_app.extensions["camera"].detach(table)
        table.submit({"type": "reveal", "card": "5S"}, source="referee")  # as if the recording had played on
        played = table.seq
    finally:
        shutdown(first_app)
    again = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), **demo_config(game, "truth")})
    try:
        registry = again.extensions["registry"]
        reused, same_pin = start_demo_table(again, game)
        again.extensions["camera"].detach(reused)
        assert [t.id for t in registry.list()] == [table.id] and same_pin == pin and reused.pin_matches(pin)
        assert reused.active_events() == demo_truth(game).get("setup_events", [])
        assert reused.seq > played and reused.journal[-1].kind == "undo"  # rewound by journaled undos
    finally:
        shutdown(again)
