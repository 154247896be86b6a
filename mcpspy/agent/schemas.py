"""The tools' input and output schemas, and the one check of an agent's arguments against them.

Input schemas keep to what every client accepts (mcpspy's own tools.* rules
hold on them): a root ``"type": "object"`` with plain properties, no
combinators, no ``$ref``, no type unions. Output schemas are as short as they
can be and still say each field's type: the whole tools/list stays under
2,500 estimated tokens (docs/agent.md; tests/agent hold it).
"""

from __future__ import annotations

from typing import Any

from mcpspy.agent.sessions import ToolInputError, shown_ref

Schema = dict[str, Any]


def obj(properties: dict[str, Schema], required: tuple[str, ...] = ()) -> Schema:
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


def string(description: str = "", enum: tuple[str, ...] = ()) -> Schema:
    schema: Schema = {"type": "string"}
    if description:
        schema["description"] = description
    if enum:
        schema["enum"] = list(enum)
    return schema


def integer(description: str, minimum: int, maximum: int) -> Schema:
    return {"type": "integer", "description": description, "minimum": minimum, "maximum": maximum}


def number(description: str, minimum: float, maximum: float) -> Schema:
    return {"type": "number", "description": description, "minimum": minimum, "maximum": maximum}


# Output fields: a type is enough for the client's validation; the descriptions say the rest.
OBJECT: Schema = {"type": "object"}
ARRAY: Schema = {"type": "array"}
BOOL: Schema = {"type": "boolean"}
INT: Schema = {"type": "integer"}
NUM: Schema = {"type": "number"}
TEXT: Schema = {"type": "string"}
MAYBE_TEXT: Schema = {"type": ["string", "null"]}
MAYBE_OBJECT: Schema = {"type": ["object", "null"]}

# Inputs that several tools share.
SESSION = string("session id, name or capture path; default: the newest")
MAX_BYTES = integer("bytes kept of each captured line (default 400)", 0, 65536)
LIMIT = integer("items per page (default 20)", 1, 200)
CURSOR = string("next_cursor of the previous page")
FILTER = string("the TUI filter language: method:tools/* id:3 dir:s2c kind:error is:pending is:flagged words")

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def checked(arguments: Any, schema: Schema) -> dict[str, Any]:
    """``arguments`` if they fit ``schema`` (the subset above); else ToolInputError names the misfit."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ToolInputError("The arguments must be a JSON object.")
    properties: dict[str, Schema] = schema.get("properties", {})
    for name in schema.get("required", ()):
        if arguments.get(name) is None:
            raise ToolInputError(f"The argument {name} is required.")
    out: dict[str, Any] = {}
    for name, value in arguments.items():
        if name not in properties:
            known = ", ".join(properties) or "none"
            raise ToolInputError(f"There is no argument {shown_ref(str(name))}; the arguments are: {known}.")
        if value is None:
            continue  # a client that sends null for an argument it leaves out
        _check_value(name, value, properties[name])
        out[name] = value
    return out


def _check_value(name: str, value: Any, schema: Schema) -> None:
    kind = schema["type"]
    fits = isinstance(value, _TYPES[kind]) and not (kind in ("integer", "number") and isinstance(value, bool))
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        fits = True
    if not fits:
        raise ToolInputError(f"The argument {name} must be a{'n' if kind[0] in 'aeiou' else ''} {kind}.")
    if "enum" in schema and value not in schema["enum"]:
        raise ToolInputError(f"The argument {name} must be one of {', '.join(schema['enum'])}.")
    if "minimum" in schema and value < schema["minimum"]:
        raise ToolInputError(f"The argument {name} must be at least {schema['minimum']}.")
    if "maximum" in schema and value > schema["maximum"]:
        raise ToolInputError(f"The argument {name} must be at most {schema['maximum']}.")
    if kind == "array":
        item = schema.get("items", {}).get("type")
        if item is not None and not all(isinstance(v, _TYPES[item]) for v in value):
            raise ToolInputError(f"Each item of the argument {name} must be a {item}.")
        if len(value) < schema.get("minItems", 0):
            raise ToolInputError(f"The argument {name} needs at least {schema['minItems']} item.")
