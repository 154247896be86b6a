"""The JSON Schema subset validator and the result shapes cut from the official schemas."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpspy.analysis.rules.shapes import OWNED_ELSEWHERE, RESULT_DEFS
from mcpspy.analysis.rules.shapes import result_problem as problem_in
from mcpspy.analysis.schema import REVISIONS, Schemas
from mcpspy.analysis_data import PACKAGED, result_schemas
from mcpspy.capture.records import Stream
from tests.analysis.make_result_schemas import SPEC_DIR, build
from tests.analysis.steps import RESULTS


@pytest.mark.skipif(not SPEC_DIR.is_dir(), reason="the spec snapshot is not beside this checkout")
def test_packaged_schemas_are_cut_from_the_spec_snapshot() -> None:
    assert PACKAGED.read_bytes() == build(SPEC_DIR), "stale: run python -m tests.analysis.make_result_schemas"


@pytest.mark.parametrize("revision", REVISIONS)
def test_every_result_definition_of_every_revision_compiles(revision: str) -> None:
    schemas = result_schemas().of(revision)
    assert schemas is not None
    names = [name for name in set(RESULT_DEFS.values()) if schemas.has(name)]
    assert len(names) >= 10
    for name in names:
        assert schemas.check(name)({"unrelated": 1}) is not None, name  # every result has a required field


@pytest.mark.parametrize("revision", REVISIONS)
def test_valid_results_pass_in_every_revision(revision: str) -> None:
    for method, result in RESULTS.items():
        problem = result_problem(method, Stream.C2S, revision, dict(result))
        assert problem is None, (method, problem)


def result_problem(method: str, stream: Stream, revision: str, result: dict[str, object]) -> str | None:
    return problem_in(result_schemas(), method, stream, revision, result)


def check(schema: object, value: object, defs: dict[str, object] | None = None) -> str | None:
    schemas = Schemas({"Root": schema, **(defs or {})})
    problem = schemas.check("Root")(value)
    return None if problem is None else f"{problem.where('v')} {problem.text}"


def test_types_as_json_has_them() -> None:
    assert check({"type": "integer"}, 3) is None
    assert check({"type": "integer"}, 3.0) is None  # 3.0 is an integer to JSON Schema
    assert check({"type": "integer"}, 3.5) == "v is a number, not an integer"
    assert check({"type": "integer"}, True) == "v is a boolean, not an integer"
    assert check({"type": "number"}, False) == "v is a boolean, not a number"
    assert check({"type": ["string", "number"]}, None) == "v is null, not a string or a number"


def test_objects_arrays_and_paths() -> None:
    schema = {
        "type": "object",
        "required": ["tools"],
        "properties": {
            "tools": {
                "type": "array",
                "maxItems": 2,
                "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
            }
        },
    }
    assert check(schema, {"tools": [{"name": "a", "extra": [1]}], "more": {}}) is None
    assert check(schema, {}) == 'v has no "tools", which is required'
    assert (
        check(schema, {"tools": [{"name": "a"}, {"name": 7}]})
        == "v.tools[1].name is an integer, not a string"
    )
    assert check(schema, {"tools": [{}, {}, {}]}) == "v.tools has 3 items, more than the 2 allowed"
    assert check(schema, []) == "v is an array, not an object"


def test_format_and_prose_are_never_flagged() -> None:
    assert check({"type": "string", "format": "uri"}, "not a uri at all") is None


def test_tagged_union_names_the_branch_or_the_unknown_tag() -> None:
    defs = {
        "Text": {
            "type": "object",
            "required": ["type", "text"],
            "properties": {"type": {"const": "text", "type": "string"}, "text": {"type": "string"}},
        },
        "Image": {
            "type": "object",
            "required": ["type", "data"],
            "properties": {"type": {"const": "image", "type": "string"}, "data": {"type": "string"}},
        },
    }
    union = {"anyOf": [{"$ref": "Text"}, {"$ref": "Image"}]}
    assert check(union, {"type": "image", "data": "AA=="}, defs) is None
    assert check(union, {"type": "image"}, defs) == 'v has no "data", which is required'
    assert check(union, {"type": "video"}, defs) == 'v.type is "video", not one of "text", "image"'
    assert check(union, "text", defs) == "v is a string that matches none of Text, Image"


def test_untagged_union_enum_const_and_range() -> None:
    union = {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert check(union, 4) is None
    assert check(union, 4.5) == "v is a number that matches none of string, integer"
    assert check({"enum": ["public", "private"]}, "shared") == 'v is "shared", not one of "public", "private"'
    assert check({"const": "complete"}, "done") == 'v is "done", not "complete"'
    assert check({"type": "integer", "minimum": 0}, -1) == "v is -1, below the minimum 0"
    assert check({"type": "number", "maximum": 1}, 1.5) == "v is 1.5, above the maximum 1"


def test_a_definition_may_refer_to_itself() -> None:
    defs = {
        "Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "Node"}}}}
    }
    tree = {"children": [{"children": [{"children": "leaf"}]}]}
    assert (
        check({"$ref": "Node"}, tree, defs) == "v.children[0].children[0].children is a string, not an array"
    )


def test_loosened_where_the_generated_schema_is_narrower_than_schema_ts() -> None:
    call = {"resultType": "complete", "content": [], "structuredContent": {"price": 9.5, "note": None}}
    assert result_problem("tools/call", Stream.C2S, "2026-07-28", call) is None
    elicit = {"action": "accept", "content": {"age": 30.5}}
    assert result_problem("elicitation/create", Stream.S2C, "2025-06-18", elicit) is None


def test_results_are_held_to_their_own_direction_and_final_results_only() -> None:
    assert result_problem("roots/list", Stream.C2S, "2025-06-18", {}) is None  # a server does not answer it
    assert result_problem("roots/list", Stream.S2C, "2025-06-18", {}) is not None
    assert result_problem("tools/call", Stream.C2S, "2026-07-28", {"resultType": "input_required"}) is None
    assert result_problem("tools/call", Stream.C2S, "1999-01-01", {}) is None  # no schema for it


# --- the predicates (Schemas.fits): the closures' verdict, sooner (schema.py's speed note)

RAW_REVISIONS: dict[str, dict[str, Any]] = orjson.loads(PACKAGED.read_bytes())["revisions"]


def _vocabulary(node: Any, words: set[str]) -> set[str]:
    """Every property name, const and enum string of the definitions: what a fitting value is made of."""
    if isinstance(node, dict):
        words.update(node.get("properties", {}))
        words.update(v for v in (node.get("const"), *node.get("enum", ())) if isinstance(v, str))
        for value in node.values():
            _vocabulary(value, words)
    elif isinstance(node, list):
        for value in node:
            _vocabulary(value, words)
    return words


WORDS = sorted(_vocabulary(RAW_REVISIONS, set()))
DEFINITIONS = [(revision, name) for revision, defs in RAW_REVISIONS.items() for name in sorted(defs)]
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.sampled_from([0, 1, -1, 3.0, 2.5, 10**6])
    | st.sampled_from(["", "x", *WORDS]),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(WORDS), children, max_size=5)
    ),
    max_leaves=25,
)


def _plain_object(node: Any) -> bool:
    """What ``Schemas.fits`` takes fixed values for (else its predicate says no to every value)."""
    return (
        isinstance(node, dict)
        and node.get("type") == "object"
        and not {"$ref", "const", "items", "maxItems", "anyOf", "enum", "minimum", "maximum", "allOf"}
        & node.keys()
    )


def assert_agrees(revision: str, name: str, value: Any) -> None:
    schemas = result_schemas().of(revision)
    assert schemas is not None
    assert schemas.fits(name)(value) == (schemas.check(name)(value) is None), (revision, name, value)
    if isinstance(value, dict):
        fixed = schemas.fits(name, OWNED_ELSEWHERE)(value)
        fits_copy = schemas.check(name)({**value, **OWNED_ELSEWHERE}) is None
        plain = _plain_object(RAW_REVISIONS[revision][name])
        assert fixed == fits_copy if plain else not fixed, (revision, name, value)


@settings(max_examples=3000, deadline=None)
@given(st.sampled_from(DEFINITIONS), json_values)
def test_a_predicate_says_what_its_check_says(definition: tuple[str, str], value: Any) -> None:
    assert_agrees(*definition, value)


def _mutated(value: Any, data: st.DataObject, depth: int = 0) -> Any:
    """A real result with one change somewhere down: a key dropped or added, a value replaced."""
    if depth < 6 and isinstance(value, dict) and value and data.draw(st.booleans()):
        changed, key = dict(value), data.draw(st.sampled_from(sorted(value)))
        how = data.draw(st.sampled_from(["drop", "add", "down"]))
        if how == "drop":
            del changed[key]
        elif how == "add":
            changed[data.draw(st.sampled_from(WORDS))] = data.draw(json_values)
        else:
            changed[key] = _mutated(value[key], data, depth + 1)
        return changed
    if depth < 6 and isinstance(value, list) and value and data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(value) - 1))
        return [*value[:i], _mutated(value[i], data, depth + 1), *value[i + 1 :]]
    return data.draw(json_values) if data.draw(st.booleans()) else value


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(sorted(RESULTS)), st.sampled_from(REVISIONS), st.data())
def test_a_predicate_agrees_on_real_results_changed_a_little(
    method: str, revision: str, data: st.DataObject
) -> None:
    value = _mutated(RESULTS[method], data)
    for name in sorted(set(RESULT_DEFS.values()) & RAW_REVISIONS[revision].keys()):
        assert_agrees(revision, name, value)


def test_predicates_of_odd_schemas_agree_with_their_checks() -> None:
    """Nodes the predicates write and nodes they hand to their closure, side by side."""
    defs: dict[str, Any] = {
        "Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "Node"}}}},
        "Empty": {"anyOf": []},
        "Odd": {
            "type": "object",
            "required": ["a"],
            "additionalProperties": {"type": "string"},
            "properties": {"a": {}, "b": {"const": 1}, "c": {"enum": ["x", 2]}, "d": {"maxItems": 1}},
        },
        "Typed": {"type": ["string", "integer"], "minimum": 2},
        "Missing": {"$ref": "Nowhere"},
        "Loose": {"required": ["a"], "items": {"type": "string"}},
    }
    schemas = Schemas(defs)
    values: list[Any] = [
        None,
        1,
        2,
        3.0,
        "s",
        [],
        ["s", 1],
        {},
        {"a": 1},
        {"a": "s", "b": 1},
        {"a": "s", "b": 1.0},
        {"a": "s", "z": 1},
        {"a": "s", "z": "t", "c": 2},
        {"a": "s", "c": "y"},
        {"a": 0, "d": [1, 2]},
        {"children": [{"children": []}, {"children": "leaf"}]},
        {"children": [{"children": [{}]}]},
    ]
    for name in defs:
        for value in values:
            assert schemas.fits(name)(value) == (schemas.check(name)(value) is None), (name, value)
