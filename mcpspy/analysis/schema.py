"""A small JSON Schema validator for the subset the official MCP schema.json files use.

$ref, type, const, enum, required, properties, additionalProperties (as a
schema), items, anyOf, allOf, minimum, maximum and maxItems; "format" and
prose are ignored, so nothing is flagged on a hint. Each definition compiles
once, on first use, to a chain of closures that allocate nothing when the
value is valid, and that say why a value does not fit.

Speed (the policy: analysis/__init__.py): every tools/call result is checked,
and the closures cost 14,200 instructions a CallToolResult (callgrind). So each
definition also compiles, once, to a predicate written as Python source
(``Schemas.fits``: 2,900 instructions) that says only whether a value fits;
the closures run only for a value that does not, to say why. The predicate is
written for the common keywords and hands every other node to its closure, so
the two agree by construction (tests/analysis/test_schema.py holds it: a
property test over random values and every definition).

The definitions are cut from the spec repository's schema files by
tests/analysis/make_result_schemas.py, ship in mcpspy/result_schemas.json, and
are handed to the analysis by its caller (mcpspy/analysis_data.py reads them):
the analysis reads no file.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
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
Fits = Callable[[Any], bool]
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
        self._predicates = _Predicates(self)

    def has(self, name: str) -> bool:
        return name in self._defs

    def check(self, name: str) -> Check:
        compiled = self._compiled.get(name)
        if compiled is None:
            self._compiling.add(name)
            compiled = self._compiled[name] = self._compile(self._defs[name])
            self._compiling.discard(name)
        return compiled

    def fits(self, name: str, fixed: Mapping[str, Any] | None = None) -> Fits:
        """Whether a value fits the definition ``name``: ``check(name)(value) is None``, sooner.

        ``fixed``: judge the value as if these keys were set to these values (``{**value,
        **fixed}``), without the copy; only for a definition that is a plain object schema
        (else a predicate that always says no, so that the caller copies and checks).
        """
        return self._predicates.function(name, fixed)

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


# What a node may hold to be written as source; any other keyword the closures read hands it over.
_HANDED_OVER = ("enum", "minimum", "maximum", "allOf")  # rare: such a node is judged by its closure
_PLAIN_OBJECT = frozenset({"$ref", "const", "items", "maxItems", "anyOf", *_HANDED_OVER})  # none of these


# How deep a definition's $refs are written into its function rather than called (a CallToolResult's
# union of content blocks and the block a value names: 6,940 -> 6,440 instructions a result); deeper
# ones, and a definition within itself, are calls.
INLINED_REFS = 2


def _never(value: Any) -> bool:
    return False


def _when_a(kind: type, var: str, inner: list[str], typed: bool, lines: list[str], pad: str) -> None:
    """``inner`` for a ``var`` of that kind; with ``typed``, any other fails (an object or array check)."""
    if inner:
        lines.append(f"{pad}if isinstance({var}, {kind.__name__}):")
        lines.extend(inner)
        if typed:
            lines.append(f"{pad}else: return False")
    elif typed:
        lines.append(f"{pad}if not isinstance({var}, {kind.__name__}): return False")


def _source(function: str, lines: list[str]) -> str:
    return "\n".join([f"def {function}(v):", *lines, "    return True"])


class _Predicates:
    """The ``Schemas.fits`` predicates of one revision: Python source, written and compiled once.

    Each definition becomes ``def fN(v)``, True when ``v`` fits it, a ``$ref`` a call to another.
    It writes what the closures check for the keywords most nodes use (type, const, required,
    properties, additionalProperties, items, maxItems, a union tagged by "type"), in the way
    ``Schemas._compile`` reads them; a node with any other keyword is judged by its closure.
    """

    def __init__(self, schemas: Schemas) -> None:
        self._schemas = schemas
        self._defs = schemas._defs
        self._constants: list[Any] = []  # values the source names K[i]
        self._closures: list[Check] = []  # the closures of nodes handed over, C[i]
        self._names: dict[str, str] = {}  # definition -> its function's name
        self._unwritten: list[str] = []  # definitions named by a call, not written yet
        self._predicates: dict[tuple[str, tuple[tuple[str, Any], ...]], Fits] = {}
        self._namespace: dict[str, Any] = {"K": self._constants, "C": self._closures}
        self._namespace.update({kind.__name__: kind for kind in PLAIN_TYPES.values()})
        self._ids = itertools.count()
        self._inlined: list[str] = []  # the definitions being written inline, outermost first

    def function(self, name: str, fixed: Mapping[str, Any] | None) -> Fits:
        key = (name, tuple(sorted((fixed or {}).items())))
        predicate = self._predicates.get(key)
        if predicate is None:
            predicate = self._predicates[key] = self._with_fixed(name, fixed) if fixed else self._named(name)
        return predicate

    def _named(self, name: str) -> Fits:
        """The predicate of a definition, with those of the definitions it calls."""
        function = self._name_of(name)
        self._write_unwritten()
        fits: Fits = self._namespace[function]
        return fits

    def _with_fixed(self, name: str, fixed: Mapping[str, Any]) -> Fits:
        """``name``'s predicate for ``{**value, **fixed}``, read from ``value`` (a plain object schema)."""
        node = self._defs[name]
        if not (
            isinstance(node, dict)
            and node.get("type") == "object"
            and not _PLAIN_OBJECT & node.keys()
            and self._object_writable(node)
        ):
            return _never
        extra = node.get("additionalProperties")
        properties = node.get("properties", {})
        for key, value in fixed.items():  # the same value every time: judged once, by the closures
            alone: dict[str, Any] = {"type": "object", "properties": {}}
            if key in properties:
                alone["properties"][key] = properties[key]
            if extra is not None:
                alone["additionalProperties"] = extra
            if self._schemas._compile(alone)({key: value}) is not None:
                return _never  # every value fails on it: the caller's check says why
        function, lines = f"f{next(self._ids)}", list[str]()
        self._object(node, "v", lines, 1, typed=True, fixed=tuple(fixed))
        self._write_unwritten([_source(function, lines)])
        fits: Fits = self._namespace[function]
        return fits

    def _name_of(self, definition: str) -> str:
        function = self._names.get(definition)
        if function is None:
            function = self._names[definition] = f"f{next(self._ids)}"
            self._unwritten.append(definition)
        return function

    def _write_unwritten(self, sources: list[str] | None = None) -> None:
        sources = sources or []
        while self._unwritten:
            definition = self._unwritten.pop()
            lines: list[str] = []
            self._node(self._defs[definition], "v", lines, 1)
            sources.append(_source(self._names[definition], lines))
        if sources:
            exec("\n".join(sources), self._namespace)  # the source written above, from the schema

    def _constant(self, value: Any) -> str:
        """How the source names ``value``: a literal for a string, else K[i]."""
        if type(value) is str:
            return repr(value)
        self._constants.append(value)
        return f"K[{len(self._constants) - 1}]"

    def _var(self, stem: str) -> str:
        return f"{stem}{next(self._ids)}"

    def _node(self, node: Any, var: str, lines: list[str], depth: int) -> None:
        """Lines that return False when ``var`` does not fit ``node``, read as Schemas._compile reads it."""
        if not isinstance(node, dict):
            return
        pad = "    " * depth
        wanted = node.get("type")
        is_object = (
            "required" in node or "properties" in node or isinstance(node.get("additionalProperties"), dict)
        )
        is_array = isinstance(node.get("items"), dict) or "maxItems" in node
        folded = (is_object and wanted == "object") or (is_array and wanted == "array") or "const" in node
        ref = node.get("$ref")
        tags = self._tags(node["anyOf"]) if "anyOf" in node else None
        if (
            any(key in node for key in _HANDED_OVER)
            or ("$ref" in node and type(ref) is not str)
            or (wanted is not None and not folded and (type(wanted) is not str or wanted not in PLAIN_TYPES))
            or ("anyOf" in node and tags is None)
            or (is_object and not self._object_writable(node))
        ):
            self._closures.append(self._schemas._compile(node))
            lines.append(f"{pad}if C[{len(self._closures) - 1}]({var}) is not None: return False")
            return
        if type(ref) is str and ref in self._defs:
            if ref not in self._inlined and len(self._inlined) < INLINED_REFS:
                self._inlined.append(ref)  # written inline (INLINED_REFS)
                self._node(self._defs[ref], var, lines, depth)
                self._inlined.pop()
            else:
                lines.append(f"{pad}if not {self._name_of(ref)}({var}): return False")
        if wanted is not None and not folded:
            lines.append(f"{pad}if not isinstance({var}, {PLAIN_TYPES[wanted].__name__}): return False")
        if "const" in node:
            const = node["const"]
            value, kind = self._constant(const), self._constant(type(const))
            lines.append(f"{pad}if {var} != {value} or type({var}) is not {kind}: return False")
        if is_object:
            self._object(node, var, lines, depth, typed=wanted == "object")
        if is_array:
            self._array(node, var, lines, depth, typed=wanted == "array")
        if tags is not None:
            self._tagged(node["anyOf"], tags, var, lines, depth)

    def _object_writable(self, node: dict[str, Any]) -> bool:
        required = node.get("required", ())
        return (
            isinstance(required, list | tuple)
            and all(type(name) is str for name in required)
            and isinstance(node.get("properties", {}), dict)
        )

    def _object(
        self,
        node: dict[str, Any],
        var: str,
        lines: list[str],
        depth: int,
        typed: bool,
        fixed: tuple[str, ...] = (),
    ) -> None:
        """_object_check's: required, each property (a leaf inline), additionalProperties for the rest.

        Without additionalProperties only the properties it names are read, each where it is
        (a value has fewer keys than its schema names, but a lookup costs less than a loop).
        """
        pad = "    " * depth
        inner: list[str] = []
        required = [name for name in node.get("required", ()) if name not in fixed]
        if required:
            missing = " or ".join(f"{name!r} not in {var}" for name in required)
            inner.append(f"{pad}    if {missing}: return False")
        properties = {name: sub for name, sub in node.get("properties", {}).items() if name not in fixed}
        extra_node = node.get("additionalProperties")
        if isinstance(extra_node, dict) and extra_node:
            inner += self._every_key(properties, extra_node, fixed, var, depth + 1)
        else:
            for name, sub in properties.items():
                item = self._var("x")
                if name in required:
                    body = self._property(sub, item, depth + 1)
                    inner += [f"{pad}    {item} = {var}[{name!r}]", *body] if body else []
                else:
                    body = self._property(sub, item, depth + 2)
                    inner += (
                        [f"{pad}    if {name!r} in {var}:", f"{pad}        {item} = {var}[{name!r}]", *body]
                        if body
                        else []
                    )
        _when_a(dict, var, inner, typed, lines, pad)

    def _every_key(
        self, properties: dict[str, Any], extra_node: Any, fixed: tuple[str, ...], var: str, depth: int
    ) -> list[str]:
        """With additionalProperties: each key of the value, by the property it is or by that schema."""
        pad = "    " * depth
        key, item = self._var("k"), self._var("x")
        lines = [f"{pad}for {key}, {item} in {var}.items():"]
        names = [*fixed, *properties]  # a fixed key is judged already: never by additionalProperties
        for i, name in enumerate(names):
            body = self._property(properties[name], item, depth + 2) if name in properties else []
            lines.append(f"{pad}    {'if' if i == 0 else 'elif'} {key} == {name!r}:")
            lines.extend(body or [f"{pad}        pass"])
        rest: list[str] = []
        self._node(extra_node, item, rest, depth + 2)
        if names:
            lines += [f"{pad}    else:", *rest] if rest else []
        else:
            lines += [line[4:] for line in rest]
        return lines if len(lines) > 1 else []

    def _property(self, sub: Any, item: str, depth: int) -> list[str]:
        """A property's lines: a leaf's inline, any other node's as written for it."""
        leaf = _leaf(sub)
        if leaf is None:
            body: list[str] = []
            self._node(sub, item, body, depth)
            return body
        kind, const = leaf
        wrong = f"not isinstance({item}, {kind.__name__})"
        if const is not None:
            wrong += f" or {item} != {const!r}"
        return [f"{'    ' * depth}if {wrong}: return False"]

    def _array(self, node: dict[str, Any], var: str, lines: list[str], depth: int, typed: bool) -> None:
        """_array_check's: maxItems, then each item."""
        pad = "    " * depth
        inner: list[str] = []
        max_items = node.get("maxItems")
        if isinstance(max_items, int):
            inner.append(f"{pad}    if len({var}) > {self._constant(max_items)}: return False")
        items = node.get("items")
        if isinstance(items, dict):
            item = self._var("x")
            body: list[str] = []
            self._node(items, item, body, depth + 2)
            if body:
                inner.append(f"{pad}    for {item} in {var}:")
                inner.extend(body)
        _when_a(list, var, inner, typed, lines, pad)

    def _tags(self, branches: Any) -> list[str] | None:
        """The tags of a union tagged by "type" (each branch's const), as _any_of finds them; else None."""
        if not isinstance(branches, list):
            return None
        tags = [self._schemas._type_tag(sub) for sub in branches]
        if all(isinstance(tag, str) for tag in tags) and len(set(tags)) == len(tags):
            return tags
        return None

    def _tagged(self, branches: list[Any], tags: list[str], var: str, lines: list[str], depth: int) -> None:
        """_any_of's check_tagged: only the branch that "type" names can match."""
        pad = "    " * depth
        if not tags:
            lines.append(f"{pad}return False")  # no branch: nothing matches
            return
        tag = self._var("t")
        lines.append(f"{pad}if not isinstance({var}, dict): return False")
        lines.append(f"{pad}{tag} = {var}.get('type')")
        lines.append(f"{pad}if not isinstance({tag}, str): return False")
        for i, (name, sub) in enumerate(zip(tags, branches, strict=True)):
            body: list[str] = []
            self._node(sub, var, body, depth + 1)
            lines.append(f"{pad}{'if' if i == 0 else 'elif'} {tag} == {name!r}:")
            lines.extend(body or [f"{pad}    pass"])
        lines.append(f"{pad}else: return False")


class ResultSchemas:
    """The result definitions of each revision, compiled on demand: what the caller hands the analysis.

    ``revisions`` maps a revision to its definitions (result_schemas.json's "revisions").
    """

    def __init__(self, revisions: dict[str, dict[str, Any]]) -> None:
        self._revisions = {revision: Schemas(defs) for revision, defs in revisions.items()}

    def of(self, revision: str) -> Schemas | None:
        """The definitions of a revision, or None for a revision mcpspy has no schema of."""
        return self._revisions.get(revision)
