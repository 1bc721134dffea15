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
    """The script (and the catalogue compiler it runs, with the catalogues it compiles) and pyproject.toml beside a
    .venv whose python is this one, and whose pip only says it ran."""
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
    with_its_own_catalogues(tmp_path)
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


def with_its_own_catalogues(checkout: pathlib.Path) -> pathlib.Path:
    """The checkout's own catalogue compiler and catalogues (scripts/i18n.py imports the checkout's
    ``companion`` first): every run of the script compiles those, never this worktree's, which other tests
    (other test processes at the same moment, under pytest -n) are reading; and breaking them leaves this
    worktree's alone. Their folder."""
    package = checkout / "companion"
    package.mkdir()
    shutil.copy(ROOT / "companion" / "__init__.py", package / "__init__.py")
    shutil.copy(ROOT / "companion" / "messages.py", package / "messages.py")
    shutil.copytree(ROOT / "companion" / "i18n", package / "i18n", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "companion" / "locale", package / "locale", ignore=shutil.ignore_patterns("*.mo"))
    return package / "locale" / "zh_Hans" / "LC_MESSAGES"


def run_failing(checkout: pathlib.Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{checkout / '.venv' / 'bin'}:{os.environ['PATH']}"}
    return subprocess.run(["bash", "scripts/setup.sh"], cwd=checkout, env=env, capture_output=True, text=True, timeout=60)


def test_a_catalogue_that_does_not_compile_stops_setup_with_a_clear_message(tmp_path):
    checkout = fake_checkout(tmp_path)
    catalogues = checkout / "companion" / "locale" / "zh_Hans" / "LC_MESSAGES"
    assert "ready" in run(checkout)
    assert (catalogues / "messages.mo").is_file()   # the checkout's own catalogue was compiled
    compiled = (catalogues / "messages.mo").read_bytes()
    stamps = {p.name: p.read_text() for p in (checkout / ".venv").glob(".setup-*")}
    assert stamps
    po = catalogues / "messages.po"
    text = po.read_text(encoding="utf-8")
    # a translation whose placeholder is not its msgid's: shown, it would fail or say the wrong thing
    broken = text.replace('msgstr "规则：%(rules)s"', 'msgstr "规则：%(rule)s"', 1)
    assert broken != text
    po.write_text(broken, encoding="utf-8")
    line = broken[: broken.index('msgstr "规则：%(rule)s"')].count("\n")   # the msgid's line (1-based) is just above
    for checkout_state in ("installed", "pyproject changed"):
        if checkout_state == "pyproject changed":
            with open(checkout / "pyproject.toml", "a") as handle:
                handle.write("\n# changed\n")
        result = run_failing(checkout)
        assert result.returncode == 1, (checkout_state, result.stdout, result.stderr)
        assert "setup: stopped: a translation catalogue does not compile" in result.stderr
        assert f"{po}:{line}" in result.stderr and "rules: %(rules)s" in result.stderr, result.stderr
        assert "ready" not in result.stdout and "nothing installed" not in result.stdout
        assert (catalogues / "messages.mo").read_bytes() == compiled   # the last good one stays
    # the stamp of the pyproject that failed was not written: the next run installs again
    assert {p.name: p.read_text() for p in (checkout / ".venv").glob(".setup-*")} == stamps
    # a broken line (an unclosed quote) is named too
    po.write_text(text.replace('msgstr "规则：%(rules)s"', 'msgstr "规则：%(rules)s', 1), encoding="utf-8")
    result = run_failing(checkout)
    assert result.returncode == 1 and "not a line of a gettext catalogue" in result.stderr, result.stderr
    po.write_text(text, encoding="utf-8")
    assert "ready" in run(checkout)


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
