"""JSON Patch between two views: applying the diff gives the new view exactly, types and nulls kept."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from companion.session.patch import apply, diff

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(-2, 2, allow_nan=False), st.sampled_from(["a", "b/c", "~x", ""]))
json_values = st.recursive(scalars, lambda children: st.one_of(
    st.lists(children, max_size=5), st.dictionaries(st.sampled_from(["a", "b", "c/d", "e~f", "g"]), children, max_size=4)), max_leaves=25)


def same_json(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return a == b


@settings(max_examples=300, deadline=None)
@given(json_values, json_values)
def test_apply_of_diff_is_the_new_value(old, new):
    assert same_json(apply(old, diff(old, new)), new)


def test_a_change_touches_only_what_changed():
    grid = [[None] * 8 for _ in range(8)]
    old = {"grid": grid, "session": {"seq": 3, "undo_event": {"type": "place"}, "warnings": []}}
    new = {"grid": [row[:] for row in grid], "session": {"seq": 4, "undo_event": None, "warnings": []}}
    new["grid"][6][6] = "10H"
    ops = diff(old, new)
    assert {"op": "replace", "path": "/grid/6/6", "value": "10H"} in ops
    assert {"op": "replace", "path": "/session/undo_event", "value": None} in ops  # a null is kept, not deleted
    assert len(ops) == 3
    assert diff(old, old) == []
    assert diff({"n": 1}, {"n": True}) == [{"op": "replace", "path": "/n", "value": True}]
