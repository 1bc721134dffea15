"""scripts/setup.sh: a rerun with nothing changed only checks; a changed pyproject.toml installs again;
onnxruntime-web is installed from package-lock.json and vendored into the static files (again when
the folder went missing), never on a rerun that finds it."""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
ORT_FILES = ("ort.wasm.min.js", "ort.webgpu.min.js", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm",
             "ort-wasm-simd-threaded.jsep.mjs", "ort-wasm-simd-threaded.jsep.wasm")


def fake_checkout(tmp_path: pathlib.Path) -> pathlib.Path:
    """The script (and the catalogue compiler it runs) and pyproject.toml beside a .venv whose python is this one, and whose pip only says it ran."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "setup.sh", tmp_path / "scripts" / "setup.sh")
    shutil.copy(ROOT / "scripts" / "i18n.py", tmp_path / "scripts" / "i18n.py")   # every run compiles the catalogues
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for name in ("package.json", "package-lock.json"):
        shutil.copy(ROOT / name, tmp_path / name)
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    # npm, first on PATH: logs its arguments and unpacks a stand-in of the package's dist folder
    dist = tmp_path / "node_modules" / "onnxruntime-web" / "dist"
    npm = bin_dir / "npm"
    npm.write_text(f"#!/bin/sh\necho \"npm $*\" >> {tmp_path}/npm.log\nmkdir -p {dist}\n"
                   f"for f in {' '.join(ORT_FILES)}; do echo \"$f\" > {dist}/$f; done\n")
    npm.chmod(0o755)
    python = bin_dir / "python"
    python.write_text(f"#!/bin/sh\nif [ \"$2\" = pip ]; then echo pip-ran >> {tmp_path}/pip.log; exit 0; fi\n"
                      f"PYTHONPATH={ROOT} exec {sys.executable} \"$@\"\n")
    python.chmod(0o755)
    return tmp_path


def run(checkout: pathlib.Path) -> str:
    env = {**os.environ, "PATH": f"{checkout / '.venv' / 'bin'}:{os.environ['PATH']}"}
    result = subprocess.run(["bash", "scripts/setup.sh"], cwd=checkout, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_rerun_only_checks(tmp_path):
    checkout = fake_checkout(tmp_path)
    assert "ready" in run(checkout)
    installs = (checkout / "pip.log").read_text().count("pip-ran")
    assert installs >= 1
    assert "nothing installed" in run(checkout)
    assert (checkout / "pip.log").read_text().count("pip-ran") == installs
    with open(checkout / "pyproject.toml", "a") as handle:
        handle.write("\n# changed\n")
    assert "ready" in run(checkout)
    assert (checkout / "pip.log").read_text().count("pip-ran") > installs


def test_onnxruntime_web_is_vendored_once_at_the_pinned_version(tmp_path):
    checkout = fake_checkout(tmp_path)
    pinned = json.loads((ROOT / "package.json").read_text())["dependencies"]["onnxruntime-web"]
    locked = json.loads((ROOT / "package-lock.json").read_text())["packages"]["node_modules/onnxruntime-web"]["version"]
    assert pinned == locked and pinned[0].isdigit(), "package.json pins an exact version, the lock agrees"
    assert "vendored" in run(checkout)
    vendor = checkout / "web_ui" / "static" / "vendor"
    assert sorted(p.name for p in vendor.iterdir()) == sorted((*ORT_FILES, "VERSION"))
    assert (vendor / "VERSION").read_text().strip() == pinned
    assert (vendor / "ort-wasm-simd-threaded.wasm").read_text().strip() == "ort-wasm-simd-threaded.wasm"
    assert (checkout / "npm.log").read_text().splitlines() == ["npm ci --ignore-scripts --no-audit --no-fund --loglevel=error"]
    assert "nothing installed" in run(checkout)
    assert len((checkout / "npm.log").read_text().splitlines()) == 1, "a rerun finding the folder runs no npm"
    shutil.rmtree(vendor)
    out = run(checkout)
    assert "nothing installed" in out and "vendored" in out, "a missing folder is vendored again without reinstalling"
    assert len((checkout / "npm.log").read_text().splitlines()) == 2
    assert (vendor / "VERSION").read_text().strip() == pinned


def test_the_vendored_files_are_never_committed():
    ignored = subprocess.run(["git", "check-ignore", "-q", "web_ui/static/vendor/ort.wasm.min.js"], cwd=ROOT)
    assert ignored.returncode == 0, "web_ui/static/vendor/ is gitignored"
    assert subprocess.run(["git", "check-ignore", "-q", "node_modules/x"], cwd=ROOT).returncode == 0
