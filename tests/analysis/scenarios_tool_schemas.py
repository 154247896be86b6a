"""The scenarios of the tool schemas rules, and the findings each must give ((rule id, seq), seqs from 1)."""

from __future__ import annotations

from typing import Any

from tests.analysis.steps import (
    INITIALIZED,
    TOOLS_RESULT,
    Step,
    c2s,
    initialize,
    initialize_result,
    req,
    res,
    s2c,
)

OK = {"name": "get_ticket", "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}}
DRAFT_07 = "http://json-schema.org/draft-07/schema#"


def modern(*tools: Any) -> list[Step]:
    """A 2026-07-28 tools/list and its result: the result is seq 2."""
    return [c2s(req(1, "tools/list")), s2c(res(1, {**TOOLS_RESULT, "tools": list(tools)}))]


def legacy(version: str, *tools: Any) -> list[Step]:
    """The handshake of ``version``, then tools/list: the result is seq 5."""
    return [
        initialize(version),
        initialize_result(version),
        INITIALIZED,
        c2s(req(1, "tools/list", meta=False)),
        s2c(res(1, {"tools": list(tools)})),
    ]


TOOL_SCHEMAS_SCENARIOS: dict[str, list[Step]] = {
    "tools-schema-combinator": modern(
        OK,
        {
            "name": "find_ticket",
            "inputSchema": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "slug": {"type": "string"}},
                "anyOf": [{"required": ["id"]}, {"required": ["slug"]}],
            },
        },
    ),
    # A bare anyOf root: no "type" either, which the 2025-06-18 schema's generic check would name too.
    "tools-schema-combinator-no-type": legacy(
        "2025-06-18",
        OK,
        {"name": "find_ticket", "inputSchema": {"anyOf": [{"type": "object"}, {"type": "object"}]}},
    ),
    "tools-schema-not-object": modern(OK, {"name": "ping", "inputSchema": None}),
    "tools-schema-required": legacy(
        "2025-06-18", OK, {"name": "ping", "inputSchema": {"type": "object", "required": None}}
    ),
    # The generic shape check steps aside for the schema named, and still names another fault.
    "tools-schema-step-aside": legacy(
        "2025-11-25",
        {"name": "ping", "inputSchema": {"type": "object", "required": None}},
        {"name": "pong"},
    ),
    "tools-schema-output-not-object": legacy(
        "2025-11-25",
        {**OK, "outputSchema": {"type": "array", "items": {"type": "string"}}},
    ),
    "tools-schema-dialect": legacy(
        "2025-11-25",
        {**OK, "inputSchema": {"$schema": DRAFT_07, **OK["inputSchema"]}},
        {"name": "ping", "inputSchema": {"$schema": DRAFT_07, "type": "object"}},
    ),
    "tools-schema-unportable": modern(
        {
            "name": "tag_ticket",
            "inputSchema": {
                "type": "object",
                "properties": {"tags": True, "owner": {"$ref": "https://example.com/user.json"}},
            },
        },
    ),
    "tools-schema-dynamic-ref": modern(
        {
            "name": "tree",
            "inputSchema": {
                "type": "object",
                "properties": {"root": {"$dynamicRef": "#node"}},
                "$defs": {"node": {"$dynamicAnchor": "node", "type": "object"}},
            },
        },
    ),
    "tools-duplicate-name": modern(OK, {**OK, "description": "again"}, {**OK, "description": "thrice"}),
    "tools-name-format": modern(OK, {**OK, "name": "get ticket"}, {**OK, "name": "x" * 129}),
    # What real servers send, and none of it is a fault: $defs and local $refs, nested anyOf (named, for
    # the clients that drop them),
    # additionalProperties false, the default dialect named, a 2026-07-28 outputSchema of any type.
    "tools-schema-clean": modern(
        {
            "name": "admin.tools.list",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": {
                    "owner": {"$ref": "#/$defs/user"},
                    "target": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                    "required": {"type": "boolean"},
                },
                "required": ["owner"],
                "additionalProperties": False,
                "$defs": {"user": {"type": "object", "required": ["id"], "properties": {"id": {}}}},
            },
            "outputSchema": {"type": "array"},
        },
        {"name": "DATA_EXPORT_v2", "inputSchema": {"type": "object"}},
    ),
}

TOOL_SCHEMAS_EXPECTED: dict[str, list[tuple[str, int]]] = {
    "tools-schema-combinator": [("tools.schema-combinator", 2)],
    "tools-schema-combinator-no-type": [("tools.schema-not-object", 5), ("tools.schema-combinator", 5)],
    "tools-schema-not-object": [("tools.schema-not-object", 2)],
    "tools-schema-required": [("tools.schema-required", 5)],
    "tools-schema-step-aside": [("tools.schema-required", 5), ("schema.result-shape", 5)],
    "tools-schema-output-not-object": [("tools.schema-not-object", 5)],
    "tools-schema-dialect": [("tools.schema-dialect", 5), ("tools.schema-dialect", 5)],
    "tools-schema-unportable": [("tools.schema-boolean", 2), ("tools.schema-unportable", 2)],
    "tools-schema-dynamic-ref": [("tools.schema-dynamic-ref", 2)],
    "tools-duplicate-name": [("tools.duplicate-name", 2)],
    "tools-name-format": [("tools.name-format", 2), ("tools.name-format", 2)],
    # Legal, and judged by the client profiles (issue 27): some clients drop nested anyOf or $ref.
    "tools-schema-clean": [("tools.schema-ref", 2), ("tools.schema-nested-combinator", 2)],
}
