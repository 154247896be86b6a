"""What a good result looks like, for the results the script asks for: problems, each with a severity.

The passive analysis validates every result against the official JSON Schema
of its revision (``schema.result-shape``) and judges its resultType and caching
hints (``result.*``, ``cache.*``: missing, invalid, a scope changed between
pages); its findings reach the check whose reply they are
about (judge.py), so a check never says again what a rule says. These are the
checks the analysis does not make: the items' key fields, and whether each
tool's inputSchema is a usable JSON Schema.
"""

from __future__ import annotations

from typing import Any

from mcpspy.analysis.model import Severity
from mcpspy.jsonutil.quote import SHOWN, cut, shown

E, W = Severity.ERROR, Severity.WARNING
Problems = list[tuple[Severity, str]]

#: list check -> (method, the result's array field, the fields each item needs)
LISTS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "tools": ("tools/list", "tools", ("name", "inputSchema")),
    "prompts": ("prompts/list", "prompts", ("name",)),
    "resources": ("resources/list", "resources", ("uri", "name")),
    "resource-templates": ("resources/templates/list", "resourceTemplates", ("uriTemplate", "name")),
}
#: list check -> the server capability that declares it
CAPABILITY = {
    "tools": "tools",
    "prompts": "prompts",
    "resources": "resources",
    "resource-templates": "resources",
}
JSON_TYPES = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})


def page_problems(kind: str, result: Any) -> tuple[Problems, list[Any]]:
    """Problems of one page of a list result, and its items."""
    method, field, needed = LISTS[kind]
    if not isinstance(result, dict):
        return [(E, f"the {method} result is not an object")], []
    problems: Problems = []
    items = result.get(field)
    if not isinstance(items, list):
        return [*problems, (E, f"the {method} result has no {field} array")], []
    for index, item in enumerate(items):
        label = _label(item, index)
        if not isinstance(item, dict):
            problems.append((E, f"{field}[{index}] is not an object"))
            continue
        for key in needed:
            if key not in item:
                problems.append((E, f"{label} has no {key}"))
        if kind == "tools":
            problems += tool_schema_problems(item, label)
    return problems, items


def tool_schema_problems(tool: dict[str, Any], label: str) -> Problems:
    problems: Problems = []
    schema = tool.get("inputSchema")
    if "inputSchema" in tool:
        if not isinstance(schema, dict):
            problems.append((E, f"{label}'s inputSchema is not an object"))
        else:
            if schema.get("type") != "object":
                problems.append(
                    (E, f'{label}\'s inputSchema has type {shown(schema.get("type"))}, not "object"')
                )
            problems += schema_problems(schema, f"{label}'s inputSchema")
    if "outputSchema" in tool:
        output = tool["outputSchema"]
        if not isinstance(output, dict):
            problems.append((E, f"{label}'s outputSchema is not an object"))
        else:
            problems += schema_problems(output, f"{label}'s outputSchema")
    return problems


def schema_problems(schema: dict[str, Any], where: str, depth: int = 0) -> Problems:
    """The mistakes that make a JSON Schema unusable to a client: wrong types of its core keywords."""
    problems: Problems = []
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if "type" in schema and not all(isinstance(k, str) and k in JSON_TYPES for k in kinds):
        problems.append((E, f"{where} has type {shown(kind)}, which is no JSON Schema type"))
    properties = schema.get("properties")
    if "properties" in schema and not isinstance(properties, dict):
        problems.append((E, f"{where}'s properties is not an object"))
        properties = None
    required = schema.get("required")
    if "required" in schema:
        if not (isinstance(required, list) and all(isinstance(r, str) for r in required)):
            problems.append((E, f"{where}'s required is not a list of names"))
        elif properties is not None and "additionalProperties" not in schema:
            unknown = [r for r in required if r not in properties]
            if unknown:
                problems.append((W, f"{where} requires {', '.join(unknown)}, which it does not define"))
    if properties and depth < 8:
        for name, sub in properties.items():
            if isinstance(sub, dict):
                problems += schema_problems(sub, f"{where}.{name}", depth + 1)
            elif not isinstance(sub, bool):
                problems.append((E, f"{where}.{name} is not a schema (an object or a boolean)"))
    return problems


def call_problems(result: Any) -> Problems:
    if not isinstance(result, dict):
        return [(E, "the tools/call result is not an object")]
    problems: Problems = []
    if result.get("resultType") == "input_required":
        return []  # the tool asks for input; the content comes with the retry
    if not isinstance(result.get("content"), list):
        problems.append((E, "the tools/call result has no content array"))
    return problems


def names(items: list[Any], limit: int = 5) -> str:
    listed = [
        cut(str(i.get("name") or i.get("uri") or "?"), SHOWN) for i in items[:limit] if isinstance(i, dict)
    ]
    more = f", +{len(items) - limit}" if len(items) > limit else ""
    return ", ".join(listed) + more


def _label(item: Any, index: int) -> str:
    name = item.get("name") if isinstance(item, dict) else None
    return f"item {index} ({shown(name)})" if isinstance(name, str) else f"item {index}"
