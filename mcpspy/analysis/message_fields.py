"""Readers of a message's fields that never fail: a field of the wrong type reads as absent.

A payload is whatever the other side sent, so every reader checks the type it
hands back; the rule families call these instead of indexing payloads.
"""

from __future__ import annotations

import sys
from typing import Any

from mcpspy.analysis.model import NOTHING_HELD, Held, Message

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
NO_FIELDS: dict[str, Any] = {}  # what an absent object reads as; never written to


def params_of(message: Message) -> dict[str, Any]:
    """The message's params object, or no fields."""
    payload = message.payload
    params = payload.get("params") if isinstance(payload, dict) else None
    return params if isinstance(params, dict) else NO_FIELDS


def meta_in(params: dict[str, Any]) -> dict[str, Any]:
    """The _meta object of a params object, or no fields."""
    meta = params.get("_meta")
    return meta if isinstance(meta, dict) else NO_FIELDS


def request_version(request: Message) -> str | None:
    """The 2026-07-28 revision a request carries in its _meta, with clientCapabilities beside it."""
    meta = meta_in(params_of(request))
    version = meta.get(META_VERSION)
    return sys.intern(version) if type(version) is str and META_CAPABILITIES in meta else None


def result_of(response: Message) -> Any:
    """The result of a response, as sent (any JSON value), or None."""
    payload = response.payload
    return payload.get("result") if isinstance(payload, dict) else None


def error_of(response: Message) -> dict[str, Any]:
    """The error object of an error response, or no fields."""
    payload = response.payload
    error = payload.get("error") if isinstance(payload, dict) else None
    return error if isinstance(error, dict) else NO_FIELDS


def error_code_of(response: Message) -> int | None:
    """The error code of an error response when it is an integer (a bool is not), else None."""
    code = error_of(response).get("code")
    return code if type(code) is int else None  # exact: orjson gives int, and a bool is no code


def held_of(request: Message, modern: bool) -> Held:
    """What the rules will read of ``request`` when its reply comes (model.Held).

    The fields the 2026-07-28 rooms read (capabilities, name, uri, cursor, retry) only for
    a request that carried the revision's _meta (``modern``): they judge no other.
    """
    params = params_of(request)
    meta = meta_in(params)
    requested = params.get("protocolVersion") if request.method == "initialize" else None
    meta_version = meta.get(META_VERSION)
    meta_version = sys.intern(meta_version) if type(meta_version) is str else meta_version  # one copy
    task = "task" in params
    if not modern:
        if requested is None and meta_version is None and not task:
            return NOTHING_HELD
        return Held(requested, meta_version, None, task, None, None, None, False)
    name = params.get("name")
    return Held(
        requested,
        meta_version,
        meta.get(META_CAPABILITIES),
        task,
        sys.intern(name) if type(name) is str else name,  # tool names repeat: one copy each
        params.get("uri"),
        params.get("cursor"),
        "inputResponses" in params or "requestState" in params,
    )


def result_type_of(result: dict[str, Any]) -> Any:
    """A 2026-07-28 result's resultType; absent (or null) reads as complete."""
    result_type = result.get("resultType")
    return "complete" if result_type is None else result_type
