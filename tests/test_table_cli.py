"""The command line: ``companion mat``, ``companion demo render`` and ``companion table run``."""
import json

import pytest

from companion.cli import main


def test_mat_writes_a_pdf_for_each_game(tmp_path, capsys):
    for game, players, paper in (("kingdoms", None, "A3"), ("dungeon", 4, "A4-tiled"), ("chosen", 3, "A3")):
        out = tmp_path / f"{game}.pdf"
        argv = ["mat", "--game", game, "--paper", paper, "--out", str(out)] + (["--players", str(players)] if players else [])
        assert main(argv) == 0
        assert out.read_bytes().startswith(b"%PDF")
    text = capsys.readouterr().out
    assert "dungeon-4p mat" in text and "true scale" in text


def test_mat_errors_are_one_clear_line(tmp_path, capsys):
    assert main(["mat", "--game", "chosen", "--players", "7", "--out", str(tmp_path / "x.pdf")]) == 2
    assert "no shipped chosen mat for 7 players" in capsys.readouterr().err
    assert main(["mat", "--out", str(tmp_path / "x.pdf")]) == 2
    assert main(["mat", "--game", "dungeon", "--out", str(tmp_path / "x.png")]) == 2
    assert main(["mat", "--layout", str(tmp_path / "none.json"), "--out", str(tmp_path / "x.pdf")]) == 2
    assert "no mat layout" in capsys.readouterr().err


@pytest.fixture(scope="module")
def chosen_recording(tmp_path_factory):
    out = tmp_path_factory.mktemp("rec") / "chosen"
    assert main(["demo", "render", "--game", "chosen", "--seed", "4", "--out", str(out), "--size", "512x384", "--fps", "6",
                 "--card-truth"]) == 0
    return out


def test_demo_render_then_table_run_reaches_the_truth(chosen_recording, capsys):
    capsys.readouterr()
    code = main(["table", "run", "--game", "chosen", "--source", str(chosen_recording), "--detector", "truth",
                 "--json", "--check-truth"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0 and result["truth_matched"] is True
    truth = json.loads((chosen_recording / "truth.json").read_text())
    assert result["state"] == truth["final_state"]          # rendered just now by today's engine
    assert result["engine_events"] == truth["setup_events"] + truth["events"]
    assert result["truth_events_applied"] == [len(truth["events"])] * 2


def test_table_run_text_output_and_a_wrong_setup_fails_the_truth(chosen_recording, capsys, tmp_path):
    capsys.readouterr()
    assert main(["table", "run", "--game", "chosen", "--source", str(chosen_recording), "--detector", "truth"]) == 0
    text = capsys.readouterr().out
    assert "chosen:" in text and "mat chosen-2p" in text
    # other player names: the referee reaches a different state, and --check-truth says so
    code = main(["table", "run", "--game", "chosen", "--source", str(chosen_recording), "--detector", "truth",
                 "--players", "Zed,Yan", "--check-truth"])
    text = capsys.readouterr().out
    assert code == 1 and "DIFFERS" in text
    truth = json.loads((chosen_recording / "truth.json").read_text())
    assert f"of its {len(truth['events'])} engine events were applied" in text


def test_truth_events_are_counted_as_a_multiset():
    from companion.commands.table import _events_in_common

    truth = [{"type": "end_turn"}, {"type": "end_turn"}, {"type": "chip", "onto": "Ann"}]
    applied = [{"type": "end_turn"}, {"onto": "Ann", "type": "chip"}, {"type": "chip", "onto": "Bob"}, {"type": "end_turn"},
               {"type": "end_turn"}]
    assert _events_in_common(truth, applied) == [3, 3]
    assert _events_in_common(truth, applied[:2]) == [2, 3]


def test_table_run_errors_are_clear(tmp_path, capsys, chosen_recording):
    assert main(["table", "run", "--game", "chosen", "--source", str(tmp_path / "nothing")]) == 2
    assert "no such camera, video file or folder" in capsys.readouterr().err
    assert main(["table", "run", "--game", "chosen", "--source", str(tmp_path), "--detector", "truth"]) == 2
    err = capsys.readouterr().err
    assert "holds no images" in err or "cards.jsonl" in err
    assert main(["table", "run", "--game", "dungeon", "--source", str(chosen_recording), "--mat", "none",
                 "--detector", "truth"]) == 2
    assert "needs its mat" in capsys.readouterr().err
    assert main(["table", "run", "--game", "chosen", "--source", str(chosen_recording), "--players", "Solo"]) == 2
    assert "at least two" in capsys.readouterr().err
    # --setup FILE: the file named and what is wrong with it, not Python's json or the OS's words
    setup = tmp_path / "setup.json"
    for content, said in ((None, f"{setup}: no such file"),
                          ('{"players": ["Ann" "Bob"]}', f"{setup}: not JSON (a comma was expected at line 1, character 20)"),
                          ('["Ann", "Bob"]', f"{setup} must hold a JSON object")):
        if content is not None:
            setup.write_text(content)
        assert main(["table", "run", "--game", "chosen", "--source", str(chosen_recording), "--setup", str(setup)]) == 2
        assert capsys.readouterr().err.strip() == f"companion: error: {said}"


def test_demo_render_refuses_bad_settings(tmp_path, capsys):
    assert main(["demo", "render", "--game", "kingdoms", "--out", str(tmp_path / "r"), "--fps", "0"]) == 2
    assert "--fps" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["demo", "render", "--game", "kingdoms", "--out", str(tmp_path / "r"), "--size", "huge"])


def test_charuco_board_and_lens_calibration_from_a_folder_of_views(tmp_path, capsys):
    import cv2
    import numpy as np

    from calibration.homography import charuco_board

    assert main(["mat", "--charuco", "--paper", "A4", "--out", str(tmp_path / "board.pdf")]) == 0
    assert (tmp_path / "board.pdf").read_bytes().startswith(b"%PDF")
    board = charuco_board()
    margin, px_per_mm = 40, 1400 / 210
    image = cv2.cvtColor(board.generateImage((1400 + 2 * margin, 1000 + 2 * margin), marginSize=margin), cv2.COLOR_GRAY2BGR)
    camera = np.array([[900.0, 0, 640], [0, 900.0, 480], [0, 0, 1]])
    to_mm = np.array([[1 / px_per_mm, 0, -margin / px_per_mm], [0, 1 / px_per_mm, -margin / px_per_mm], [0, 0, 1]])
    views = tmp_path / "views"
    views.mkdir()
    for n, (rx, ry) in enumerate(((0.3, 0.1), (-0.25, 0.3), (0.1, -0.3), (0.35, -0.1), (-0.3, -0.2))):
        rotation, _ = cv2.Rodrigues(np.array([rx, ry, 0.05 * n]))
        translation = rotation @ np.array([-105.0, -75.0, 0.0]) + np.array([0.0, 0.0, 400.0])
        homography = camera @ np.column_stack([rotation[:, 0], rotation[:, 1], translation]) @ to_mm
        cv2.imwrite(str(views / f"{n}.png"), cv2.warpPerspective(image, homography, (1280, 960), borderValue=(255, 255, 255)))
    capsys.readouterr()
    assert main(["table", "calibrate-lens", "--source", str(views), "--out", str(tmp_path / "cam.json"), "--every", "1"]) == 0
    assert "reprojection error" in capsys.readouterr().out
    saved = json.loads((tmp_path / "cam.json").read_text())
    assert abs(saved["camera_matrix"][0][0] - 900) < 45
    # too few views of the board: a clear error
    for extra in list(views.iterdir())[2:]:
        extra.unlink()
    assert main(["table", "calibrate-lens", "--source", str(views), "--out", str(tmp_path / "c2.json"), "--every", "1"]) == 2
    assert "at least 4" in capsys.readouterr().err
