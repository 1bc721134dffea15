"""The app behind the real server (uvicorn, as ``companion serve`` runs it): live changes reach a
watching phone as they happen (each one, in order, while the stream stays open), each as a patch that
rebuilds the state, and a dropped connection resumes with Last-Event-ID exactly once. How fast and how
many: ``benchmarks/bench_web.py``, ``benchmarks/load_web.py``."""
from __future__ import annotations



from helpers.web import KINGDOMS, StreamReader, request, running_server


def test_a_watching_phone_sees_each_change_while_the_stream_is_open(tmp_path):
    with running_server(tmp_path) as (base, _):
        status, table = request(base, "POST", "/api/tables", KINGDOMS)
        assert status == 201
        watcher = StreamReader(base, f"/api/tables/{table['id']}/stream")
        assert watcher.wait_for(1)[0]["event"] == "snapshot"
        for index, card in enumerate(["10H", "5D", "KS"]):
            status, _ = request(base, "POST", f"/api/tables/{table['id']}/events",
                                {"type": "place", "cell": [6, 6 + index], "card": card}, {"X-Referee-Pin": table["pin"]})
            assert status == 200
            # Each change arrives on the open stream before the next is made (not at the stream's end).
            assert len(watcher.wait_for(index + 2)) == index + 2
            assert watcher.events[-1]["data"]["event"]["card"] == card
        watcher.close()
        assert [e["id"] for e in watcher.events] == [0, 1, 2, 3]
        assert all(e["data"]["rev"] == e["id"] for e in watcher.events)
        assert watcher.state["board"]["rows"] == [["10H", "5D", "KS"]]
        _, state = request(base, "GET", f"/api/tables/{table['id']}")
        assert watcher.state == state


def test_a_dropped_stream_resumes_without_loss_or_doubling(tmp_path):
    with running_server(tmp_path) as (base, _):
        _, table = request(base, "POST", "/api/tables", KINGDOMS)
        pin = {"X-Referee-Pin": table["pin"]}
        path = f"/api/tables/{table['id']}"
        first = StreamReader(base, path + "/stream")
        request(base, "POST", path + "/events", {"type": "place", "cell": [6, 6], "card": "10H"}, pin)
        seen = first.wait_for(2)
        first.close()  # the phone sleeps
        request(base, "POST", path + "/events", {"type": "place", "cell": [6, 7], "card": "5D"}, pin)
        request(base, "POST", path + "/undo", {}, pin)
        request(base, "POST", path + "/redo", {}, pin)
        # The phone kept what it had.
        second = StreamReader(base, path + "/stream", {"Last-Event-ID": str(seen[-1]["id"])}, state=first.state)
        resumed = second.wait_for(3)
        request(base, "POST", path + "/events", {"type": "place", "cell": [6, 8], "card": "KS"}, pin)
        resumed = second.wait_for(4)
        second.close()
        ids = [e["id"] for e in seen + resumed]
        assert ids == [0, 1, 2, 3, 4, 5]
        assert [e["data"]["kind"] for e in resumed] == ["event", "undo", "redo", "event"]
        assert second.state["board"]["rows"] == [["10H", "5D", "KS"]]
        _, state = request(base, "GET", path)
        assert state["session"]["seq"] == 5 and second.state == state
