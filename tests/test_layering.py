"""The design card's layering: lower layers never import higher ones, no import cycles, and the runtime
never imports torch.

Imports are read with ``ast`` from the source, so an import inside a function counts exactly like
one at the top of a module: hiding an upward import or a cycle in a function does not pass.
"""
import ast
import pathlib
from collections import defaultdict

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PROJECT_ROOTS = ("companion", "calibration", "web_ui", "vision_models")

# One layer per package, lowest first. Each layer may import only from the layers listed before it
# (and itself). vision_models is training (torch) and sits on top of everything.
LAYERS = [
    ("package metadata", ["companion"]),
    ("messages (text as data: ids and parameters, no language)", ["companion.messages"]),
    ("card model", ["companion.cards"]),
    ("game engines", ["companion.games"]),
    ("translations (catalogues, languages)", ["companion.i18n"]),
    ("calibration", ["calibration"]),
    ("detector runtime", ["companion.vision"]),
    ("synthetic deck and recordings", ["companion.synthetic"]),
    ("table pipeline", ["companion.table"]),
    ("simulator", ["companion.simulate"]),
    ("session", ["companion.session"]),
    ("web UI", ["web_ui"]),
    ("command modules", ["companion.commands"]),
    ("command line", ["companion.cli", "companion.__main__"]),
    ("training", ["vision_models"]),
]


def module_name(file: pathlib.Path) -> str:
    parts = file.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_files() -> dict[str, pathlib.Path]:
    files = {}
    for root in PROJECT_ROOTS:
        for file in sorted((ROOT / root).rglob("*.py")):
            files[module_name(file)] = file
    return files


FILES = project_files()


def imported_modules(file: pathlib.Path):
    """Every project module ``file`` imports, anywhere in it (top level, functions, branches).

    ``from package import name`` counts as importing ``package.name`` when that is a module, else
    ``package`` itself.
    """
    tree = ast.parse(file.read_text(), str(file))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            submodules = [f"{node.module}.{alias.name}" for alias in node.names if f"{node.module}.{alias.name}" in FILES]
            yield from submodules
            if len(submodules) < len(node.names):
                yield node.module


def layer_of(module: str) -> int | None:
    """The index of the layer owning ``module`` (the longest matching package prefix)."""
    best, best_length = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    return best


def project_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for module, file in FILES.items():
        for imported in imported_modules(file):
            if imported.split(".")[0] in PROJECT_ROOTS:
                graph[module].add(imported)
    return graph


GRAPH = project_graph()


def test_every_project_module_belongs_to_a_layer():
    assert [module for module in FILES if layer_of(module) is None] == []


@pytest.mark.parametrize("layer_index", range(len(LAYERS) - 1), ids=[name for name, _ in LAYERS[:-1]])
def test_no_layer_imports_a_higher_one(layer_index):
    offences = []
    for module, imports in sorted(GRAPH.items()):
        if layer_of(module) != layer_index:
            continue
        for imported in sorted(imports):
            target = layer_of(imported)
            if target is not None and target > layer_index:
                offences.append(f"{module} imports {imported} ({LAYERS[target][0]})")
    assert not offences, "\n".join(offences)


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), or a module importing itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def test_the_cycle_finder_sees_a_cycle_hidden_in_a_function(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def later():\n    from companion.games.dungeon.engine import ENGINE\n")
    found = set(imported_modules(module))
    assert "companion.games.dungeon.engine" in found
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_between_project_modules():
    cycles = find_cycles(GRAPH)
    assert not cycles, "\n".join(" <-> ".join(cycle) for cycle in cycles)


def test_the_runtime_never_imports_torch_or_ultralytics():
    offences = []
    for module, file in FILES.items():
        if layer_of(module) == len(LAYERS) - 1:
            continue
        for node in ast.walk(ast.parse(file.read_text(), str(file))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
            offences += [f"{module} imports {name}" for name in names
                         if name.split(".")[0] in {"torch", "ultralytics", "torchvision"}]
    assert not offences, "\n".join(offences)
