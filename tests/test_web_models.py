"""GET /api/models and /api/models/<file>: the shipped models and the reading contract a phone reads with,
and the headers that let the page run WebAssembly threads (cross-origin isolation)."""
from __future__ import annotations

import hashlib

import pytest

from companion.vision import detector as reading
from companion.vision.models import ModelsManifest, models_fingerprint
from web_ui import create_app
from web_ui import models as served


@pytest.fixture
def client(tmp_path):
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "CAMERA_DETECTION": False})
    return app.test_client()


def test_the_contract_is_the_python_readers_own(client):
    answer = client.get("/api/models").get_json()
    manifest = ModelsManifest.load()
    assert answer["models"] == models_fingerprint()
    assert answer["detector"]["imgsz"] == manifest.detector.imgsz and answer["classifier"]["imgsz"] == manifest.classifier.imgsz
    assert tuple(answer["classifier"]["classes"]) == manifest.classifier.classes
    assert answer["thresholds"] == manifest.thresholds
    assert answer["classifier"]["crop_expand"] == manifest.crop_expand
    contract = answer["contract"]
    assert contract["target_index_px"] == reading.TARGET_INDEX_PX and contract["tile_below_px"] == reading.TILE_BELOW_PX
    assert contract["photo_tile_below_px"] == reading.PHOTO_TILE_BELOW_PX
    assert contract["oriented_aspect"] == reading.ORIENTED_ASPECT and contract["rotations"] == list(reading.ROTATIONS)
    # the server's own reader loads the int8 copies (ModelSpec.path_for, onnxruntime, "auto")
    assert answer["precision"] == "int8"
    assert answer["detector"]["int8"]["file"] == manifest.detector.path_for("onnxruntime").name


def test_each_model_file_is_served_whole_with_its_hash_and_a_long_cache(client):
    answer = client.get("/api/models").get_json()
    for network in ("detector", "classifier"):
        for precision in ("f32", "int8"):
            entry = answer[network][precision]
            response = client.get(entry["url"])
            assert response.status_code == 200 and response.mimetype == "application/octet-stream"
            assert hashlib.sha256(response.data).hexdigest() == entry["sha256"] and len(response.data) == entry["bytes"]
            assert "immutable" in response.headers["Cache-Control"] and "max-age=31536000" in response.headers["Cache-Control"]
            again = client.get(entry["url"], headers={"If-None-Match": response.headers["ETag"]})
            assert again.status_code == 304


@pytest.mark.parametrize("name", ["models.json", "nothing.onnx", "..%2Fmodels.json", "detector.onnx.bak"])
def test_only_the_manifests_files_are_served(client, name):
    response = client.get(f"/api/models/{name}")
    assert response.status_code == 404 and response.get_json()["error"]


def test_a_server_without_models_says_so(tmp_path):
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "CAMERA_DETECTION": False, "MODELS_DIR": str(tmp_path)})
    client = app.test_client()
    response = client.get("/api/models")
    assert response.status_code == 404 and "models.json" in response.get_json()["error"]
    assert client.get("/api/models/detector.onnx").status_code == 404


def test_the_runtime_is_named_only_when_it_was_vendored(client, monkeypatch, tmp_path):
    vendor = tmp_path / "vendor"
    vendor.mkdir()
    monkeypatch.setattr(served, "VENDOR", vendor)
    assert client.get("/api/models").get_json()["runtime"] is None
    for name in served.RUNTIME_FILES:
        (vendor / name).write_text("x")
    (vendor / "VERSION").write_text("1.22.0\n")
    runtime = client.get("/api/models").get_json()["runtime"]
    assert runtime == {"version": "1.22.0", "path": "/static/vendor/", "webgpu": False}


def test_pages_are_cross_origin_isolated_and_may_compile_webassembly(client):
    table = client.post("/api/tables", json={"game": "kingdoms", "players": [{"name": "Ann", "suits": ["H", "D"]},
                                                                            {"name": "Bo", "suits": ["S", "C"]}]}).get_json()
    page = client.get(f"/t/{table['id']}")
    assert page.headers["Cross-Origin-Opener-Policy"] == "same-origin"
    assert page.headers["Cross-Origin-Embedder-Policy"] == "require-corp"
    policy = page.headers["Content-Security-Policy"]
    assert "'wasm-unsafe-eval'" in policy and "'unsafe-eval'" not in policy.replace("'wasm-unsafe-eval'", "")
    static = client.get("/static/camera.js")
    assert static.headers["Cross-Origin-Resource-Policy"] == "same-origin"


def test_the_server_says_how_phones_read(tmp_path):
    default = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "a"), "CAMERA_DETECTION": False}).test_client()
    assert default.get("/api/models").get_json()["reader"] == {"enabled": True, "slow_read_ms": 3000.0}
    frames_only = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "b"), "CAMERA_DETECTION": False,
                              "PHONE_READER": False, "READER_SLOW_MS": 500}).test_client()
    assert frames_only.get("/api/models").get_json()["reader"] == {"enabled": False, "slow_read_ms": 500.0}


def test_the_classifiers_embedding_copy_is_served_with_its_hash(client):
    import onnx

    answer = client.get("/api/models").get_json()
    for precision in ("f32", "int8"):
        entry = answer["classifier"]["embedding"][precision]
        response = client.get(entry["url"])
        assert response.status_code == 200 and hashlib.sha256(response.data).hexdigest() == entry["sha256"]
        outputs = [output.name for output in onnx.load_from_string(response.data).graph.output]
        assert outputs[0] == "output0" and "embedding" in outputs
        assert client.get(entry["url"], headers={"If-None-Match": f'"{entry["sha256"]}"'}).status_code == 304


def test_a_tables_learned_deck_is_exported_for_the_phone_and_cached_by_its_version(tmp_path):
    import base64

    import numpy as np

    from companion.vision.decks.profile import DeckProfile
    from companion.vision.decks.store import DeckStore

    rng = np.random.default_rng(5)
    prototypes = rng.normal(size=(6, 1280)).astype(np.float32)
    prototypes /= np.linalg.norm(prototypes, axis=1, keepdims=True)
    back = np.full((18, 8), 1 / 144, np.float32)
    DeckStore(tmp_path / "data").save(DeckProfile("home", ("AS", "AS", "2S", "KH", "BJ", "SJ"), prototypes, back,
                                                  {"none_floor": 0.71}, np.zeros((6, 13), np.float32)))
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "CAMERA_DETECTION": False})
    client = app.test_client()
    table = client.post("/api/tables", json={"game": "chosen", "players": ["Ann", "Bo"]}).get_json()
    path = f"/api/tables/{table['id']}/deck/profile"
    assert client.get(path).get_json()["deck"] is None            # the general models: nothing to read with
    assert client.post(f"/api/tables/{table['id']}/deck", json={"deck": "home"}, headers={"X-Referee-Pin": table["pin"]}).status_code == 200
    response = client.get(path)
    body = response.get_json()
    assert response.status_code == 200 and response.headers["ETag"] == f'"{body["version"]}"'
    assert body["deck"] == "home" and body["codes"] == ["AS", "AS", "2S", "KH", "BJ", "SJ"] and body["dim"] == 1280
    assert np.array_equal(np.frombuffer(base64.b64decode(body["prototypes"]), "<f4").reshape(6, 1280), prototypes)
    assert np.array_equal(np.frombuffer(base64.b64decode(body["back"]), "<f4").reshape(18, 8), back)
    assert body["none_floor"] == 0.71 and body["trusted"] is True
    # Detector.with_deck's thresholds (a back learned: the deck's back threshold too), the general closer look
    assert body["thresholds"] == {"conf": reading.DECK_INDEX_CONF, "back_conf": reading.DECK_BACK_CONF, "max_zoom": reading.MAX_ZOOM}
    assert client.get(path, headers={"If-None-Match": response.headers["ETag"]}).status_code == 304
    assert client.get("/api/tables/NOSUCH/deck/profile").status_code == 404


def test_a_deck_too_large_for_a_phone_is_refused_with_why(tmp_path, monkeypatch):
    import numpy as np

    from companion.vision.decks.profile import DeckProfile
    from companion.vision.decks.store import DeckStore

    monkeypatch.setattr(served, "MAX_BROWSER_PROTOTYPES", 3)
    DeckStore(tmp_path / "data").save(DeckProfile("big", ("AS", "2S", "3S", "4S"), np.eye(4, 1280, dtype=np.float32)))
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "CAMERA_DETECTION": False, "DEFAULT_DECK": "big"})
    client = app.test_client()
    table = client.post("/api/tables", json={"game": "chosen", "players": ["Ann", "Bo"]}).get_json()
    response = client.get(f"/api/tables/{table['id']}/deck/profile")
    assert response.status_code == 413 and "big" in response.get_json()["error"]


def test_the_pages_classifier_copy_reads_a_frames_crops_in_one_run_as_one_by_one(client):
    """The classifier's embedding copy the page runs takes any number of crops a run (a free batch
    dimension) and gives each crop what a run of its own gives: the page classifies a frame's crops in one run."""
    import numpy as np
    import onnxruntime

    answer = client.get("/api/models").get_json()
    entry = answer["classifier"]["embedding"]["int8"]
    session = onnxruntime.InferenceSession(client.get(entry["url"]).data, providers=["CPUExecutionProvider"])
    size = answer["classifier"]["imgsz"]
    crops = np.random.default_rng(3).random((5, 3, size, size), dtype=np.float32)
    name = session.get_inputs()[0].name
    together = session.run(None, {name: crops})
    for k in range(len(crops)):
        alone = session.run(None, {name: crops[k:k + 1]})
        for joint, single in zip(together, alone):
            assert np.allclose(joint[k], single[0], atol=1e-5)
    assert together[0].shape[0] == len(crops)


def test_the_pages_incremental_reading_takes_the_servers_constants(client):
    from companion.table.pipeline import PipelineConfig
    from companion.vision import incremental

    told = client.get("/api/models").get_json()["contract"]["incremental"]
    assert told == {"shrink": incremental.SHRINK, "changed_levels": incremental.CHANGED_LEVELS,
                    "same_box_iou": incremental.SAME_BOX_IOU, "recheck_every": incremental.RECHECK_EVERY_FRAMES,
                    "whole_pass_every_changed": incremental.WHOLE_PASS_EVERY_CHANGED,
                    "settled_after_readings": incremental.SETTLED_AFTER_READINGS,
                    "keep_above_confidence": incremental.KEEP_ABOVE_CONFIDENCE,
                    "rescale": PipelineConfig().detector_rescale}
