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
# Enum members as module constants: on Python 3.11 ``Kind.REQUEST`` runs Python code per access.
REQUEST, NOTIFICATION, RESPONSE, ERROR_RESPONSE = (
    Kind.REQUEST,
    Kind.NOTIFICATION,
    Kind.RESPONSE,
    Kind.ERROR_RESPONSE,
)
INVALID, NOT_JSON = Kind.INVALID, Kind.NOT_JSON


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
        return Parsed(NOT_JSON, problems=problems)
    try:
        payload = orjson.loads(body)
    except orjson.JSONDecodeError:
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(("invalid-utf8", f"the line is not valid UTF-8 (byte {exc.start})"))
            return Parsed(NOT_JSON, problems=problems)
        if CONTENT_LENGTH.match(body):
            problems.append(("content-length", f"a header line {preview(body)}: LSP framing, not MCP"))
            return Parsed(NOT_JSON, problems=problems)
        glued = _split_glued(body)
        if glued is not None:
            prefix, message = glued
            parsed = classify_message(message, problems)
            parsed.glued_prefix = prefix
            return parsed
        problems.append(("not-json", f"{preview(body)} is not JSON"))
        return Parsed(NOT_JSON, problems=problems)
    return classify_message(payload, problems)


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


def classify_message(payload: Any, problems: list[tuple[str, str]] | None = None) -> Parsed:
    """Classify a parsed JSON value; envelope problems use full rule ids.

    ``problems`` already found on the line come first (the list is extended, not copied).
    """
    if problems is None:
        problems = []
    if isinstance(payload, list):
        problems.append(("jsonrpc.batch", "a JSON array (a batch)"))
        return Parsed(INVALID, payload, problems=problems)
    if not isinstance(payload, dict):
        problems.append(("jsonrpc.invalid", "a JSON value that is not an object"))
        return Parsed(INVALID, payload, problems=problems)
    if payload.get("jsonrpc") != "2.0":
        got = payload.get("jsonrpc", None)
        problems.append(("jsonrpc.version", f'"jsonrpc" is {orjson.dumps(got).decode()}, not "2.0"'))
    has_id = "id" in payload
    msg_id = payload.get("id")
    method = payload.get("method")
    if "method" in payload:
        if not isinstance(method, str):
            problems.append(("jsonrpc.invalid", "method is not a string"))
            return Parsed(INVALID, payload, msg_id, has_id, problems=problems)
        if not has_id:
            return Parsed(NOTIFICATION, payload, None, False, method, problems=problems)
        if type(msg_id) not in ID_TYPES:  # valid_id, inline: every request passes here
            _check_request_id(msg_id, problems)
        return Parsed(REQUEST, payload, msg_id, True, method, problems=problems)
    has_result, has_error = "result" in payload, "error" in payload
    if has_result or has_error:
        if has_result and has_error:
            problems.append(("jsonrpc.result-and-error", "the response has both result and error"))
        if has_error:
            error = payload["error"]
            if not (
                isinstance(error, dict)
                and valid_id_code(error.get("code"))
                and isinstance(error.get("message"), str)
            ):
                problems.append(("jsonrpc.error-shape", "error lacks an integer code or a string message"))
            if has_id and msg_id is not None and not valid_id(msg_id):
                problems.append(
                    (
                        "jsonrpc.id-type",
                        f"the id {orjson.dumps(msg_id).decode()} is not a string or an integer",
                    )
                )
            return Parsed(ERROR_RESPONSE, payload, msg_id, has_id, problems=problems)
        if not has_id or msg_id is None:
            problems.append(("jsonrpc.null-id", "a result with a null or missing id answers nothing"))
        elif type(msg_id) not in ID_TYPES:  # valid_id, inline: every response passes here
            problems.append(
                ("jsonrpc.id-type", f"the id {orjson.dumps(msg_id).decode()} is not a string or an integer")
            )
        return Parsed(RESPONSE, payload, msg_id, has_id, problems=problems)
    problems.append(("jsonrpc.invalid", "an object with neither a method nor a result or error"))
    return Parsed(INVALID, payload, msg_id, has_id, problems=problems)


def valid_id_code(code: Any) -> bool:
    return isinstance(code, int) and not isinstance(code, bool)


def _check_request_id(msg_id: Any, problems: list[tuple[str, str]]) -> None:
    if msg_id is None:
        problems.append(("jsonrpc.null-id", "a request with id null"))
    elif not valid_id(msg_id):
        problems.append(
            ("jsonrpc.id-type", f"the id {orjson.dumps(msg_id).decode()} is not a string or an integer")
        )
