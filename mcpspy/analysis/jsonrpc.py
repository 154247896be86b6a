"""What one line is, on its own: JSON-RPC kind, id, method, and envelope faults.

Pure and stateless; the analyzer adds what needs history (pairing, era).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import orjson

from mcpspy.analysis.model import Kind

CONTENT_LENGTH = re.compile(rb"^\s*Content-(Length|Type)\s*:", re.IGNORECASE)
PREVIEW = 40
ID_TYPES = (str, int)


@dataclass(slots=True)
class Parsed:
    kind: Kind
    payload: Any = None
    id: Any = None
    has_id: bool = False
    method: str | None = None
    glued_prefix: bytes | None = None
    problems: list[tuple[str, str]] = field(default_factory=list)  # (rule suffix or id, sentence)


def preview(data: bytes | str, limit: int = PREVIEW) -> str:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return repr(text if len(text) <= limit else text[:limit] + "…")


def valid_id(value: Any) -> bool:
    """A string or an integer (not a bool); values come from orjson, so exact types suffice."""
    return type(value) in ID_TYPES


def classify_line(raw: bytes) -> Parsed:
    """Classify a line without its newline. Framing problems use the suffix ("not-json", ...)."""
    problems: list[tuple[str, str]] = []
    body = raw
    if body.endswith(b"\r"):
        body = body[:-1]
        problems.append(("crlf", "the line ends in \\r\\n"))
    if not body or body.isspace():  # not strip(): that copies every line
        problems.append(("blank-line", "an empty line"))
        return Parsed(Kind.NOT_JSON, problems=problems)
    try:
        payload = orjson.loads(body)
    except orjson.JSONDecodeError:
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(("invalid-utf8", f"the line is not valid UTF-8 (byte {exc.start})"))
            return Parsed(Kind.NOT_JSON, problems=problems)
        if CONTENT_LENGTH.match(body):
            problems.append(("content-length", f"a header line {preview(body)}: LSP framing, not MCP"))
            return Parsed(Kind.NOT_JSON, problems=problems)
        glued = _split_glued(body)
        if glued is not None:
            prefix, message = glued
            parsed = classify_message(message)
            parsed.glued_prefix = prefix
            parsed.problems[:0] = problems
            return parsed
        problems.append(("not-json", f"{preview(body)} is not JSON"))
        return Parsed(Kind.NOT_JSON, problems=problems)
    parsed = classify_message(payload)
    if problems:
        parsed.problems[:0] = problems
    return parsed


def _split_glued(body: bytes) -> tuple[bytes, Any] | None:
    """`ready {"jsonrpc":...}`: stray text, then a JSON-RPC message on the same line."""
    start = body.find(b"{")
    while start > 0:
        try:
            message = orjson.loads(body[start:])
        except orjson.JSONDecodeError:
            start = body.find(b"{", start + 1)
            continue
        if isinstance(message, dict) and "jsonrpc" in message:
            return body[:start], message
        return None
    return None


def classify_message(payload: Any) -> Parsed:
    """Classify a parsed JSON value; envelope problems use full rule ids."""
    if isinstance(payload, list):
        return Parsed(Kind.INVALID, payload, problems=[("jsonrpc.batch", "a JSON array (a batch)")])
    if not isinstance(payload, dict):
        problem = ("jsonrpc.invalid", "a JSON value that is not an object")
        return Parsed(Kind.INVALID, payload, problems=[problem])
    problems: list[tuple[str, str]] = []
    if payload.get("jsonrpc") != "2.0":
        got = payload.get("jsonrpc", None)
        problems.append(("jsonrpc.version", f'"jsonrpc" is {orjson.dumps(got).decode()}, not "2.0"'))
    has_id = "id" in payload
    msg_id = payload.get("id")
    method = payload.get("method")
    if "method" in payload:
        if not isinstance(method, str):
            problems.append(("jsonrpc.invalid", "method is not a string"))
            return Parsed(Kind.INVALID, payload, msg_id, has_id, problems=problems)
        if not has_id:
            return Parsed(Kind.NOTIFICATION, payload, None, False, method, problems=problems)
        _check_request_id(msg_id, problems)
        return Parsed(Kind.REQUEST, payload, msg_id, True, method, problems=problems)
    if "result" in payload or "error" in payload:
        if "result" in payload and "error" in payload:
            problems.append(("jsonrpc.result-and-error", "the response has both result and error"))
        if "error" in payload:
            error = payload["error"]
            if not (isinstance(error, dict) and valid_id_code(error.get("code"))
                    and isinstance(error.get("message"), str)):
                problems.append(("jsonrpc.error-shape", "error lacks an integer code or a string message"))
            if has_id and msg_id is not None and not valid_id(msg_id):
                problems.append(("jsonrpc.id-type", f"the id {orjson.dumps(msg_id).decode()} is not a string "
                                 "or an integer"))
            return Parsed(Kind.ERROR_RESPONSE, payload, msg_id, has_id, problems=problems)
        if not has_id or msg_id is None:
            problems.append(("jsonrpc.null-id", "a result with a null or missing id answers nothing"))
        elif not valid_id(msg_id):
            problems.append(("jsonrpc.id-type", f"the id {orjson.dumps(msg_id).decode()} is not a string "
                             "or an integer"))
        return Parsed(Kind.RESPONSE, payload, msg_id, has_id, problems=problems)
    problems.append(("jsonrpc.invalid", "an object with neither a method nor a result or error"))
    return Parsed(Kind.INVALID, payload, msg_id, has_id, problems=problems)


def valid_id_code(code: Any) -> bool:
    return isinstance(code, int) and not isinstance(code, bool)


def _check_request_id(msg_id: Any, problems: list[tuple[str, str]]) -> None:
    if msg_id is None:
        problems.append(("jsonrpc.null-id", "a request with id null"))
    elif not valid_id(msg_id):
        problems.append(("jsonrpc.id-type", f"the id {orjson.dumps(msg_id).decode()} is not a string or an "
                         "integer"))
