"""Two revisions' benchmarks side by side in one run: the same rows, each revision's median, and their ratio.

    python benchmarks/side_by_side.py --before bf93852^ detect live
    python benchmarks/side_by_side.py --before HEAD~3 --rounds 3 table

``--before`` is checked out into a temporary git worktree (removed afterwards); the working tree is "after".
Each named ``bench_*.py`` runs in a fresh process from each tree in turns (before, after, before, after, …:
``--rounds`` pairs), the tree first on ``PYTHONPATH`` so each reads its own code and its own
``vision_models/weights``; a row's figure is the median of its rounds' medians, so a load that comes and goes
weighs on both alike. Rows are matched by group and name; a row only one revision has is listed with a dash.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent

# Runs one tree's benchmark module and prints its rows as JSON (the tree's own run.py may predate --json).
CHILD = """
import importlib.util, json, pathlib, sys
path = pathlib.Path(sys.argv[1])
spec = importlib.util.spec_from_file_location(path.stem, path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
rows = module.run(sys.argv[2] == "quick")
print("ROWS " + json.dumps([{k: (v if isinstance(v, (str, int, float)) or v is None else float(v)) for k, v in row.items()}
                            for row in rows]))
"""


def run_tree(tree: pathlib.Path, name: str, quick: bool) -> list[dict]:
    paths = sorted((tree / "benchmarks").glob(f"bench_*{name}*.py"))
    rows = []
    for path in paths:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
        env.pop("COMPANION_WEIGHTS", None)   # each tree reads its own weights
        done = subprocess.run([sys.executable, "-c", CHILD, str(path), "quick" if quick else "full"], cwd=tree, env=env,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{path} failed in {tree}:\n{done.stderr[-2000:]}")
        line = next(line for line in done.stdout.splitlines() if line.startswith("ROWS "))
        rows += [{**row, "group": path.stem.removeprefix("bench_")} for row in json.loads(line[5:])]
    return rows


def table(before: dict, after: dict, units: dict) -> str:
    header = ("group", "benchmark", "before", "after", "after / before", "unit")
    lines = [header]
    for key in list(dict.fromkeys([*before, *after])):
        b, a = before.get(key), after.get(key)
        ratio = f"{a / b:.3f}" if a is not None and b not in (None, 0) else "–"
        lines.append((key[0], key[1], "–" if b is None else f"{b:.4g}", "–" if a is None else f"{a:.4g}", ratio, units[key]))
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(header))]
    out = []
    for n, line in enumerate(lines):
        out.append(" | ".join(str(v).ljust(w) for v, w in zip(line, widths)).rstrip())
        if n == 0:
            out.append("-+-".join("-" * w for w in widths))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__)
    parser.add_argument("names", nargs="+", help="benchmarks whose file name contains one of these (e.g. detect live)")
    parser.add_argument("--before", required=True, metavar="REV", help="the git revision to compare the working tree with")
    parser.add_argument("--rounds", type=int, default=2, metavar="N", help="before/after pairs (default 2)")
    parser.add_argument("--quick", action="store_true", help="the benchmarks' quick mode: a smoke run, not a measurement")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    rev = subprocess.run(["git", "rev-parse", "--verify", args.before + "^{commit}"], cwd=ROOT, capture_output=True, text=True)
    if rev.returncode != 0:
        parser.error(f"--before {args.before}: not a revision of this repository")
    with tempfile.TemporaryDirectory() as scratch:
        tree = pathlib.Path(scratch) / "before"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(tree), rev.stdout.strip()], cwd=ROOT, check=True)
        try:
            samples: dict[str, dict[tuple[str, str], list[float]]] = {"before": {}, "after": {}}
            units: dict[tuple[str, str], str] = {}
            for round_number in range(1, args.rounds + 1):
                for side, where in (("before", tree), ("after", ROOT)):
                    for name in args.names:
                        print(f"round {round_number}: {side} {name} …", file=sys.stderr, flush=True)
                        for row in run_tree(where, name, args.quick):
                            key = (row["group"], row["name"])
                            samples[side].setdefault(key, []).append(float(row["median"]))
                            units[key] = row.get("unit", "")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)
    medians = {side: {key: statistics.median(values) for key, values in rows.items()} for side, rows in samples.items()}
    print(f"before: {args.before} ({rev.stdout.strip()[:10]}), after: the working tree; {args.rounds} rounds in turns")
    print(table(medians["before"], medians["after"], units))
    return 0


if __name__ == "__main__":
    sys.exit(main())
