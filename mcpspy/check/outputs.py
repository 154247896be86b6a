"""A small JSON Schema check for a tool's structuredContent against its outputSchema. Pure.

Only the subset tool output schemas use in practice is judged: ``type`` (one
name or a list of them), ``properties``, ``required``, ``items`` (one schema)
and ``enum``. Every other keyword (``$ref``, ``oneOf``, ``pattern``,
``minimum``, ...) is not judged: a value it would reject passes here, so a
mistake said here is a mistake by any validator.
"""

from __future__ import annotations

from typing import Any

from mcpspy.jsonutil.quote import shown

MAX_DEPTH = 32  # nesting judged; deeper values pass (a hostile schema cannot recurse forever)
MAX_MISMATCHES = 5  # said per value; the rest are counted

_TYPE_OF = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),
}


def mismatches(value: Any, schema: Any) -> list[str]:
    """Where ``value`` breaks ``schema``'s subset (each a short sentence with its path); [] when it fits."""
    found: list[str] = []
    _walk(value, schema, "structuredContent", found, 0)
    return found


def _walk(value: Any, schema: Any, path: str, found: list[str], depth: int) -> None:
    if not isinstance(schema, dict) or depth > MAX_DEPTH or len(found) > MAX_MISMATCHES:
        return  # true, false and anything else: not judged here
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else None
    if kinds is not None:
        known = [k for k in kinds if isinstance(k, str) and k in _TYPE_OF]
        if known and not any(_TYPE_OF[k](value) for k in known):
            found.append(f"{path} is {_json_type(value)}, not {' or '.join(known)}")
            return
    enum = schema.get("enum")
    if isinstance(enum, list) and not any(_same(value, option) for option in enum):
        found.append(f"{path} is {shown(value)}, not one of {shown(enum)}")
    if isinstance(value, dict):
        required = schema.get("required")
        if isinstance(required, list):
            for name in required:
                if isinstance(name, str) and name not in value:
                    found.append(f"{path} has no {name!r}, which the outputSchema requires")
        properties = schema.get("properties")
        if isinstance(properties, dict):
            for name, sub in properties.items():
                if name in value:
                    _walk(value[name], sub, f"{path}.{name}", found, depth + 1)
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            _walk(item, schema["items"], f"{path}[{index}]", found, depth + 1)


def _same(a: Any, b: Any) -> bool:
    """JSON equality: 1 and 1.0 are equal, true and 1 are not."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def _json_type(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _TYPE_OF[name](value):
            return (
                "a number"
                if name in ("integer", "number")
                else f"{'an' if name[0] in 'aeiou' else 'a'} {name}"
            )
    return "a value"
