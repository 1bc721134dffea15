"""benchmarks/side_by_side.py: two revisions' benchmark rows in one table, each from its own tree's code."""
from __future__ import annotations

import importlib.util
import pathlib
import subprocess

import pytest

HERE = pathlib.Path(__file__).resolve().parent


def _load():
    spec = importlib.util.spec_from_file_location("side_by_side", HERE.parent / "benchmarks" / "side_by_side.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = '''
from toy_speed import SECONDS


def run(quick):
    return [{{"name": "a frame", "median": SECONDS, "unit": "s"}}{extra}]
'''


def _git(repo: pathlib.Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True, capture_output=True)


def test_each_revision_reads_its_own_code_and_the_ratio_is_after_over_before(tmp_path, monkeypatch, capsys):
    repo = tmp_path / "repo"
    (repo / "benchmarks").mkdir(parents=True)
    (repo / "toy_speed.py").write_text("SECONDS = 2.0\n")
    (repo / "benchmarks" / "bench_toy.py").write_text(BENCH.format(extra=""))
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "before")
    # the working tree: the code got slower and gained a row
    (repo / "toy_speed.py").write_text("SECONDS = 3.0\n")
    (repo / "benchmarks" / "bench_toy.py").write_text(BENCH.format(extra=', {"name": "new", "median": 1.0, "unit": "s"}'))
    side_by_side = _load()
    monkeypatch.setattr(side_by_side, "ROOT", repo)
    assert side_by_side.main(["toy", "--before", "HEAD", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "a frame" in line)
    assert [cell.strip() for cell in row.split("|")] == ["toy", "a frame", "2", "3", "1.500", "s"]
    assert [cell.strip() for cell in next(line for line in out.splitlines() if "new" in line).split("|")][2:5] == ["–", "1", "–"]
    # the worktree is gone again
    listed = subprocess.run(["git", "worktree", "list"], cwd=repo, capture_output=True, text=True).stdout
    assert len(listed.strip().splitlines()) == 1


def test_an_unknown_revision_is_refused(tmp_path, monkeypatch):
    side_by_side = _load()
    monkeypatch.setattr(side_by_side, "ROOT", HERE.parent)
    with pytest.raises(SystemExit):
        side_by_side.main(["detect", "--before", "no-such-revision-at-all"])
