"""Runs every benchmark in this folder and prints one table.

Each ``bench_*.py`` module defines ``run(quick: bool) -> list[dict]``; a row has ``name``,
``median`` (a number), ``unit`` and optionally ``note``. Timings are medians of many repeats
taken in this one process, so ratios between rows are fair; absolute figures vary by machine.

    python benchmarks/run.py [--quick] [NAME ...]
"""
from __future__ import annotations

import argparse
import importlib.util
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent


def load(path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="only benchmarks whose file name contains one of these")
    parser.add_argument("--quick", action="store_true", help="fewer repeats: a smoke run, not a measurement")
    args = parser.parse_args(argv)
    rows = []
    for path in sorted(HERE.glob("bench_*.py")):
        if args.names and not any(n in path.stem for n in args.names):
            continue
        print(f"running {path.stem} …", file=sys.stderr, flush=True)
        for row in load(path).run(args.quick):
            rows.append((path.stem.removeprefix("bench_"), row))
    if not rows:
        print("no benchmark matched", file=sys.stderr)
        return 1
    header = ("group", "benchmark", "median", "unit", "note")
    table = [header] + [(g, r["name"], f"{r['median']:.4g}", r["unit"], r.get("note", "")) for g, r in rows]
    widths = [max(len(str(line[i])) for line in table) for i in range(len(header))]
    for n, line in enumerate(table):
        print(" | ".join(str(v).ljust(w) for v, w in zip(line, widths)).rstrip())
        if n == 0:
            print("-+-".join("-" * w for w in widths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
