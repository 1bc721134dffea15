"""The design card's layering: lower layers never import higher ones, and the runtime never imports torch."""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

# Each layer may import only from the layers listed before it (and itself).
LAYERS = [
    ("card model", ["companion/cards.py"]),
    ("game engines", ["companion/games"]),
    ("table pipeline", ["companion/vision", "companion/table", "companion/synthetic", "calibration"]),
    ("simulator and session", ["companion/simulate", "companion/session"]),
    ("web UI and CLI", ["web_ui", "companion/commands", "companion/cli.py"]),
]
MODULE_PREFIX = {
    "companion/cards.py": "companion.cards", "companion/games": "companion.games", "companion/vision": "companion.vision",
    "companion/table": "companion.table", "companion/synthetic": "companion.synthetic", "calibration": "calibration",
    "companion/simulate": "companion.simulate", "companion/session": "companion.session", "web_ui": "web_ui",
    "companion/commands": "companion.commands", "companion/cli.py": "companion.cli",
}


def python_files(path: str):
    target = ROOT / path
    if target.is_file():
        return [target]
    return sorted(target.rglob("*.py")) if target.exists() else []


def imported_modules(file: pathlib.Path):
    tree = ast.parse(file.read_text(), str(file))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module


def higher_layer_prefixes(layer_index: int):
    return [MODULE_PREFIX[p] for _, paths in LAYERS[layer_index + 1:] for p in paths]


@pytest.mark.parametrize("layer_index", range(len(LAYERS) - 1), ids=[name for name, _ in LAYERS[:-1]])
def test_no_layer_imports_a_higher_one(layer_index):
    forbidden = higher_layer_prefixes(layer_index)
    offences = []
    for path in LAYERS[layer_index][1]:
        for file in python_files(path):
            for module in imported_modules(file):
                if any(module == f or module.startswith(f + ".") for f in forbidden):
                    offences.append(f"{file.relative_to(ROOT)} imports {module}")
    assert not offences, "\n".join(offences)


def test_the_runtime_never_imports_torch_or_ultralytics():
    offences = []
    for folder in ["companion", "web_ui", "calibration"]:
        for file in python_files(folder):
            for module in imported_modules(file):
                if module.split(".")[0] in {"torch", "ultralytics", "torchvision"}:
                    offences.append(f"{file.relative_to(ROOT)} imports {module}")
    assert not offences, "\n".join(offences)
