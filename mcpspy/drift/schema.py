"""Two JSON Schemas compared: which changes accept less (tightened), which more (loosened).

Read from a caller's side: *tightened* means some input that was valid may
now be refused (a caller may break), *loosened* that everything valid stays
valid and more is accepted, *changed* that it goes both ways or cannot be
told, *doc* that only the words changed (description, title, examples).

| change                                            | verdict   |
|---------------------------------------------------|-----------|
| a new required property, a property now required  | tightened |
| a new optional property                           | loosened  |
| a property removed (or no longer required)        | loosened  |
| a property removed where additionalProperties is false | tightened |
| ``type`` narrowed / widened (integer ⊂ number)    | tightened / loosened |
| ``enum`` values removed / added                   | tightened / loosened |
| a bound (minimum, maxLength, ...) added or moved in / removed or moved out | tightened / loosened |
| ``pattern``, ``format``, ``const``, ``multipleOf`` added / removed | tightened / loosened |
| ``additionalProperties`` true → false / false → true | tightened / loosened |
| ``anyOf``/``oneOf`` options removed / added        | tightened / loosened |
| ``allOf`` parts added / removed                    | tightened / loosened |
| anything else that differs                        | changed   |

Nested schemas (properties, items, additionalProperties, $defs, and options
of the same count) are compared in place, each change with its JSON path.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from mcpspy.jsonutil.paths import JsonPath
from mcpspy.jsonutil.structural import MISSING, canonical, json_equal

MAX_DEPTH = 64  # below this, a difference is reported as one "changed" at that place


class Verdict(enum.Enum):
    TIGHTENED = "tightened"
    LOOSENED = "loosened"
    CHANGED = "changed"
    DOC = "doc"


@dataclass(frozen=True, slots=True)
class SchemaChange:
    path: JsonPath
    verdict: Verdict
    what: str  # a few words: "new required property", "type widened"
    old: Any
    new: Any


DOC_KEYWORDS = frozenset(
    {"description", "title", "examples", "default", "$comment", "deprecated", "readOnly", "writeOnly"}
)
LOWER_BOUNDS = frozenset(
    {"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"}
)
UPPER_BOUNDS = frozenset(
    {"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"}
)
PRESENCE = frozenset(
    {"pattern", "format", "const", "multipleOf", "not", "contentEncoding", "contentMediaType"}
)
HANDLED = frozenset(
    {
        "type",
        "enum",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "oneOf",
        "allOf",
        "uniqueItems",
        "$defs",
        "definitions",
    }
)
NUMBER_TYPES = {"integer": {"integer"}, "number": {"integer", "number"}}


def schema_changes(old: Any, new: Any, path: JsonPath = ()) -> list[SchemaChange]:
    """What changed from ``old`` to ``new``, as verdicts with paths; [] when they are equal."""
    if json_equal(old, new):
        return []
    if len(path) > MAX_DEPTH or not isinstance(old, dict | bool) or not isinstance(new, dict | bool):
        return [SchemaChange(path, Verdict.CHANGED, "schema changed", old, new)]
    if isinstance(old, bool) or isinstance(new, bool):
        return [_boolean(path, old, new)]
    out: list[SchemaChange] = []
    _type(out, path, old.get("type"), new.get("type"))
    _enum(out, path, old.get("enum", MISSING), new.get("enum", MISSING))
    _properties(out, path, old, new)
    _additional(out, path, old.get("additionalProperties", True), new.get("additionalProperties", True))
    _nested(out, path, "items", old.get("items", MISSING), new.get("items", MISSING))
    for key in ("anyOf", "oneOf"):
        _options(out, path, key, old.get(key, MISSING), new.get(key, MISSING), added=Verdict.LOOSENED)
    _options(
        out, path, "allOf", old.get("allOf", MISSING), new.get("allOf", MISSING), added=Verdict.TIGHTENED
    )
    for key in ("$defs", "definitions"):
        _definitions(out, path, key, old.get(key, {}), new.get(key, {}))
    if bool(old.get("uniqueItems")) != bool(new.get("uniqueItems")):
        verdict = Verdict.TIGHTENED if new.get("uniqueItems") else Verdict.LOOSENED
        out.append(
            SchemaChange(
                (*path, "uniqueItems"), verdict, "uniqueItems", old.get("uniqueItems"), new.get("uniqueItems")
            )
        )
    for key in sorted(set(old) | set(new), key=str):
        if key in HANDLED:
            continue
        a, b = old.get(key, MISSING), new.get(key, MISSING)
        if json_equal(a, b):
            continue
        out.append(_keyword((*path, key), key, a, b))
    if not out:  # unequal in a way no rule reads (a malformed keyword): still a change
        out.append(SchemaChange(path, Verdict.CHANGED, "schema changed", old, new))
    return out


def _boolean(path: JsonPath, old: Any, new: Any) -> SchemaChange:
    """``true`` accepts anything, ``false`` nothing; an object schema lies between."""
    if new is True or old is False:
        return SchemaChange(
            path, Verdict.LOOSENED, "accepts anything" if new is True else "accepts something", old, new
        )
    return SchemaChange(
        path, Verdict.TIGHTENED, "accepts nothing" if new is False else "constrained", old, new
    )


def _keyword(path: JsonPath, key: str, a: Any, b: Any) -> SchemaChange:
    if key in DOC_KEYWORDS:
        return SchemaChange(path, Verdict.DOC, f"{key} changed", a, b)
    if key in LOWER_BOUNDS or key in UPPER_BOUNDS:
        return _bound(path, key, a, b)
    if a is MISSING or b is MISSING:
        if key in PRESENCE:
            verdict = Verdict.TIGHTENED if a is MISSING else Verdict.LOOSENED
            return SchemaChange(path, verdict, f"{key} {'added' if a is MISSING else 'removed'}", a, b)
        return SchemaChange(path, Verdict.CHANGED, f"{key} {'added' if a is MISSING else 'removed'}", a, b)
    return SchemaChange(path, Verdict.CHANGED, f"{key} changed", a, b)


def _bound(path: JsonPath, key: str, a: Any, b: Any) -> SchemaChange:
    lower = key in LOWER_BOUNDS
    if a is MISSING:
        return SchemaChange(path, Verdict.TIGHTENED, f"{key} added", a, b)
    if b is MISSING:
        return SchemaChange(path, Verdict.LOOSENED, f"{key} removed", a, b)
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a, b))
    if not numbers:
        return SchemaChange(path, Verdict.CHANGED, f"{key} changed", a, b)
    narrower = b > a if lower else b < a
    return SchemaChange(path, Verdict.TIGHTENED if narrower else Verdict.LOOSENED, f"{key} {a} → {b}", a, b)


def _types(value: Any) -> set[str] | None:
    """The instance types a ``type`` keyword allows (None: any); integer counts within number."""
    if value is None:
        return None
    names = value if isinstance(value, list) else [value]
    allowed: set[str] = set()
    for name in names:
        if isinstance(name, str):
            allowed |= NUMBER_TYPES.get(name, {name})
    return allowed


def _type(out: list[SchemaChange], path: JsonPath, a: Any, b: Any) -> None:
    if json_equal(a, b):
        return
    before, after = _types(a), _types(b)
    where = (*path, "type")
    if before == after:
        out.append(SchemaChange(where, Verdict.DOC, "type spelt differently", a, b))
    elif before is not None and (after is None or after > before):
        out.append(SchemaChange(where, Verdict.LOOSENED, "type widened", a, b))
    elif after is not None and (before is None or after < before):
        out.append(SchemaChange(where, Verdict.TIGHTENED, "type narrowed", a, b))
    else:
        out.append(SchemaChange(where, Verdict.CHANGED, "type changed", a, b))


def _value_set(values: Any) -> set[bytes | None]:
    return {canonical(v) for v in values} if isinstance(values, list) else set()


def _enum(out: list[SchemaChange], path: JsonPath, a: Any, b: Any) -> None:
    if json_equal(a, b):
        return
    where = (*path, "enum")
    if a is MISSING or b is MISSING:
        verdict = Verdict.TIGHTENED if a is MISSING else Verdict.LOOSENED
        out.append(SchemaChange(where, verdict, f"enum {'added' if a is MISSING else 'removed'}", a, b))
        return
    before, after = _value_set(a), _value_set(b)
    if before == after:
        out.append(SchemaChange(where, Verdict.DOC, "enum reordered", a, b))
    elif after > before:
        out.append(SchemaChange(where, Verdict.LOOSENED, "enum values added", a, b))
    elif after < before:
        out.append(SchemaChange(where, Verdict.TIGHTENED, "enum values removed", a, b))
    else:
        out.append(SchemaChange(where, Verdict.CHANGED, "enum values replaced", a, b))


def _names(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [k for k in value if isinstance(k, str)]
    if isinstance(value, list):
        return [k for k in value if isinstance(k, str)]
    return []


def _properties(out: list[SchemaChange], path: JsonPath, old: dict[str, Any], new: dict[str, Any]) -> None:
    """Each property once: its arrival, departure, required-ness, then its own schema."""
    props_a, props_b = old.get("properties"), new.get("properties")
    props_a = props_a if isinstance(props_a, dict) else {}
    props_b = props_b if isinstance(props_b, dict) else {}
    req_a, req_b = set(_names(old.get("required"))), set(_names(new.get("required")))
    closed = new.get("additionalProperties", True) is False
    names = list(dict.fromkeys([*props_a, *props_b, *sorted(req_a | req_b)]))
    for name in names:
        where = (*path, "properties", name)
        in_a, in_b = name in props_a, name in props_b
        if in_b and not in_a:
            if name in req_b:
                out.append(
                    SchemaChange(where, Verdict.TIGHTENED, "new required property", MISSING, props_b[name])
                )
            else:
                out.append(
                    SchemaChange(where, Verdict.LOOSENED, "new optional property", MISSING, props_b[name])
                )
            continue
        if in_a and not in_b:
            verdict, what = (
                (Verdict.TIGHTENED, "property removed, now refused")
                if closed
                else (Verdict.LOOSENED, "property removed")
            )
            out.append(SchemaChange(where, verdict, what, props_a[name], MISSING))
            continue
        if name in req_b and name not in req_a:
            out.append(SchemaChange(where, Verdict.TIGHTENED, "now required", False, True))
        elif name in req_a and name not in req_b:
            out.append(SchemaChange(where, Verdict.LOOSENED, "no longer required", True, False))
        if in_a and in_b:
            out.extend(schema_changes(props_a[name], props_b[name], where))


def _additional(out: list[SchemaChange], path: JsonPath, a: Any, b: Any) -> None:
    if not json_equal(a, b):
        out.extend(schema_changes(a, b, (*path, "additionalProperties")))


def _nested(out: list[SchemaChange], path: JsonPath, key: str, a: Any, b: Any) -> None:
    if json_equal(a, b):
        return
    where = (*path, key)
    if a is MISSING or b is MISSING:
        verdict = Verdict.TIGHTENED if a is MISSING else Verdict.LOOSENED
        out.append(SchemaChange(where, verdict, f"{key} {'added' if a is MISSING else 'removed'}", a, b))
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            out.extend(schema_changes(x, y, (*where, i)))
    else:
        out.extend(schema_changes(a, b, where))


def _options(out: list[SchemaChange], path: JsonPath, key: str, a: Any, b: Any, added: Verdict) -> None:
    """anyOf/oneOf (more options accept more) and allOf (more parts accept less)."""
    if json_equal(a, b):
        return
    where = (*path, key)
    removed = Verdict.TIGHTENED if added is Verdict.LOOSENED else Verdict.LOOSENED
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            out.extend(schema_changes(x, y, (*where, i)))
        return
    before, after = _value_set(a if a is not MISSING else []), _value_set(b if b is not MISSING else [])
    if after > before:
        out.append(SchemaChange(where, added, f"{key} gained options", a, b))
    elif after < before:
        out.append(SchemaChange(where, removed, f"{key} lost options", a, b))
    else:
        out.append(SchemaChange(where, Verdict.CHANGED, f"{key} changed", a, b))


def _definitions(out: list[SchemaChange], path: JsonPath, key: str, a: Any, b: Any) -> None:
    if json_equal(a, b) or not isinstance(a, dict) or not isinstance(b, dict):
        return
    for name in dict.fromkeys([*a, *b]):
        where = (*path, key, name)
        if name in a and name in b:
            out.extend(schema_changes(a[name], b[name], where))
        else:
            what = "definition added" if name in b else "definition removed"
            out.append(SchemaChange(where, Verdict.CHANGED, what, a.get(name, MISSING), b.get(name, MISSING)))
