"""vision_models/ by stage: the page of `python -m vision_models` follows the chain, every module sits in a
stage, and every `python -m vision_models...` command the docs write names a module that exists."""
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOUSE = ROOT / "vision_models"
# Modules the docs still name where they say what a one-off probe answered, and that it is gone.
REMOVED = {"vision_models.grouping_check", "vision_models.ink_check"}
DOCS = [ROOT / "README.md", ROOT / "README.zh-CN.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(HOUSE.rglob("*.md")),
        *sorted(HOUSE.rglob("*.py")), *sorted((ROOT / "companion").rglob("*.py")), *sorted((ROOT / "benchmarks").glob("*.py")),
        *sorted((ROOT / "scripts").glob("*")), *sorted((ROOT / "tests").glob("*.py"))]


def test_the_page_names_the_chains_steps_in_order_with_modules_that_exist():
    from vision_models import chain
    from vision_models.__main__ import CHAIN_MODULES

    assert list(CHAIN_MODULES) == [step[0] for step in chain.STEPS]
    for modules in CHAIN_MODULES.values():
        for module in modules:
            assert (HOUSE / (module.replace(".", "/") + ".py")).is_file(), module


def test_every_module_is_in_a_stage_and_on_the_page_once():
    from vision_models.__main__ import STAGES, page

    top = {p.name for p in HOUSE.glob("*.py")}
    assert top == {"__init__.py", "__main__.py", "chain.py", "reproduce.py"}, "a new script goes into its stage"
    stages = {p.name for p in HOUSE.iterdir() if (p / "__init__.py").is_file()}
    assert stages == {stage for stage, _ in STAGES}
    text = page()
    for stage in stages:
        for module in sorted((HOUSE / stage).glob("*.py")):
            if module.stem != "__init__":
                assert len(re.findall(rf"^  {stage}\.{module.stem} ", text, re.M)) == 1, (stage, module.stem)


def test_python_m_vision_models_prints_the_page():
    done = subprocess.run([sys.executable, "-m", "vision_models"], capture_output=True, text=True, cwd=ROOT, check=True)
    from vision_models import chain

    steps = [re.match(r"\s+\d+\. (\S+)", line)[1] for line in done.stdout.splitlines() if re.match(r"\s+\d+\. \S+\s", line)]
    assert steps == [step[0] for step in chain.STEPS]
    assert "checks.real_check" in done.stdout and "[library]" in done.stdout


def test_every_command_the_docs_write_names_a_module_that_exists():
    named = {}
    for path in DOCS:
        if path.is_file() and path.suffix in {".md", ".py", ".sh", ""}:
            for module in re.findall(r"\b(vision_models(?:\.[A-Za-z_]\w*)+)", path.read_text(errors="replace")):
                named.setdefault(module, path)
    assert len(named) > 30, named
    missing = {m: str(p.relative_to(ROOT)) for m, p in named.items() if m not in REMOVED and not _exists(m)}
    assert not missing


def _exists(dotted: str) -> bool:
    """A module, or an attribute path inside one (``vision_models.data.artwork.HOLDOUT_DECKS``)."""
    parts = dotted.split(".")
    for end in range(len(parts), 1, -1):
        name = ".".join(parts[:end])
        if (HOUSE.parent / (name.replace(".", "/") + ".py")).is_file() or (HOUSE.parent / name.replace(".", "/") / "__init__.py").is_file():
            return end == len(parts) or _has(name, parts[end:])
    return False


def _has(module: str, attributes: list[str]) -> bool:
    spec = importlib.util.find_spec(module)
    source = Path(spec.origin).read_text()
    return bool(re.search(rf"^(?:def |class |){attributes[0]}\b", source, re.M))
