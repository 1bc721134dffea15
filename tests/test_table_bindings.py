"""Game bindings: table events in, engine events out; refusals become questions and change nothing."""
import pytest

from companion.games import get_engine
from companion.messages import english, from_json
from companion.table.bindings import ChosenBinding, DungeonBinding, KingdomsBinding, binding_for
from companion.table.events import TableEvent

TWO = {"players": [{"name": "Red", "suits": ["H", "D"]}, {"name": "Black", "suits": ["S", "C"]}]}


def event(kind, card, zone, track, time=0.0, position=(0.0, 0.0), **extra):
    return TableEvent(kind, card, zone, time, track, position, **extra)


def test_kingdoms_placed_cards_become_placements_on_the_engine_canvas():
    binding = KingdomsBinding(TWO)
    outcome = binding.handle(event("placed", "3H", "6,6", 1))
    assert outcome.engine_events == [{"type": "place", "cell": [6, 6], "card": "3H"}]
    binding.handle(event("placed", "10S", "6,7", 2))
    view = binding.view()
    assert {c["card"] for c in view["board"]["cards"]} == {"3H", "10S"} if "board" in view and "cards" in view["board"] \
        else len(binding.state.tiles) == 2
    assert len(binding.state.tiles) == 2
    # taken away again: removed from the engine
    assert binding.handle(event("removed", "10S", "6,7", 2)).engine_events == [{"type": "remove", "cell": [6, 7]}]
    assert len(binding.state.tiles) == 1


def test_kingdoms_refusal_is_a_question_and_the_state_stays():
    binding = KingdomsBinding(TWO)
    binding.handle(event("placed", "3H", "6,6", 1))
    before = binding.state
    outcome = binding.handle(event("placed", "9C", "6,7", 2))   # ♣9 is not a territory card
    assert outcome.engine_events == []
    assert outcome.questions and "9C" in str(outcome.questions[0])
    assert binding.state is before
    # a card seven columns away breaks the 6-wide grid
    outcome = binding.handle(event("placed", "4H", "6,12", 3))
    assert outcome.questions and binding.state is before


def test_kingdoms_moved_card_is_removed_and_placed_and_turn_down_follows_the_engine():
    binding = KingdomsBinding(TWO)
    binding.handle(event("placed", "3H", "6,6", 1))
    outcome = binding.handle(event("moved", "3H", "7,6", 1, previous_zone="6,6"))
    assert outcome.engine_events == [{"type": "remove", "cell": [6, 6]}, {"type": "place", "cell": [7, 6], "card": "3H"}]
    # the dragon in the same row: the engine turns the resource down itself (auto_turn_down) ...
    binding.handle(event("placed", "9S", "7,8", 2))
    assert binding.state.tiles[(7, 6)].face_down
    # ... so the players turning it physically adds nothing
    assert binding.handle(event("turned", "BACK", "7,6", 1, previous_card="3H", face="3H")).engine_events == []


def test_kingdoms_turn_down_is_sent_when_the_engine_waits_for_it():
    binding = KingdomsBinding({**TWO, "options": {"auto_turn_down": False}})
    binding.handle(event("placed", "3H", "6,6", 1))
    binding.handle(event("placed", "9S", "6,8", 2))
    outcome = binding.handle(event("turned", "BACK", "6,6", 1, previous_card="3H", face="3H"))
    assert outcome.engine_events == [{"type": "turn_down", "cell": [6, 6]}]


def test_kingdoms_full_grid_scores_and_clearing_it_changes_nothing():
    from companion.synthetic.recording import kingdoms_scenario

    scenario = kingdoms_scenario(4)
    binding = KingdomsBinding(scenario.setup)
    for track, engine_event in enumerate(scenario.events, start=1):
        row, col = engine_event["cell"]
        binding.handle(event("placed", engine_event["card"], f"{row},{col}", track))
    assert binding.view() == scenario.final_view()
    assert binding.state.round == 2 and len(binding.state.results) == 1
    # the scored cards are swept away: no 'remove' reaches the new round
    for track, engine_event in enumerate(scenario.events, start=1):
        row, col = engine_event["cell"]
        assert binding.handle(event("removed", engine_event["card"], f"{row},{col}", track)).engine_events == []
    assert binding.grid.anchor is None      # the next round's grid floats anew


def test_dungeon_reveal_commit_turn_up_resolve_and_the_doubling_marker():
    setup = {"players": ["Ann", "Bob", "Cy"]}
    guilds = [{"type": "choose_guild", "player": n, "guild": g} for n, g in zip(["Ann", "Bob", "Cy"], "SDC")]
    binding = DungeonBinding(setup, guilds)
    out = binding.handle(event("placed", "3S", "battlefield", 1))
    assert out.engine_events == [{"type": "reveal", "card": "3S"}]
    for seat, (track, _face) in enumerate(((2, "5D"), (3, "2C"), (4, "4S")), start=1):
        out = binding.handle(event("placed", "BACK", f"battlefield:P{seat}", track))
        assert out.engine_events[0]["type"] == "commit" and "card" not in out.engine_events[0]
    engine_events, automatic = [], []
    for seat, (track, face) in enumerate(((2, "5D"), (3, "2C"), (4, "4S")), start=1):
        out = binding.handle(event("turned", face, f"battlefield:P{seat}", track, previous_card="BACK"))
        engine_events += out.engine_events
        automatic += out.automatic_events
    # the resolve is the engine's (auto_resolve): applied and logged by the binding, not sent as the camera's
    assert [e["type"] for e in engine_events] == ["turn_up", "turn_up", "turn_up"]
    assert automatic == [{"type": "resolve"}] and binding.events[-1] == {"type": "resolve"}
    view = binding.view()
    assert "3S" in str(view.get("marker")), view.get("marker")
    # tidying up (the marker laid sideways, mercenaries to rest) is consistent: no engine event
    assert binding.handle(event("moved", "3S", "marker", 1, previous_zone="battlefield")).engine_events == []
    # the next enemy is doubled by the marker
    binding.handle(event("placed", "10C", "battlefield", 5))
    assert "30" in " ".join(english(from_json(line)) for line in binding.view()["log"][-3:])


def test_dungeon_a_turn_up_seen_before_the_last_commit_waits_for_it():
    """All reveal at once: a card turned up while someone is still to commit means the camera has
    not settled that commit yet, so the engine gets the commits first, then the turn-ups."""
    setup = {"players": ["Ann", "Bob", "Cy"]}
    guilds = [{"type": "choose_guild", "player": n, "guild": g} for n, g in zip(["Ann", "Bob", "Cy"], "SDC")]
    binding = DungeonBinding(setup, guilds)
    binding.handle(event("placed", "3S", "battlefield", 1))
    binding.handle(event("placed", "BACK", "battlefield:P1", 2))
    binding.handle(event("placed", "BACK", "battlefield:P2", 3))
    early = binding.handle(event("turned", "5D", "battlefield:P1", 2, previous_card="BACK"))
    assert early.engine_events == [] and early.questions == []
    assert binding.view()["battlefield"]["to_commit"] == ["Cy"]
    late = binding.handle(event("placed", "BACK", "battlefield:P3", 4))
    assert late.engine_events == [{"type": "commit", "player": "Cy"}, {"type": "turn_up", "player": "Ann", "card": "5D"}]
    rest = [binding.handle(event("turned", face, f"battlefield:P{seat}", track, previous_card="BACK"))
            for seat, track, face in ((2, 3, "2C"), (3, 4, "4S"))]
    assert rest[-1].engine_events[-1]["type"] == "turn_up" and rest[-1].automatic_events == [{"type": "resolve"}]
    assert binding.view()["battlefield"] is None or binding.view()["battlefield"]["to_commit"] == []


def test_dungeon_cards_out_of_phase_are_questions_and_change_nothing():
    binding = DungeonBinding({"players": ["Ann", "Bob"]})       # guilds not chosen yet
    before = binding.state
    for table_event in (event("placed", "BACK", "battlefield:P1", 1), event("placed", "7H", "battlefield", 2)):
        out = binding.handle(table_event)
        assert out.engine_events == [] and len(out.questions) == 1
        assert "guilds" in str(out.questions[0])
    assert binding.state is before


def test_chosen_chip_remembers_a_face_seen_before_it_was_turned():
    binding = ChosenBinding({"players": ["Ann", "Bob"]})
    assert binding.handle(event("placed", "5H", "area:P1", 1)).engine_events == []
    out = binding.handle(event("turned", "BACK", "area:P1", 1, previous_card="5H", face="5H"))
    assert out.engine_events == [{"type": "chip", "onto": "Ann", "card": "5H"}]
    # a second chip means the next player is acting: the turn ends first
    out = binding.handle(event("placed", "BACK", "area:P1", 2))
    assert out.engine_events == [{"type": "end_turn"}, {"type": "chip", "onto": "Ann"}]
    view = get_engine("chosen").referee_view(binding.state)
    assert [c.get("face") for c in view["players"][0]["chips"]] == ["5H", None]
    # the public view never shows the face
    assert all("face" not in c for c in binding.view()["players"][0]["chips"])


def test_chosen_send_by_the_seat_it_faces_then_play_onto_the_chosen():
    from calibration.layouts import layout_for

    layout = layout_for("chosen", 2)
    binding = ChosenBinding({"players": ["Ann", "Bob"]})
    binding.zones(layout)
    cx, cy = layout.rings.center
    ann_departure = (cx, cy + layout.rings.outer + 15)       # in front of seat 1 (bottom)
    binding.handle(event("placed", "BACK", "area:P1", 1))                        # Ann chips herself
    binding.handle(event("placed", "BACK", "area:P2", 2))                        # Bob chips himself
    binding.handle(event("moved", "BACK", "departure", 1, position=(cx + 75, ann_departure[1]), previous_zone="area:P1"))
    binding.handle(event("placed", "4D", "departure", 4, position=(cx - 75, ann_departure[1])))   # medicine beside it
    out = binding.handle(event("placed", "QS", "departure", 5, position=ann_departure))
    # Bob cannot send from Ann's side: his turn is over, and Ann sends
    assert out.engine_events == [{"type": "end_turn"}, {"type": "send", "card": "QS", "medicine": ["4D"], "discard": []}]
    assert binding.view()["mat"][0]["owner"] == "Ann"
    out = binding.handle(event("placed", "7S", "departure", 6, position=(cx + 10, ann_departure[1] - 10)))
    assert out.engine_events == [{"type": "play", "card": "7S", "chosen": 1}]
    mat = binding.view()["mat"]
    assert mat[0]["medicine"] == [] and mat[0]["radiation"] == []   # 7S and 4D cancelled each other
    # Ann's hand is now empty: another card from her is refused, as a question
    before = binding.state
    out = binding.handle(event("placed", "2S", "departure", 7, position=(cx - 10, ann_departure[1] - 10)))
    assert out.engine_events == [] and out.questions and binding.state is before


def test_chosen_chips_are_counted_from_the_events_not_from_the_backs_a_frame_shows():
    """A pile of N squared-up backs is one visible back: a chosen's carried chips are the chip events
    that went with it, however many backs the camera sees under it afterwards (docs/table.md)."""
    from calibration.layouts import layout_for

    layout = layout_for("chosen", 2)
    binding = ChosenBinding({"players": ["Ann", "Bob"]})
    binding.zones(layout)
    cx, cy = layout.rings.center
    front = cy + layout.rings.outer + 15                                          # Ann's departure spot
    binding.handle(event("placed", "BACK", "area:P1", 1))                         # Ann chips herself
    binding.handle(event("placed", "BACK", "area:P1", 2))                         # Bob chips Ann
    for track, dx in ((1, 75), (2, 150)):
        binding.handle(event("moved", "BACK", "departure", track, position=(cx + dx, front), previous_zone="area:P1"))
    out = binding.handle(event("placed", "QS", "departure", 3, position=(cx, front)))
    assert out.engine_events[-1] == {"type": "send", "card": "QS", "medicine": [], "discard": []}
    assert len(binding.view()["mat"][0]["chips"]) == 2
    # the two chips squared into one pile under the chosen: one back is seen, the other track goes
    out = binding.handle(event("removed", "BACK", "departure", 2, position=(cx + 150, front)))
    assert out.engine_events == [] and not out.questions
    assert len(binding.view()["mat"][0]["chips"]) == 2


def test_unknown_game_binding_is_refused():
    with pytest.raises(ValueError, match="no table binding"):
        binding_for("poker", {})


def _dungeon_fight(binding):
    """A revealed 3♠ fought by three face-down mercenaries, then turned up, as the camera sees it."""
    outcomes = [binding.handle(event("placed", "3S", "battlefield", 1))]
    for seat, track in enumerate((2, 3, 4), start=1):
        outcomes.append(binding.handle(event("placed", "BACK", f"battlefield:P{seat}", track)))
    for seat, (track, face) in enumerate(((2, "5D"), (3, "2C"), (4, "4S")), start=1):
        outcomes.append(binding.handle(event("turned", face, f"battlefield:P{seat}", track, previous_card="BACK")))
    return outcomes


DUNGEON_THREE = ["Ann", "Bob", "Cy"]
DUNGEON_GUILDS = [{"type": "choose_guild", "player": n, "guild": g} for n, g in zip(DUNGEON_THREE, "SDC")]


@pytest.mark.parametrize("auto_resolve", [True, False])
def test_dungeon_the_camera_resolves_only_when_the_engine_says_so(auto_resolve):
    setup = {"players": DUNGEON_THREE, "options": {"auto_resolve": auto_resolve}}
    binding = DungeonBinding(setup, DUNGEON_GUILDS)
    engine = binding.engine
    _dungeon_fight(binding)
    resolved = [e for e in binding.events if e["type"] == "resolve"]
    assert len(resolved) == (1 if auto_resolve else 0)
    assert engine.automatic_events(binding.state) == []   # nothing more is due either way
    assert engine.round_complete(binding.state) is not auto_resolve
    if not auto_resolve:
        # the encounter waits for the referee, as on the phone; the next card out of turn is a question
        assert binding.state.phase == "fight"
        assert binding.handle(event("placed", "9S", "battlefield", 5)).questions
        binding.state = engine.apply(binding.state, {"type": "resolve"})   # the referee's tap, replayed
    assert binding.state.phase == "reveal" and "3S" in str(binding.view()["marker"])


def test_dungeon_auto_resolve_is_an_option_with_a_default_and_checked_values():
    engine = get_engine("dungeon")
    assert engine.option_defaults()["auto_resolve"] is True   # what the camera always did
    with pytest.raises(ValueError, match="auto_resolve"):
        engine.new_game({"players": DUNGEON_THREE, "options": {"auto_resolve": "yes"}})


@pytest.mark.parametrize("auto_resolve", [True, False])
def test_dungeon_the_phone_and_the_camera_reach_the_same_state(tmp_path, auto_resolve):
    """The camera's engine events, fed to a session table (as CameraFeed does), and a referee tapping
    the same moves on the phone through the web API, end where the camera's own copy of the game is."""
    from companion.session import TableRegistry
    from web_ui import TestConfig, create_app

    setup = {"players": DUNGEON_THREE, "options": {"auto_resolve": auto_resolve}}
    binding = DungeonBinding(setup, DUNGEON_GUILDS)
    outcomes = _dungeon_fight(binding)
    camera_events = [e for outcome in outcomes for e in outcome.engine_events]
    # the camera never sends the resolve: the session makes it itself, as it does for the phone
    assert all(e["type"] != "resolve" for e in camera_events)
    assert [e for o in outcomes for e in o.automatic_events] == ([{"type": "resolve"}] if auto_resolve else [])
    referee = [] if auto_resolve else [{"type": "resolve"}]   # without auto_resolve the referee closes it
    if referee:   # the referee's tap reaches the binding as CameraFeed._follow_session replays it
        binding.state = binding.engine.apply(binding.state, referee[0])
        binding.events.append(referee[0])

    table, _ = TableRegistry(tmp_path / "session").create("dungeon", setup)
    for guild in DUNGEON_GUILDS:
        table.submit(guild)
    for engine_event in camera_events:
        table.submit(engine_event, source="camera")
    for engine_event in referee:
        table.submit(engine_event)
    assert table.engine.view(table.state) == binding.view()
    assert table.active_events() == binding.events   # what CameraFeed._follow_session compares: in step
    assert [(e.event, e.source) for e in table.journal if e.source == "engine"] == \
        ([({"type": "resolve"}, "engine")] if auto_resolve else [])

    config = {key: getattr(TestConfig, key) for key in dir(TestConfig) if key.isupper()}
    config.update(DATA_DIR=str(tmp_path / "web"))
    client = create_app(config).test_client()
    created = client.post("/api/tables", json={"game": "dungeon", **setup})
    assert created.status_code == 201, created.get_json()
    phone = created.get_json()
    for engine_event in DUNGEON_GUILDS + camera_events + referee:
        answer = client.post(f"/api/tables/{phone['id']}/events", json=engine_event, headers={"X-Referee-Pin": phone["pin"]})
        assert answer.status_code in (200, 201), answer.get_json()
    shown = client.get(f"/api/tables/{phone['id']}").get_json()
    assert shown.pop("session")["game"] == "dungeon"
    assert shown == binding.view()


DUNGEON_PHONE_FIGHT = [{"type": "reveal", "card": "3S"}, {"type": "commit", "player": "Ann", "card": "5D"},
                       {"type": "commit", "player": "Bob", "card": "2C"}, {"type": "commit", "player": "Cy", "card": "4S"}]


def _dungeon_phone_client(tmp_path, auto_resolve):
    from web_ui import TestConfig, create_app

    config = {key: getattr(TestConfig, key) for key in dir(TestConfig) if key.isupper()}
    config.update(DATA_DIR=str(tmp_path / "web"))
    client = create_app(config).test_client()
    created = client.post("/api/tables", json={"game": "dungeon", "players": DUNGEON_THREE,
                                               "options": {"auto_resolve": auto_resolve}})
    assert created.status_code == 201, created.get_json()
    phone = created.get_json()
    headers = {"X-Referee-Pin": phone["pin"]}
    for engine_event in DUNGEON_GUILDS + DUNGEON_PHONE_FIGHT:
        answer = client.post(f"/api/tables/{phone['id']}/events", json=engine_event, headers=headers)
        assert answer.status_code == 200, answer.get_json()
    return client, f"/api/tables/{phone['id']}", headers, answer.get_json()


@pytest.mark.parametrize("auto_resolve", [True, False])
def test_dungeon_a_phone_only_table_resolves_by_itself_only_when_the_option_says_so(tmp_path, auto_resolve):
    client, url, headers, last = _dungeon_phone_client(tmp_path, auto_resolve)
    journal = client.get(f"{url}/journal").get_json()["journal"]
    last_commit = journal[-2] if auto_resolve else journal[-1]
    assert last_commit["event"] == DUNGEON_PHONE_FIGHT[-1] and last_commit["source"] == "referee"
    assert last["entry"] == last_commit   # the answer names the referee's own change ...
    assert last["revision"] == journal[-1]["seq"]   # ... and the revision after everything it caused
    shown = client.get(url).get_json()
    if auto_resolve:
        assert journal[-1]["event"] == {"type": "resolve"} and journal[-1]["source"] == "engine"
        assert shown["phase"] == "reveal" and "3S" in str(shown["marker"])
        # the intended change: a resolve sent after the last commit is refused, the encounter is resolved
        again = client.post(f"{url}/events", json={"type": "resolve"}, headers=headers)
        assert again.status_code == 422, again.get_json()
        assert client.get(url).get_json()["session"]["seq"] == journal[-1]["seq"]
    else:
        assert all(entry["source"] == "referee" for entry in journal)
        assert shown["phase"] == "fight"
        tapped = client.post(f"{url}/events", json={"type": "resolve"}, headers=headers)
        assert tapped.status_code == 200 and tapped.get_json()["state"]["phase"] == "reveal"


def test_dungeon_undo_takes_the_automatic_resolve_back_like_any_change(tmp_path):
    client, url, headers, _ = _dungeon_phone_client(tmp_path, True)
    before = client.get(url).get_json()["session"]
    assert before["undo_event"] == {"type": "resolve"}
    undone = client.post(f"{url}/undo", json={"undoes": before["undo_seq"]}, headers=headers)
    assert undone.status_code == 200, undone.get_json()
    state = undone.get_json()["state"]
    assert state["phase"] == "fight" and state["session"]["undo_event"] == DUNGEON_PHONE_FIGHT[-1]
    assert state["session"]["redo_event"] == {"type": "resolve"}
    # the referee corrects the last commit: the session resolves the corrected encounter by itself
    assert client.post(f"{url}/undo", json={}, headers=headers).status_code == 200
    answer = client.post(f"{url}/events", json={"type": "commit", "player": "Cy", "card": "6S"}, headers=headers)
    assert answer.status_code == 200, answer.get_json()
    journal = client.get(f"{url}/journal").get_json()["journal"]
    assert [(e["kind"], e["source"]) for e in journal[-5:]] == [
        ("event", "engine"), ("undo", "referee"), ("undo", "referee"), ("event", "referee"), ("event", "engine")]
    assert answer.get_json()["state"]["phase"] == "reveal"


class _KilledAtWrite:
    """The SQLite store of a server killed as it starts its ``writes``+1-th write of a change (nothing of that write is stored)."""

    def __init__(self, data_dir, writes):
        from companion.session.store import EventStore

        self.store, self.writes = EventStore(data_dir), writes

    def __getattr__(self, name):
        return getattr(self.store, name)

    def append(self, table_id, entry, summary=None):
        if self.writes == 0:
            raise SystemExit("killed")
        self.writes -= 1
        return self.store.append(table_id, entry, summary)


def test_dungeon_a_server_killed_after_the_last_commit_leaves_no_fight_without_its_automatic_resolve(tmp_path):
    """The last commit and the resolve it makes due are one write: a server killed right after writing the
    commit (here: at its next write) cannot leave a journal whose fight nobody resolves."""
    from companion.session.registry import TableRegistry
    from companion.session.store import JournalStore

    JournalStore.register(_KilledAtWrite)
    setup = {"players": DUNGEON_THREE, "options": {"auto_resolve": True}}
    changes = DUNGEON_GUILDS + DUNGEON_PHONE_FIGHT
    killed = _KilledAtWrite(tmp_path, len(changes))   # lives through one write per change the referee makes
    table, _ = TableRegistry(tmp_path, store=killed).create("dungeon", setup)
    try:
        for change in changes:
            table.submit(change)
    except SystemExit:   # the server died writing the resolve on its own, after the commit
        pass
    killed.store.close()
    restarted = TableRegistry(tmp_path).get(table.id)
    journal = restarted.journal
    assert [(e.event, e.source) for e in journal[-2:]] == [(DUNGEON_PHONE_FIGHT[-1], "referee"), ({"type": "resolve"}, "engine")]
    assert restarted.engine.view(restarted.state)["phase"] == "reveal"
