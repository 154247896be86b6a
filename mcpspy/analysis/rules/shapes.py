"""Result shapes (schema.*): a known method's result, checked against its revision's schema definition.

The revision is the one the exchange is held to (rules/legacy.py's
``EraTracker.revision``); the definitions are handed in by the Analyzer's
caller, and their validator is analysis/schema.py. With none handed in, no
result shape is checked.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from mcpspy.analysis.model import Era, Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.rules.legacy import EraTracker
from mcpspy.analysis.rules.tool_schemas import NOTHING, ToolSchemas
from mcpspy.analysis.schema import Check, Fits, ResultSchemas
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
# 2026-07-28 results: result.missing-result-type and cache.missing-ttl name these when absent, and
# result.type-*, cache.invalid-* when their values are wrong; the shape check takes them as valid.
OWNED_ELSEWHERE = {"resultType": "complete", "ttlMs": 0, "cacheScope": "public"}
MODERN = "2026-07-28"
TASKS_REVISION = "2025-11-25"  # the one revision with task-augmented requests in the core protocol
# Hot (every result): Enum members as module constants (speed policy: analysis/__init__.py).
S2C = Stream.S2C
LEGACY = Era.LEGACY


class Shapes:
    def __init__(
        self, out: Reporter, era: EraTracker, tool_schemas: ToolSchemas, schemas: ResultSchemas | None
    ) -> None:
        self._out = out
        self._era = era
        self._tool_schemas = tool_schemas  # what it named in a tools/list result is not said twice
        self._schemas = schemas
        self._shapes: dict[tuple[str, bool, str], ResultShape] = {}  # by method, answered by client, revision

    def result(self, message: Message) -> None:
        """A result (not an error) that answered a request still held (model.Held).

        The (tool index, field) pairs of a tools/list result that rules/tool_schemas.py
        already named read as a plain object schema here, so the rest is still checked.
        """
        tool_schemas = self._tool_schemas
        named = tool_schemas.named  # this reply's, if any
        if named:
            tool_schemas.named = NOTHING
        exchange, payload = message.exchange, message.payload
        result = payload.get("result") if isinstance(payload, dict) else None  # result_of, inline
        if (
            self._schemas is None
            or exchange is None
            or exchange.held is None
            or exchange.method not in RESULT_DEFS
            or not isinstance(result, dict)
        ):
            return
        if named:
            result = _without_named(result, named)
        era = self._era
        revision = exchange.version if era.era is not LEGACY else era.revision(exchange)  # revision's, inline
        if revision is None or (revision == TASKS_REVISION and exchange.held.task):
            return  # a task-augmented request is answered with a CreateTaskResult instead
        key = (exchange.method, exchange.stream is S2C, revision)
        shape = self._shapes.get(key)
        if shape is None:
            shape = result_shape(self._schemas, *key)
            if shape is None:
                return
            self._shapes[key] = shape  # bounded: known methods and revisions only
        problem = shape.problem(result)
        if problem is not None:
            self._out.find(
                RuleId.SCHEMA_RESULT_SHAPE,
                message.seq,
                message.stream,
                problem,
                related_seq=exchange.request_seq,
            )


def _without_named(result: dict[str, Any], named: Collection[tuple[int, str]]) -> dict[str, Any]:
    """The tools/list result with each named schema replaced by the smallest one that fits."""
    tools = list(result["tools"])  # tool_schemas names fields only of a result whose tools is a list
    for i, field in named:
        tools[i] = {**tools[i], field: {"type": "object"}}
    return {**result, "tools": tools}


@dataclass(frozen=True, slots=True)
class ResultShape:
    """The definition a method's result is held to in one revision, compiled (schema.py)."""

    method: str
    name: str
    revision: str
    check: Check  # why a result does not fit
    fits: Fits  # whether it does, sooner (for 2026-07-28, with OWNED_ELSEWHERE's values in place)

    def problem(self, result: dict[str, Any]) -> str | None:
        """Why ``result`` does not fit, or None; None too for a 2026-07-28 result that is not final."""
        if self.revision == MODERN:
            if result.get("resultType", "complete") != "complete":
                return None  # input_required and extension result types have shapes of their own
            if self.fits(result):
                return None
            result = {**result, **OWNED_ELSEWHERE}
        elif self.fits(result):
            return None
        problem = self.check(result)
        if problem is None:
            return None
        return (
            f"the {self.method} result does not fit {self.name} ({self.revision}): "
            f"{problem.where('result')} {problem.text}"
        )


def result_shape(
    schemas: ResultSchemas, method: str, answered_by_client: bool, revision: str
) -> ResultShape | None:
    """The definition a method's result is held to, compiled; None when mcpspy has none.

    None for unknown methods and revisions, and for a method answered from the wrong side
    (direction rules speak of that).
    """
    name = RESULT_DEFS.get(method)
    if name is None or (method in ANSWERED_BY_CLIENT) != answered_by_client:
        return None
    of_revision = schemas.of(revision)
    if of_revision is None or not of_revision.has(name):
        return None
    fits = of_revision.fits(name, OWNED_ELSEWHERE if revision == MODERN else None)
    return ResultShape(method, name, revision, of_revision.check(name), fits)


def result_problem(
    schemas: ResultSchemas, method: str, request_stream: Stream, revision: str, result: dict[str, Any]
) -> str | None:
    """Why ``result`` does not fit the schema of ``method`` in ``revision``, or None.

    None too when mcpspy has no schema for it: unknown methods and revisions,
    a method answered from the wrong side, a result that is not final.
    """
    shape = result_shape(schemas, method, request_stream is Stream.S2C, revision)
    return None if shape is None else shape.problem(result)
