"""What changed between two views of a table, as a JSON Patch (RFC 6902: ``add``, ``remove`` and
``replace`` only), so a live stream sends each phone the few cells a change touched instead of the
whole state (about 44 KB for a scored Kingdoms table, sent to every watcher on every change before).

``diff(old, new)`` and ``apply(doc, ops)`` are exact inverses: ``apply(old, diff(old, new)) == new``
with the same JSON types (``1``, ``1.0`` and ``True`` are told apart; nulls are kept, which a JSON
Merge Patch cannot do). ``web_ui/static/app.js`` applies the same operations in the browser.
"""
from __future__ import annotations

import copy
from typing import Any


def _pointer(path: str, key: Any) -> str:
    return f"{path}/{str(key).replace('~', '~0').replace('/', '~1')}"


def _same(old: Any, new: Any) -> bool:
    return type(old) is type(new) and old == new


def diff(old: Any, new: Any, path: str = "") -> list[dict]:
    """The operations that turn ``old`` into ``new`` (both plain JSON values)."""
    if type(old) is dict and type(new) is dict:
        ops = [{"op": "remove", "path": _pointer(path, key)} for key in old if key not in new]
        for key, value in new.items():
            if key not in old:
                ops.append({"op": "add", "path": _pointer(path, key), "value": value})
            else:
                ops.extend(diff(old[key], value, _pointer(path, key)))
        return ops
    if type(old) is list and type(new) is list:
        common = min(len(old), len(new))
        if len(old) == len(new) or _same(old[:common], new[:common]):
            ops = []
            for index in range(common):
                ops.extend(diff(old[index], new[index], _pointer(path, index)))
            ops.extend({"op": "add", "path": _pointer(path, "-"), "value": value} for value in new[common:])
            ops.extend({"op": "remove", "path": _pointer(path, index)} for index in range(len(old) - 1, common - 1, -1))
            if len(ops) <= max(len(new), 1):
                return ops
        return [{"op": "replace", "path": path, "value": new}]
    if _same(old, new):
        return []
    return [{"op": "replace", "path": path, "value": new}]


def _parts(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise ValueError(f"a JSON pointer starts with '/', got {path!r}")
    return [part.replace("~1", "/").replace("~0", "~") for part in path[1:].split("/")]


def apply(document: Any, ops: list[dict]) -> Any:
    """A copy of ``document`` with ``ops`` applied (the subset :func:`diff` writes)."""
    document = copy.deepcopy(document)
    for op in ops:
        parts = _parts(op["path"])
        if not parts:
            if op["op"] == "remove":
                raise ValueError("cannot remove the whole document")
            document = copy.deepcopy(op["value"])
            continue
        parent = document
        for part in parts[:-1]:
            parent = parent[int(part)] if isinstance(parent, list) else parent[part]
        last = parts[-1]
        if isinstance(parent, list):
            if op["op"] == "add" and last == "-":
                parent.append(copy.deepcopy(op["value"]))
            elif op["op"] == "add":
                parent.insert(int(last), copy.deepcopy(op["value"]))
            elif op["op"] == "remove":
                del parent[int(last)]
            else:
                parent[int(last)] = copy.deepcopy(op["value"])
        elif op["op"] == "remove":
            del parent[last]
        else:
            parent[last] = copy.deepcopy(op["value"])
    return document
