"""The JSON-RPC envelope (jsonrpc.*): what a parsed value is as a message, and its faults.

``classify_message`` runs on every line that parses, as it is read. One rule
is judged later, when the message reaches the protocol rules: an error with no
id (``Envelope.idless_error``), so that an error pretty-printed over several
lines is judged too. The pre-MCP error code range is a 2026-07-28 rule
(rules/modern.py).
"""

from __future__ import annotations

from typing import Any

from mcpspy.analysis.jsonrpc import ID_TYPES, Parsed, json_text, valid_error_code, valid_id
from mcpspy.analysis.message_fields import error_code_of
from mcpspy.analysis.model import Kind, Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.schema import describe_value

PARSE_ERRORS = frozenset({-32700, -32600})  # the errors that may answer a request whose id was unreadable
# Hot (every line that parses): Enum members as module constants (speed policy: analysis/__init__.py).
REQUEST, NOTIFICATION, RESPONSE = Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE
ERROR_RESPONSE, INVALID = Kind.ERROR_RESPONSE, Kind.INVALID


def classify_message(payload: Any, problems: list[tuple[RuleId, str]] | None = None) -> Parsed:
    """Classify a parsed JSON value and name its envelope faults.

    ``problems`` already found on the line come first (the list is extended, not copied).
    """
    if problems is None:
        problems = []
    if isinstance(payload, list):
        problems.append((RuleId.JSONRPC_BATCH, "a JSON array (a batch)"))
        return Parsed(INVALID, problems, payload)
    if not isinstance(payload, dict):
        problems.append((RuleId.JSONRPC_INVALID, "a JSON value that is not an object"))
        return Parsed(INVALID, problems, payload)
    if payload.get("jsonrpc") != "2.0":
        got = payload.get("jsonrpc", None)
        problems.append((RuleId.JSONRPC_VERSION, f'"jsonrpc" is {json_text(got)}, not "2.0"'))
    has_id = "id" in payload
    msg_id = payload.get("id")
    method = payload.get("method")
    if "method" in payload:
        if not isinstance(method, str):
            problems.append((RuleId.JSONRPC_INVALID, "method is not a string"))
            return Parsed(INVALID, problems, payload, msg_id, has_id)
        if "params" in payload and type(payload["params"]) is not dict:
            got = describe_value(payload["params"])
            problems.append((RuleId.JSONRPC_PARAMS_NOT_OBJECT, f"params is {got}, not an object"))
        if not has_id:
            return Parsed(NOTIFICATION, problems, payload, None, False, method)
        if type(msg_id) not in ID_TYPES:  # valid_id, inline: every request passes here
            _check_request_id(msg_id, problems)
        if method.startswith("notifications/"):
            problems.append(
                (RuleId.JSONRPC_NOTIFICATION_WITH_ID, f"the notification {method} carries an id; none may")
            )
        return Parsed(REQUEST, problems, payload, msg_id, True, method)
    has_result, has_error = "result" in payload, "error" in payload
    if has_result or has_error:
        if has_result and has_error:
            problems.append((RuleId.JSONRPC_RESULT_AND_ERROR, "the response has both result and error"))
        if has_error:
            error = payload["error"]
            if not (
                isinstance(error, dict)
                and valid_error_code(error.get("code"))
                and isinstance(error.get("message"), str)
            ):
                problems.append(
                    (RuleId.JSONRPC_ERROR_SHAPE, "error lacks an integer code or a string message")
                )
            if has_id and msg_id is not None and not valid_id(msg_id):
                problems.append((RuleId.JSONRPC_ID_TYPE, _not_an_id(msg_id)))
            return Parsed(ERROR_RESPONSE, problems, payload, msg_id, has_id)
        if not has_id or msg_id is None:
            problems.append((RuleId.JSONRPC_NULL_ID, "a result with a null or missing id answers nothing"))
        elif type(msg_id) not in ID_TYPES and not valid_id(msg_id):  # inline first: every response
            problems.append((RuleId.JSONRPC_ID_TYPE, _not_an_id(msg_id)))
        if type(payload["result"]) is not dict:
            got = describe_value(payload["result"])
            problems.append((RuleId.JSONRPC_RESULT_NOT_OBJECT, f"the result is {got}, not an object"))
        return Parsed(RESPONSE, problems, payload, msg_id, has_id)
    problems.append((RuleId.JSONRPC_INVALID, "an object with neither a method nor a result or error"))
    return Parsed(INVALID, problems, payload, msg_id, has_id)


def _check_request_id(msg_id: Any, problems: list[tuple[RuleId, str]]) -> None:
    if msg_id is None:
        problems.append((RuleId.JSONRPC_NULL_ID, "a request with id null"))
    elif not valid_id(msg_id):
        problems.append((RuleId.JSONRPC_ID_TYPE, _not_an_id(msg_id)))


def _not_an_id(msg_id: Any) -> str:
    return f"the id {json_text(msg_id)} is not a string or an integer"


class Envelope:
    def __init__(self, out: Reporter) -> None:
        self._out = out

    def idless_error(self, message: Message) -> None:
        """An error with no id is legal only as the answer to a request whose id could not be read."""
        if message.id is not None or message.kind is not ERROR_RESPONSE:
            return
        code = error_code_of(message)
        if code not in PARSE_ERRORS:
            self._out.find(
                RuleId.JSONRPC_NULL_ID,
                message.seq,
                message.stream,
                f"an error ({code}) with no id, though no unreadable request preceded it",
            )
