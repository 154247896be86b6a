"""The JSON tools replay and diff share: structural diff, equality, pruning, paths and patterns."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpspy.jsonutil.paths import JsonPath, PathPattern, PathSet, PatternError, render_path
from mcpspy.jsonutil.structural import MISSING, Change, Difference, diff, json_equal, prune

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=30,
)
paths = st.lists(st.text(max_size=6) | st.integers(min_value=0, max_value=9), max_size=5).map(tuple)


@given(json_values)
def test_a_value_has_no_difference_from_itself(value: Any) -> None:
    assert diff(value, value) == []
    assert json_equal(value, value)


@given(json_values, json_values)
def test_diff_is_empty_exactly_when_the_values_are_equal(a: Any, b: Any) -> None:
    assert (diff(a, b) == []) == json_equal(a, b)


@given(json_values)
def test_pruning_nothing_keeps_the_value(value: Any) -> None:
    assert json_equal(prune(value, PathSet()), value)


def test_numbers_compare_by_value_but_never_equal_booleans() -> None:
    assert diff({"a": 1}, {"a": 1.0}) == []
    assert diff([1, 0], [True, False]) == [
        Difference((0,), Change.CHANGED, 1, True),
        Difference((1,), Change.CHANGED, 0, False),
    ]


def test_differences_name_the_smallest_places() -> None:
    old = {"result": {"content": [{"text": "5"}], "gone": 1}}
    new = {"result": {"content": [{"text": "6"}, {"text": "7"}], "isError": False}}
    assert [(render_path(d.path), d.change.value) for d in diff(old, new)] == [
        ("$.result.content[0].text", "changed"),
        ("$.result.content[1]", "added"),
        ("$.result.gone", "removed"),
        ("$.result.isError", "added"),
    ]


def test_a_deeply_nested_value_does_not_exhaust_the_stack() -> None:
    deep: Any = "x"
    other: Any = "y"
    for _ in range(5000):
        deep, other = [deep], [other]
    (only,) = diff(deep, other)
    assert len(only.path) == 5000
    assert not json_equal(deep, other)
    assert json_equal(prune(deep, PathSet()), deep)


def test_pruning_leaves_out_ignored_members_and_objects_it_emptied() -> None:
    ignored = PathSet.parse(["$.._meta.timestamp", "$..taskId", "$.list[1]"])
    value = {
        "result": {"_meta": {"timestamp": 1}, "task": {"taskId": "t", "status": "ok"}},
        "list": [1, 2, 3],
    }
    assert prune(value, ignored) == {"result": {"task": {"status": "ok"}}, "list": [1, None, 3]}
    assert prune(value, PathSet.parse(["$"])) is MISSING


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("$.result.content[0].text", ("result", "content", 0, "text"), True),
        ("$.result.content[0].text", ("result", "content", 1, "text"), False),
        ("$.result", ("result", "a", 0), True),  # under an ignored place
        ("$.result.*", ("result", "x"), True),
        ("$.items[*].name", ("items", 3, "name"), True),
        ("$.items[*]", ("items", "3"), True),  # * is any key or index
        ("$.items[3]", ("items", "3"), False),  # an index is not a key
        ("$.._meta.timestamp", ("result", "_meta", "timestamp"), True),
        ("$.._meta.timestamp", ("_meta", "timestamp"), True),
        ("$.._meta.timestamp", ("result", "meta", "timestamp"), False),
        ("$..taskId", ("result", "tasks", 2, "taskId"), True),
        ('$._meta["io.mcp/serverInfo"]', ("_meta", "io.mcp/serverInfo", "version"), True),
        ("$._meta['it\\'s']", ("_meta", "it's"), True),
        ('$["*"]', ("x",), False),  # a quoted star is a key
        ("$['a.b']", ("a.b",), True),
        ("$", ("anything",), True),
    ],
)
def test_patterns(pattern: str, path: JsonPath, matches: bool) -> None:
    assert PathPattern.parse(pattern).matches(path) is matches


@pytest.mark.parametrize("bad", ["result.x", "$.", "$[x]", "$.a[", "$.a b", '$["unterminated]'])
def test_a_bad_pattern_says_so(bad: str) -> None:
    with pytest.raises(PatternError):
        PathPattern.parse(bad)


@given(paths)
def test_a_rendered_path_reads_back_as_a_pattern_for_it(path: JsonPath) -> None:
    pattern = PathPattern.parse(render_path(path))
    assert pattern.matches(path)
    assert all(not isinstance(s.selector, str) or s.selector in path for s in pattern.steps)


def test_rendering_quotes_what_is_not_a_plain_name() -> None:
    assert (
        render_path(("result", "tools", 0, "io.example/x", "a b", ""))
        == '$.result.tools[0]["io.example/x"]["a b"][""]'
    )
