"""The house of the models: every stage of vision_models/, in the order the chain runs them.

    python -m vision_models          # this page: the chain's steps, then every module by stage
    python -m vision_models --help

Each module's line is the first line of its docstring, read from the source (nothing is imported, so
the page needs neither torch nor the data). ``python -m vision_models.<stage>.<module> --help`` says more.
"""
from __future__ import annotations

import argparse
import ast
from pathlib import Path

HOUSE = Path(__file__).resolve().parent
# The stage packages, in the order the chain runs them: data (its steps 2-5), train (6-7; step 1 only
# recovers the weights training starts from), checks (8); then the table ending again: data (9), train
# (10-11), checks (12).
STAGES = (
    ("data", "card artwork, rendered scenes and real photos made into training and measuring sets"),
    ("train", "the runs that make the detector and the classifier, their continuations, the export to ONNX and int8"),
    ("checks", "the shipped (or a candidate) models measured on real photos, rendered scenes and recordings"),
)
# Each step of vision_models.chain (its STEPS, in order) and the modules that do its work; the chain's
# own functions glue them (tests/test_vision_layout.py keeps this in step with chain.STEPS).
CHAIN_MODULES = {
    "recover": ("train.recover",),
    "artwork": ("data.artwork",),
    "real-labels": ("data.real_labels",),
    "scenes": ("data.synth", "data.distractors", "data.table_scenes"),
    "dataset": ("data.datasets", "data.real_split"),
    "train": ("train.first_run",),
    "export": ("train.quantize",),
    "check": ("checks.real_check",),
    "table-scenes": ("data.table_scenes",),
    "table-tune": ("train.first_run",),
    "table-export": ("train.quantize",),
    "table-check": ("checks.real_check",),
    "strip-scenes": ("data.synth",),
    "strip-tune": ("train.first_run",),
    "strip-export": ("train.quantize",),
    "strip-check": ("checks.real_check",),
    "card-data": ("data.synth", "data.real_labels"),
    "card-tune": ("train.first_run",),
    "card-export": ("train.quantize",),
    "card-check": ("checks.card_class_check",),
}
RECIPES = ("chain", "reproduce")


def summary(path: Path) -> str:
    """A module's docstring's first paragraph on one line; ``[library]`` before it for a module that is
    only imported (no command line of its own)."""
    source = path.read_text()
    doc = (ast.get_docstring(ast.parse(source, str(path))) or "").strip()
    first = " ".join(doc.split("\n\n", 1)[0].split()).rstrip(":") if doc else "(no docstring)"
    return first if '__name__ == "__main__"' in source else f"[library] {first}"


def modules(stage: str) -> list[str]:
    """``stage.module`` for every module of a stage package, sorted."""
    return [f"{stage}.{p.stem}" for p in sorted((HOUSE / stage).glob("*.py")) if p.stem != "__init__"]


def page() -> str:
    from vision_models.chain import STEPS

    lines = ["vision_models: the recognition models, from card artwork to the shipped ONNX files (weights/).", "",
             "The chain (python -m vision_models.chain run), its steps in the order they run:"]
    for number, (name, _done, _run, makes) in enumerate(STEPS, 1):
        lines.append(f"  {number}. {name:<12} {', '.join(CHAIN_MODULES[name]):<48} -> {makes}")
    lines += ["", "The recipes (they run the stages):"]
    lines += [f"  {name:<28} {summary(HOUSE / (name + '.py'))} (python -m vision_models.{name} --help)" for name in RECIPES]
    for number, (stage, what) in enumerate(STAGES, 1):
        lines += ["", f"{number}. {stage}/: {what}"]
        in_chain = [m for step in CHAIN_MODULES.values() for m in step if m.startswith(stage + ".")]
        ordered = sorted(modules(stage), key=lambda m: (in_chain.index(m) if m in in_chain else len(in_chain), m))
        lines += [f"  {m:<28} {summary(HOUSE / (m.replace('.', '/') + '.py'))}" for m in ordered]
    lines += ["", "Each: python -m vision_models.<stage>.<module> --help ([library]: imported by the others, no command).",
              "The shipped models' card: vision_models/MODEL_CARD.md; their figures: vision_models/EVALUATION.md."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision_models", description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    print(page())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
