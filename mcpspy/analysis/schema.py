"""A small JSON Schema validator for the subset the official MCP schema.json files use.

$ref, type, const, enum, required, properties, additionalProperties (as a
schema), items, anyOf, allOf, minimum, maximum and maxItems; "format" and
prose are ignored, so nothing is flagged on a hint. Each definition compiles
once, on first use, to a chain of closures that allocate nothing when the
value is valid. The definitions are cut from the spec repository's schema
files by tests/analysis/make_result_schemas.py, ship in mcpspy/result_schemas.json,
and are handed to the analysis by its caller (mcpspy/analysis_data.py reads
them): the analysis reads no file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcpspy.analysis.jsonrpc import json_text

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")


@dataclass(slots=True)
class Problem:
    """Why a value does not fit, and where (path segments, innermost last once complete)."""

    text: str
    path: list[str | int] = field(default_factory=list)

    def at(self, segment: str | int) -> Problem:
        self.path.append(segment)  # appended on the way out of the recursion: reversed later
        return self

    def where(self, root: str) -> str:
        out = root
        for segment in reversed(self.path):
            out += f"[{segment}]" if isinstance(segment, int) else f".{segment}"
        return out


Check = Callable[[Any], Problem | None]
TYPE_NAMES: dict[type, str] = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    type(None): "null",
}


WANTED_NAMES = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "boolean": "a boolean",
    "integer": "an integer",
    "number": "a number",
    "null": "null",
}


PLAIN_TYPES: dict[str, type] = {"object": dict, "array": list, "string": str, "boolean": bool}


def describe_value(value: Any) -> str:
    """A JSON value's type in words ("an object", "a string"), for a finding's sentence."""
    return TYPE_NAMES.get(type(value), type(value).__name__)


def _is_type(value: Any, name: str) -> bool:
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if name == "null":
        return value is None
    return True  # a type this subset does not know: never flag on it


class Schemas:
    """The definitions of one revision, compiled on demand."""

    def __init__(self, defs: dict[str, Any]) -> None:
        self._defs = defs
        self._compiled: dict[str, Check] = {}
        self._compiling: set[str] = set()

    def has(self, name: str) -> bool:
        return name in self._defs

    def check(self, name: str) -> Check:
        compiled = self._compiled.get(name)
        if compiled is None:
            self._compiling.add(name)
            compiled = self._compiled[name] = self._compile(self._defs[name])
            self._compiling.discard(name)
        return compiled

    def _ref(self, name: str) -> Check:
        if name not in self._defs:
            return _accept
        if name not in self._compiling:
            return self.check(name)
        resolved: list[Check] = []  # a definition that refers to itself: resolved on first use

        def check(value: Any) -> Problem | None:
            if not resolved:
                resolved.append(self.check(name))
            return resolved[0](value)

        return check

    def _compile(self, node: Any) -> Check:
        if not isinstance(node, dict):
            return _accept
        checks: list[Check] = []
        if "$ref" in node:
            checks.append(self._ref(node["$ref"]))
        is_object = (
            "required" in node or "properties" in node or isinstance(node.get("additionalProperties"), dict)
        )
        is_array = isinstance(node.get("items"), dict) or "maxItems" in node
        wanted = node.get("type")
        folded = (is_object and wanted == "object") or (is_array and wanted == "array") or "const" in node
        if wanted is not None and not folded:
            checks.append(_type_check(wanted))
        if "const" in node:
            checks.append(_const_check(node["const"]))
        if "enum" in node:
            checks.append(_enum_check(node["enum"]))
        if "minimum" in node or "maximum" in node:
            checks.append(_range_check(node.get("minimum"), node.get("maximum")))
        if is_object:
            checks.append(self._object_check(node, typed=wanted == "object"))
        if is_array:
            checks.append(self._array_check(node, typed=wanted == "array"))
        if "allOf" in node:
            checks.extend(self._compile(sub) for sub in node["allOf"])
        if "anyOf" in node:
            checks.append(self._any_of(node["anyOf"]))
        return _chain(checks)

    def _object_check(self, node: dict[str, Any], typed: bool) -> Check:
        """required, properties and additionalProperties; with typed, "type": "object" too.

        Properties that are a bare plain type or a string const are checked in
        the loop rather than through a call: most properties are such leaves.
        """
        required = tuple(node.get("required", ()))
        leaves: dict[str, tuple[type, str | None]] = {}
        properties: dict[str, Check] = {}
        for name, sub in node.get("properties", {}).items():
            leaf = _leaf(sub)
            if leaf is not None:
                leaves[name] = leaf
            else:
                properties[name] = self._compile(sub)
        extra_node = node.get("additionalProperties")
        extra = self._compile(extra_node) if isinstance(extra_node, dict) and extra_node else None
        if extra is None:
            properties = {name: sub for name, sub in properties.items() if sub is not _accept}
        elif leaves:  # a leaf is also exempt from additionalProperties: keep it out of its reach
            properties.update({name: _accept for name in leaves})
        lookup, leaf_of = properties.get, leaves.get

        def check(value: Any) -> Problem | None:
            if not isinstance(value, dict):
                return Problem(f"is {describe_value(value)}, not an object") if typed else None
            for name in required:
                if name not in value:
                    return Problem(f'has no "{name}", which is required')
            for name, item in value.items():  # objects carry fewer keys than their schemas name
                leaf = leaf_of(name)
                if leaf is not None:
                    kind, const = leaf
                    if not isinstance(item, kind) or (const is not None and item != const):
                        return _leaf_problem(item, kind, const).at(name)
                    continue
                sub = lookup(name, extra)
                if sub is not None:
                    problem = sub(item)
                    if problem is not None:
                        return problem.at(name)
            return None

        return check

    def _array_check(self, node: dict[str, Any], typed: bool) -> Check:
        """items and maxItems; with typed, "type": "array" too."""
        items = self._compile(node["items"]) if isinstance(node.get("items"), dict) else None
        max_items = node.get("maxItems")

        def check(value: Any) -> Problem | None:
            if not isinstance(value, list):
                return Problem(f"is {describe_value(value)}, not an array") if typed else None
            if isinstance(max_items, int) and len(value) > max_items:
                return Problem(f"has {len(value)} items, more than the {max_items} allowed")
            if items is not None:
                for item in value:
                    problem = items(item)
                    if problem is not None:
                        return problem.at(next(i for i, x in enumerate(value) if x is item))
            return None

        return check

    def _any_of(self, branches: list[Any]) -> Check:
        checks = [self._compile(sub) for sub in branches]
        names = [self._branch_name(sub) for sub in branches]
        tags = [self._type_tag(sub) for sub in branches]

        if all(isinstance(tag, str) for tag in tags) and len(set(tags)) == len(tags):
            by_tag: dict[str, Check] = dict(zip(tags, checks, strict=True))
            allowed = ", ".join(json_text(t) for t in tags)

            def check_tagged(value: Any) -> Problem | None:
                """Every branch requires "type" with a const of its own: only the one named can match."""
                tag = value.get("type") if isinstance(value, dict) else None
                if tag is None:
                    return Problem(f"is {describe_value(value)} that matches none of {', '.join(names)}")
                sub = by_tag.get(tag) if isinstance(tag, str) else None
                if sub is None:
                    return Problem(f"is {json_text(tag)}, not one of {allowed}").at("type")
                return sub(value)

            return check_tagged

        def check(value: Any) -> Problem | None:
            problems = []
            for sub in checks:
                problem = sub(value)
                if problem is None:
                    return None
                problems.append(problem)
            tag = value.get("type") if isinstance(value, dict) else None
            if tag is not None and tag in tags:  # a tagged union: the branch its "type" names says why
                return problems[tags.index(tag)]
            if tag is not None and all(tags):
                allowed = ", ".join(json_text(t) for t in tags)
                return Problem(f"is {json_text(tag)}, not one of {allowed}").at("type")
            return Problem(f"is {describe_value(value)} that matches none of {', '.join(names)}")

        return check

    def _resolve(self, node: Any) -> Any:
        seen = 0
        while isinstance(node, dict) and "$ref" in node and seen < 8:
            node, seen = self._defs.get(node["$ref"]), seen + 1
        return node

    def _branch_name(self, node: Any) -> str:
        if isinstance(node, dict) and "$ref" in node:
            return str(node["$ref"])
        kind = node.get("type") if isinstance(node, dict) else None
        return str(kind) if kind is not None else "a schema"

    def _type_tag(self, node: Any) -> Any:
        """The const of the branch's required "type" property, when the union is tagged by it."""
        target = self._resolve(node)
        if not isinstance(target, dict) or "type" not in target.get("required", ()):
            return None
        properties = target.get("properties")
        tag = properties.get("type") if isinstance(properties, dict) else None
        return tag.get("const") if isinstance(tag, dict) else None


def _leaf(node: Any) -> tuple[type, str | None] | None:
    """(python type, const) for a property schema that is {"type": plain} or a string const."""
    if not isinstance(node, dict):
        return None
    kind = node.get("type")
    if node.keys() == {"type"} and kind in PLAIN_TYPES:
        return PLAIN_TYPES[kind], None
    const = node.get("const")
    if isinstance(const, str) and node.keys() <= {"const", "type"} and kind in (None, "string"):
        return str, const
    return None


def _leaf_problem(value: Any, kind: type, const: str | None) -> Problem:
    if const is not None:
        return Problem(f"is {json_text(value)}, not {json_text(const)}")
    return Problem(f"is {describe_value(value)}, not {TYPE_NAMES[kind]}")


def _accept(value: Any) -> Problem | None:
    return None


def _chain(checks: list[Check]) -> Check:
    if not checks:
        return _accept
    if len(checks) == 1:
        return checks[0]

    def check(value: Any) -> Problem | None:
        for sub in checks:
            problem = sub(value)
            if problem is not None:
                return problem
        return None

    return check


def _type_check(wanted: Any) -> Check:
    names = tuple(wanted) if isinstance(wanted, list) else (wanted,)
    label = " or ".join(WANTED_NAMES.get(name, name) for name in names)
    if len(names) == 1 and names[0] in PLAIN_TYPES:
        plain = PLAIN_TYPES[names[0]]

        def check_plain(value: Any) -> Problem | None:
            return None if isinstance(value, plain) else Problem(f"is {describe_value(value)}, not {label}")

        return check_plain

    def check(value: Any) -> Problem | None:
        if any(_is_type(value, name) for name in names):
            return None
        return Problem(f"is {describe_value(value)}, not {label}")

    return check


def _const_check(wanted: Any) -> Check:
    def check(value: Any) -> Problem | None:
        return (
            None
            if value == wanted and type(value) is type(wanted)
            else Problem(f"is {json_text(value)}, not {json_text(wanted)}")
        )

    return check


def _enum_check(allowed: list[Any]) -> Check:
    def check(value: Any) -> Problem | None:
        if any(value == a and type(value) is type(a) for a in allowed):
            return None
        return Problem(f"is {json_text(value)}, not one of {', '.join(json_text(a) for a in allowed)}")

    return check


def _range_check(low: Any, high: Any) -> Check:
    def check(value: Any) -> Problem | None:
        if not isinstance(value, int | float) or isinstance(value, bool):
            return None
        if low is not None and value < low:
            return Problem(f"is {json_text(value)}, below the minimum {low}")
        if high is not None and value > high:
            return Problem(f"is {json_text(value)}, above the maximum {high}")
        return None

    return check


class ResultSchemas:
    """The result definitions of each revision, compiled on demand: what the caller hands the analysis.

    ``revisions`` maps a revision to its definitions (result_schemas.json's "revisions").
    """

    def __init__(self, revisions: dict[str, dict[str, Any]]) -> None:
        self._revisions = {revision: Schemas(defs) for revision, defs in revisions.items()}

    def of(self, revision: str) -> Schemas | None:
        """The definitions of a revision, or None for a revision mcpspy has no schema of."""
        return self._revisions.get(revision)
