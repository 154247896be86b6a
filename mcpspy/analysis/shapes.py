"""Result shapes: a known method's result, checked against its revision's schema definition."""

from __future__ import annotations

import functools
from typing import Any

from mcpspy.analysis.schema import Check, schemas_for
from mcpspy.capture.records import Stream

RESULT_DEFS: dict[str, str] = {
    "initialize": "InitializeResult",
    "server/discover": "DiscoverResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "prompts/list": "ListPromptsResult",
    "prompts/get": "GetPromptResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
    "completion/complete": "CompleteResult",
    "roots/list": "ListRootsResult",
    "sampling/createMessage": "CreateMessageResult",
    "elicitation/create": "ElicitResult",
}
ANSWERED_BY_CLIENT = frozenset({"roots/list", "sampling/createMessage", "elicitation/create"})
# 2026-07-28 results: result.missing-result-type and cache.missing-ttl already name these when absent.
OWNED_ELSEWHERE = {"resultType": "complete", "ttlMs": 0, "cacheScope": "public"}
MODERN = "2026-07-28"
S2C = Stream.S2C  # an Enum class attribute runs Python code per access on 3.11
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")  # RFC 5424


@functools.cache
def _definition(method: str, answered_by_client: bool, revision: str) -> tuple[str, Check] | None:
    """The result definition a method's result is held to, compiled; None when there is none."""
    name = RESULT_DEFS.get(method)
    if name is None or (method in ANSWERED_BY_CLIENT) != answered_by_client:
        return None  # unknown, or sent the wrong way: direction rules speak of that
    schemas = schemas_for(revision)
    if schemas is None or not schemas.has(name):
        return None
    return name, schemas.check(name)


def result_problem(method: str, request_stream: Stream, revision: str, result: dict[str, Any]) -> str | None:
    """Why ``result`` does not fit the schema of ``method`` in ``revision``, or None.

    None too when mcpspy has no schema for it: unknown methods and revisions,
    a method answered from the wrong side, a result that is not final.
    """
    definition = _definition(method, request_stream is S2C, revision)
    if definition is None:
        return None
    name, check = definition
    if revision == MODERN:
        if result.get("resultType", "complete") != "complete":
            return None  # input_required and extension result types have shapes of their own
        result = {**OWNED_ELSEWHERE, **result}
    problem = check(result)
    if problem is None:
        return None
    return f"the {method} result does not fit {name} ({revision}): {problem.where('result')} {problem.text}"


def log_message_problem(params: dict[str, Any]) -> str | None:
    """Why a notifications/message is malformed (same shape in every revision), or None."""
    level = params.get("level")
    if level not in LOG_LEVELS:
        got = f"{level!r}" if "level" in params else "missing"
        return f"params.level is {got}, not one of {', '.join(LOG_LEVELS)}"
    if "data" not in params:
        return "params.data is missing; it is required (any JSON value)"
    if "logger" in params and not isinstance(params["logger"], str):
        return "params.logger is not a string"
    return None
