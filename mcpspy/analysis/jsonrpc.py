"""Classify one line: what kind of JSON-RPC message it is, and its envelope faults."""

from __future__ import annotations

from typing import Any

import orjson

from mcpspy.analysis.model import Kind

Problem = tuple[str, str]  # (rule id without stream prefix where it applies, sentence)


def parse(data: bytes) -> tuple[bool, Any]:
    try:
        return True, orjson.loads(data)
    except orjson.JSONDecodeError:
        return False, None


def classify(payload: Any) -> tuple[Kind, Any, str | None, list[Problem]]:
    """Kind, id, method and envelope problems of one parsed JSON value."""
    problems: list[Problem] = []
    if isinstance(payload, list):
        return Kind.INVALID, None, None, [("jsonrpc.batch", "a JSON array (batch) of messages")]
    if not isinstance(payload, dict):
        return Kind.INVALID, None, None, [("jsonrpc.not-object", "JSON, but not an object")]
    if payload.get("jsonrpc") != "2.0":
        problems.append(("jsonrpc.version", f'"jsonrpc" is {payload.get("jsonrpc")!r}, not "2.0"'))
    method = payload.get("method")
    has_id = "id" in payload
    msg_id = payload.get("id")
    if isinstance(method, str):
        if not has_id:
            return Kind.NOTIFICATION, None, method, problems
        problems.extend(_id_problems(msg_id, "request"))
        return Kind.REQUEST, msg_id, method, problems
    has_result, has_error = "result" in payload, "error" in payload
    if has_result == has_error:
        if not has_result and not has_id:
            return Kind.INVALID, None, None, [*problems, ("jsonrpc.not-object", "not a JSON-RPC message")]
        problems.append(("jsonrpc.result-and-error", "a response needs exactly one of result and error"))
    if has_error and not has_result:
        error = payload["error"]
        code = error.get("code") if isinstance(error, dict) else None
        if not (isinstance(code, int) and not isinstance(code, bool)
                and isinstance(error.get("message"), str)):
            problems.append(("jsonrpc.error-shape", "error needs an integer code and a string message"))
        elif -32019 <= code <= -32000:
            problems.append(("jsonrpc.deprecated-error-code", f"error code {code} is in -32000..-32019"))
        if msg_id is None and code not in (-32700, -32600):
            problems.append(("jsonrpc.null-id", f"error {code} with no id, though the request was readable"))
        elif msg_id is not None:
            problems.extend(_id_problems(msg_id, "response"))
        return Kind.ERROR_RESPONSE, msg_id, None, problems
    problems.extend(_id_problems(msg_id, "result"))
    return Kind.RESPONSE, msg_id, None, problems


def _id_problems(msg_id: Any, what: str) -> list[Problem]:
    if msg_id is None:
        return [("jsonrpc.null-id", f"a {what} with id null")]
    if isinstance(msg_id, bool) or not isinstance(msg_id, (int, str)):
        return [("jsonrpc.id-type", f"a {what} id {msg_id!r} is neither a string nor an integer")]
    return []


def id_key(msg_id: Any) -> tuple[str, Any]:
    """Ids compare by type too: 1 is not "1"."""
    try:
        hash(msg_id)
        return (type(msg_id).__name__, msg_id)
    except TypeError:
        return (type(msg_id).__name__, repr(msg_id))
