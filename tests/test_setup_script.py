"""scripts/setup.sh: a rerun with nothing changed only checks; a changed pyproject.toml installs again."""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def fake_checkout(tmp_path: pathlib.Path) -> pathlib.Path:
    """The script (and the catalogue compiler it runs) and pyproject.toml beside a .venv whose python is this one, and whose pip only says it ran."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "setup.sh", tmp_path / "scripts" / "setup.sh")
    shutil.copy(ROOT / "scripts" / "i18n.py", tmp_path / "scripts" / "i18n.py")   # every run compiles the catalogues
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
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
