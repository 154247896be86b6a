"""Schema drift verdicts, one row per rule of drift/schema.py's table."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpspy.drift.schema import Verdict, schema_changes
from mcpspy.jsonutil.paths import render_path
from mcpspy.jsonutil.structural import json_equal

T, L, C, D = Verdict.TIGHTENED, Verdict.LOOSENED, Verdict.CHANGED, Verdict.DOC


def obj(properties: dict[str, Any], required: list[str] | None = None, **more: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, **more}
    if required is not None:
        schema["required"] = required
    return schema


STR, INT, NUM = {"type": "string"}, {"type": "integer"}, {"type": "number"}

ROWS: list[tuple[str, Any, Any, list[tuple[str, Verdict, str]]]] = [
    (
        "new required property",
        obj({"q": STR}, ["q"]),
        obj({"q": STR, "p": STR}, ["q", "p"]),
        [("$.properties.p", T, "new required property")],
    ),
    (
        "new optional property",
        obj({"q": STR}),
        obj({"q": STR, "p": STR}),
        [("$.properties.p", L, "new optional property")],
    ),
    (
        "property removed",
        obj({"q": STR, "p": STR}, ["p"]),
        obj({"q": STR}),
        [("$.properties.p", L, "property removed")],
    ),
    (
        "removed from a closed object",
        obj({"q": STR, "p": STR}, additionalProperties=False),
        obj({"q": STR}, additionalProperties=False),
        [("$.properties.p", T, "property removed, now refused")],
    ),
    ("now required", obj({"q": STR}), obj({"q": STR}, ["q"]), [("$.properties.q", T, "now required")]),
    (
        "no longer required",
        obj({"q": STR}, ["q"]),
        obj({"q": STR}, []),
        [("$.properties.q", L, "no longer required")],
    ),
    ("type widened", obj({"n": INT}), obj({"n": NUM}), [("$.properties.n.type", L, "type widened")]),
    ("type narrowed", obj({"n": NUM}), obj({"n": INT}), [("$.properties.n.type", T, "type narrowed")]),
    (
        "type list widened",
        obj({"n": STR}),
        obj({"n": {"type": ["string", "null"]}}),
        [("$.properties.n.type", L, "type widened")],
    ),
    ("type replaced", obj({"n": STR}), obj({"n": INT}), [("$.properties.n.type", C, "type changed")]),
    ("type removed", obj({"n": STR}), obj({"n": {}}), [("$.properties.n.type", L, "type widened")]),
    ("enum grew", {"enum": ["a"]}, {"enum": ["a", "b"]}, [("$.enum", L, "enum values added")]),
    ("enum shrank", {"enum": ["a", "b"]}, {"enum": ["a"]}, [("$.enum", T, "enum values removed")]),
    ("enum added", {"type": "string"}, {"type": "string", "enum": ["a"]}, [("$.enum", T, "enum added")]),
    ("minimum raised", {"minimum": 1}, {"minimum": 2}, [("$.minimum", T, "minimum 1 → 2")]),
    ("maximum raised", {"maximum": 1}, {"maximum": 2}, [("$.maximum", L, "maximum 1 → 2")]),
    ("maxLength added", STR, {**STR, "maxLength": 10}, [("$.maxLength", T, "maxLength added")]),
    (
        "minItems removed",
        {"type": "array", "minItems": 1},
        {"type": "array"},
        [("$.minItems", L, "minItems removed")],
    ),
    ("pattern added", STR, {**STR, "pattern": "^a"}, [("$.pattern", T, "pattern added")]),
    ("format removed", {**STR, "format": "uri"}, STR, [("$.format", L, "format removed")]),
    (
        "closed",
        obj({}),
        obj({}, additionalProperties=False),
        [("$.additionalProperties", T, "accepts nothing")],
    ),
    (
        "opened",
        obj({}, additionalProperties=False),
        obj({}),
        [("$.additionalProperties", L, "accepts anything")],
    ),
    (
        "items narrowed",
        {"type": "array", "items": NUM},
        {"type": "array", "items": INT},
        [("$.items.type", T, "type narrowed")],
    ),
    ("anyOf option added", {"anyOf": [STR]}, {"anyOf": [STR, INT]}, [("$.anyOf", L, "anyOf gained options")]),
    ("oneOf option removed", {"oneOf": [STR, INT]}, {"oneOf": [STR]}, [("$.oneOf", T, "oneOf lost options")]),
    (
        "allOf part added",
        {"allOf": [STR]},
        {"allOf": [STR, {"minLength": 1}]},
        [("$.allOf", T, "allOf gained options")],
    ),
    ("nested in anyOf", {"anyOf": [NUM]}, {"anyOf": [INT]}, [("$.anyOf[0].type", T, "type narrowed")]),
    (
        "in a definition",
        {"$defs": {"x": NUM}},
        {"$defs": {"x": INT}},
        [("$.$defs.x.type", T, "type narrowed")],
    ),
    (
        "description only",
        obj({"q": {**STR, "description": "a"}}),
        obj({"q": {**STR, "description": "b"}}),
        [("$.properties.q.description", D, "description changed")],
    ),
    ("unknown keyword", {"x-ui": 1}, {"x-ui": 2}, [("$.x-ui", C, "x-ui changed")]),
    ("no schema to a schema", True, obj({}), [("$", T, "constrained")]),
]


@pytest.mark.parametrize(("old", "new", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_verdicts(old: Any, new: Any, expected: list[tuple[str, Verdict, str]]) -> None:
    assert [(render_path(c.path), c.verdict, c.what) for c in schema_changes(old, new)] == expected


#: Both ways loosen: a new optional property accepts more, and so does dropping one from an open
#: object (a caller that still sends it is accepted; its value is merely no longer checked).
BOTH_WAYS_LOOSE = {"new optional property"}


def test_a_change_and_its_reverse_have_opposite_verdicts() -> None:
    for name, old, new, expected in ROWS:
        if name in BOTH_WAYS_LOOSE:
            assert [c.verdict for c in schema_changes(new, old)] == [L], name
            continue
        verdicts = [v for _, v, _ in expected]
        back = [c.verdict for c in schema_changes(new, old)]
        if verdicts in ([T], [L]):
            assert back == [L if verdicts == [T] else T], name


schemas = st.recursive(
    st.booleans()
    | st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", "number", "object", "array"])}),
    lambda inner: (
        st.fixed_dictionaries(
            {
                "type": st.just("object"),
                "properties": st.dictionaries(st.sampled_from("abcd"), inner, max_size=3),
            },
            optional={
                "required": st.lists(st.sampled_from("abcd"), max_size=3),
                "additionalProperties": inner | st.booleans(),
            },
        )
        | st.fixed_dictionaries({"anyOf": st.lists(inner, max_size=3)})
    ),
    max_leaves=12,
)


@given(schemas)
def test_a_schema_has_no_drift_from_itself(schema: Any) -> None:
    assert schema_changes(schema, schema) == []


@given(
    schemas
    | st.dictionaries(
        st.sampled_from(["properties", "required", "type", "enum", "items"]), st.integers() | st.text()
    ),
    schemas,
)
def test_any_two_schemas_differ_exactly_when_they_are_unequal(a: Any, b: Any) -> None:
    assert (schema_changes(a, b) == []) == json_equal(a, b)
