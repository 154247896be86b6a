"""Tool definitions a client rejects (tools.*): one bad schema can drop every tool of a server.

Read from each tools/list result, in both eras. The faults are the ones users
lose hours to because neither side says a word: a top-level anyOf/oneOf/allOf
(the Anthropic API refuses it, so Claude Code drops the tools or fails every
request), a root that is not ``type: "object"`` or a ``required`` that is not
an array of strings (the TypeScript SDK's client rejects the whole result),
a non-default ``$schema`` dialect, a ``$ref`` or a boolean where some clients
want a schema object, and tool names that are duplicated or outside
``[A-Za-z0-9_.-]{1,128}``.

``named`` says which (tool index, field) an error here already named in the
result just judged, so that rules/shapes.py's generic shape check steps aside
for them.
"""

from __future__ import annotations

import re
from typing import Any

from mcpspy.analysis.jsonrpc import json_text, preview
from mcpspy.analysis.message_fields import result_of
from mcpspy.analysis.model import Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.rules.legacy import EraTracker
from mcpspy.capture.records import Stream

Covered = frozenset[tuple[int, str]]
NOTHING: Covered = frozenset()
COMBINATORS = ("anyOf", "oneOf", "allOf")
ROOT_UNPORTABLE = ("not", "if", "then", "else")  # legal 2020-12 at the root; some clients refuse it
DEFAULT_DIALECTS = frozenset(
    {"https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/schema#"}
)
# Revisions whose schema types outputSchema as {"type": "object"}; 2026-07-28 allows any 2020-12 schema.
OUTPUT_TYPED = frozenset({"2025-06-18", "2025-11-25"})
NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")
PLAIN_KEY = re.compile(r"[A-Za-z0-9_$-]{1,40}")
MAX_NODES = 5000  # sub-schemas walked per schema: a hostile schema costs bounded time
# Keywords whose value is a schema, a list of schemas, or a map of names to schemas.
ONE = ("items", "not", "if", "then", "else", "contains", "propertyNames", "additionalProperties",
       "unevaluatedProperties", "unevaluatedItems", "additionalItems")  # fmt: skip
MANY = ("prefixItems", "anyOf", "oneOf", "allOf")
NAMED = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
# Where a boolean schema may be refused (true/false as additionalProperties is common and fine).
BOOLEAN_UNPORTABLE = frozenset(
    {"items", "not", "prefixItems", "anyOf", "oneOf", "allOf", "properties", "$defs"}
)


class ToolSchemas:
    def __init__(self, out: Reporter, era: EraTracker) -> None:
        self._out = out
        self._era = era
        self.named: Covered = NOTHING  # of the result just judged (rules/shapes.py reads it next)

    def result(self, message: Message) -> None:
        """A result that answered a request still held (model.Held): its tools' definitions."""
        self.named = NOTHING
        exchange = message.exchange
        if exchange is None or exchange.held is None or exchange.method != "tools/list":
            return
        result = result_of(message)
        tools = result.get("tools") if isinstance(result, dict) else None
        if exchange.stream is not Stream.C2S or not isinstance(tools, list):
            return
        revision = self._era.revision(exchange)
        covered: set[tuple[int, str]] = set()
        dialects: list[tuple[str, str, Any]] = []  # (tool, path, $schema) of each non-default dialect
        first_at: dict[str, int] = {}
        for i, tool in enumerate(tools):
            if not isinstance(tool, dict):
                continue
            name = tool.get("name")
            label = preview(name) if isinstance(name, str) else f"#{i}"
            if isinstance(name, str):
                self._name(message, i, name, first_at)
            for field in ("inputSchema", "outputSchema"):
                if field not in tool:
                    continue
                where = f"result.tools[{i}].{field}"
                if self._schema(message, label, where, field, tool[field], revision):
                    covered.add((i, field))
                schema = tool[field]
                dialect = schema.get("$schema") if isinstance(schema, dict) else None
                if isinstance(dialect, str) and dialect not in DEFAULT_DIALECTS:
                    dialects.append((label, f"{where}.$schema", dialect))
        if dialects:
            label, where, dialect = dialects[0]
            more = _more(dialects, "schema")
            self._find(
                RuleId.TOOLS_SCHEMA_DIALECT,
                message,
                f"tool {label} declares $schema {json_text(dialect)} at {where}{more}, not JSON Schema "
                "2020-12: clients whose validator knows 2020-12 only refuse such tools",
            )
        self.named = frozenset(covered)

    def _name(self, message: Message, i: int, name: str, first_at: dict[str, int]) -> None:
        where = f"result.tools[{i}].name"
        if name in first_at:
            if first_at[name] >= 0:
                self._find(
                    RuleId.TOOLS_DUPLICATE_NAME,
                    message,
                    f"tool name {preview(name)} is listed twice (result.tools[{first_at[name]}] and "
                    f"result.tools[{i}]): a client keeps one of them, or refuses both",
                )
                first_at[name] = -1  # said once per name
            return
        first_at[name] = i
        if NAME.fullmatch(name) is None:
            why = (
                f"is {len(name)} characters long, outside 1 to 128"
                if not 1 <= len(name) <= 128
                else "has characters outside A-Z a-z 0-9 _ - ."
            )
            self._find(RuleId.TOOLS_NAME_FORMAT, message, f"tool name {preview(name)} at {where} {why}")

    def _schema(
        self, message: Message, label: str, where: str, field: str, schema: Any, revision: str | None
    ) -> bool:
        """One inputSchema or outputSchema; True when an error named it (the generic check steps aside)."""
        is_input = field == "inputSchema"
        if not isinstance(schema, dict):
            self._find(
                RuleId.TOOLS_SCHEMA_NOT_OBJECT,
                message,
                f"tool {label}: {where} is {json_text(schema)}, not a JSON Schema object with "
                '"type": "object"; TypeScript SDK clients reject the whole tools/list',
            )
            return True
        named = False
        kind = schema.get("type", None)
        if kind != "object" and (is_input or revision in OUTPUT_TYPED):
            found = "has no type" if "type" not in schema else f"has type {json_text(kind)}"
            self._find(
                RuleId.TOOLS_SCHEMA_NOT_OBJECT,
                message,
                f'tool {label}: {where} {found}, not "object"; TypeScript SDK clients reject the whole '
                "tools/list, so every tool of the server is lost",
            )
            named = True
        if is_input:
            combinators = [key for key in COMBINATORS if key in schema]
            if combinators:
                self._find(
                    RuleId.TOOLS_SCHEMA_COMBINATOR,
                    message,
                    f"tool {label}: {where} has a top-level {' and '.join(combinators)} "
                    f"({where}.{combinators[0]}); the Anthropic API refuses it, so Claude Code drops "
                    "the server's tools or fails every request",
                )
        bad_required, unportable = _walk(schema, where, is_input)
        if bad_required:
            path, value = bad_required[0]
            more = _more(bad_required, "place")
            self._find(
                RuleId.TOOLS_SCHEMA_REQUIRED,
                message,
                f"tool {label}: {path} is {json_text(value)}, not an array of strings{more}; "
                "TypeScript SDK clients reject the whole tools/list",
            )
            named = True
        if unportable:
            path, why = unportable[0]
            more = _more(unportable, "place")
            self._find(RuleId.TOOLS_SCHEMA_UNPORTABLE, message, f"tool {label}: {path} {why}{more}")
        return named

    def _find(self, rule: RuleId, message: Message, sentence: str) -> None:
        self._out.find(rule, message.seq, message.stream, sentence, related_seq=None)


def _walk(
    root: dict[str, Any], where: str, is_input: bool
) -> tuple[list[tuple[str, Any]], list[tuple[str, str]]]:
    """Every ``required`` that is not an array of strings, and every place some clients refuse.

    Iterative with a node budget: a schema nested a thousand deep costs no recursion.
    """
    bad_required: list[tuple[str, Any]] = []
    unportable: list[tuple[str, str]] = []
    if is_input:
        unportable.extend(
            (f"{where}.{key}", "is a top-level keyword some clients refuse")
            for key in ROOT_UNPORTABLE
            if key in root
        )
    stack: list[tuple[Any, str, str | None]] = [(root, where, None)]  # (node, path, keyword it stands under)
    dialect = root.get("$schema")
    draft_03 = isinstance(dialect, str) and "draft-03" in dialect  # where a property says "required": true
    nodes = 0
    while stack and nodes < MAX_NODES:
        node, path, under = stack.pop()
        nodes += 1
        if isinstance(node, bool):
            if under in BOOLEAN_UNPORTABLE:
                unportable.append(
                    (path, f"is the boolean {json_text(node)}, where some clients want a schema object")
                )
            continue
        if not isinstance(node, dict):
            continue
        required = node.get("required", [])
        if not _strings(required) and not (draft_03 and path != where):
            bad_required.append((f"{path}.required", required))
        ref = node.get("$ref")
        if isinstance(ref, str) and not _resolves(root, ref):
            unportable.append(
                (f"{path}.$ref", f"is {json_text(ref)}, which does not resolve inside the schema")
            )
        children: list[tuple[Any, str, str | None]] = []
        for key in ONE:
            if key in node:
                children.append((node[key], f"{path}.{key}", key))
        for key in MANY:
            value = node.get(key)
            if isinstance(value, list):
                children.extend((sub, f"{path}.{key}[{n}]", key) for n, sub in enumerate(value))
        for key in NAMED:
            value = node.get(key)
            if isinstance(value, dict):
                children.extend((sub, f"{path}.{key}{_segment(name)}", key) for name, sub in value.items())
        stack.extend(reversed(children))
    return bad_required, unportable


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _more(found: list[Any], noun: str) -> str:
    """ " (and 2 more places)" after the first of ``found``; nothing when it is alone."""
    n = len(found) - 1
    return "" if n < 1 else f" (and {n} more {noun}{'s' if n > 1 else ''})"


def _segment(name: str) -> str:
    return f".{name}" if PLAIN_KEY.fullmatch(name) else f"[{preview(name)}]"


def _resolves(root: dict[str, Any], ref: str) -> bool:
    """A local reference (``#``, ``#/json/pointer``, ``#anchor``) that finds its target in ``root``."""
    if ref == "#":
        return True
    if not ref.startswith("#"):
        return False  # remote, or relative to an $id: a client must fetch it, and most do not
    if not ref.startswith("#/"):
        return _has_anchor(root, ref[1:])
    node: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True


def _has_anchor(root: dict[str, Any], anchor: str) -> bool:
    stack: list[Any] = [root]
    nodes = 0
    while stack and nodes < MAX_NODES:
        node = stack.pop()
        nodes += 1
        if isinstance(node, dict):
            if node.get("$anchor") == anchor or node.get("$dynamicAnchor") == anchor:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False
