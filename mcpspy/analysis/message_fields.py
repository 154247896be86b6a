"""Readers of a message's fields that never fail: a field of the wrong type reads as absent.

A payload is whatever the other side sent, so every reader checks the type it
hands back; the rule families call these instead of indexing payloads.
"""

from __future__ import annotations

import sys
from typing import Any

import orjson

from mcpspy.analysis.jsonrpc import integer_value
from mcpspy.analysis.model import NOTHING_HELD, Held, Kind, Message
from mcpspy.analysis.schema import REVISIONS

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
HANDSHAKE_REVISIONS = frozenset(REVISIONS[:4])  # the revisions of the initialize handshake, before 2026-07-28
NO_FIELDS: dict[str, Any] = {}  # what an absent object reads as; never written to
# Hot (fields_of reads every line): Enum members as module constants (speed policy: analysis/__init__.py).
RESPONSE = Kind.RESPONSE


def fields_of(kind: Kind, payload: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A message's params object and its _meta object (a response's: its result's), each or no fields.

    Read once, as a line is read (``Message.params``, ``Message.meta``): every rule reads them.
    """
    if type(payload) is not dict:  # orjson makes exact dicts
        return NO_FIELDS, NO_FIELDS
    params = payload.get("params", NO_FIELDS)
    if type(params) is not dict:
        params = NO_FIELDS
    holder = payload.get("result") if kind is RESPONSE else params
    meta = holder.get("_meta", NO_FIELDS) if type(holder) is dict else NO_FIELDS
    return params, meta if type(meta) is dict else NO_FIELDS


CONTAINERS = (dict, list)


class LeanMessage(Message):
    """A message whose analysis is done, its parsed payload let go: read again from its line when asked.

    What a retained analysis keeps of a message must not be the payload's dicts and lists: the
    cyclic garbage collector walks every one of them at each full collection, and with 100,000
    messages kept that took more than half of ``Analyzer.feed``'s time (BENCHMARKS.md). Only a
    message whose payload is its line's JSON as it parses (no glued text, not a pretty-printed
    group's first line) becomes one (``let_payload_go``), so reading the line again gives the same
    value. The rules read a Message's slots while they judge it; the views, later, these properties.

    A value read again is not kept (its slot stays None): a view that reads every payload (``stats``,
    the HAR) would grow the analysis back to what it was, and the collector's walks with it (20% more
    CPU for ``stats`` on 100,000 messages than parsing each time). So nothing but the analysis ever
    writes a message, from any thread.
    """

    __slots__ = ()
    # The three slots under names of their own (the fields' names are the properties below): a slot's
    # descriptor read and written as an attribute, as fast as a field (its __set__ called: 3x slower).
    _payload: Any = Message.__dict__["payload"]
    _params: Any = Message.__dict__["params"]
    _meta: Any = Message.__dict__["meta"]

    @property
    def payload(self) -> Any:
        payload = self._payload
        return orjson.loads(self.raw) if payload is None else payload

    @payload.setter
    def payload(self, value: Any) -> None:
        self._payload = value

    @property
    def params(self) -> dict[str, Any]:
        params: dict[str, Any] | None = self._params
        return fields_of(self.kind, self.payload)[0] if params is None else params

    @params.setter
    def params(self, value: dict[str, Any]) -> None:
        self._params = value

    @property
    def meta(self) -> dict[str, Any]:
        meta: dict[str, Any] | None = self._meta
        return fields_of(self.kind, self.payload)[1] if meta is None else meta

    @meta.setter
    def meta(self, value: dict[str, Any]) -> None:
        self._meta = value


def let_payload_go(message: Message) -> None:
    """After its analysis: a message whose payload its line gives again keeps only the line (LeanMessage)."""
    if type(message.payload) in CONTAINERS and message.glued_prefix is None:
        message.__class__ = LeanMessage  # first: a reader in another thread reads the line from now on
        lean: Any = message
        lean._payload = lean._params = lean._meta = None


def declared_version(request: Message) -> str | None:
    """The revision a request's _meta declares (any string), or None."""
    version = request.meta.get(META_VERSION)
    return version if isinstance(version, str) else None


def declares_handshake_revision(request: Message) -> bool:
    """The request's _meta declares a revision before 2026-07-28: it owes none of that revision's rules."""
    return declared_version(request) in HANDSHAKE_REVISIONS


def request_version(request: Message) -> str | None:
    """The 2026-07-28 (or later) revision a request carries in its _meta, with clientCapabilities beside it.

    A request declaring an earlier revision (2025-11-25) is held to that one: None.
    """
    meta = request.meta
    version = meta.get(META_VERSION)
    if type(version) is not str or META_CAPABILITIES not in meta or version in HANDSHAKE_REVISIONS:
        return None
    return sys.intern(version)


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
    """The error code of an error response when it is an integer by value (-32601.0 too), else None."""
    return integer_value(error_of(response).get("code"))


def held_of(request: Message, version: str | None) -> Held:
    """What the rules will read of ``request`` when its reply comes (model.Held).

    ``version``: what ``request_version`` says of it (None for a request of the server's). The
    fields the 2026-07-28 rooms read (capabilities, name, uri, cursor, retry) only for a request
    that carried the revision's _meta: they judge no other.
    """
    params, meta = request.params, request.meta
    requested = params.get("protocolVersion") if request.method == "initialize" else None
    task = "task" in params
    if version is None:
        meta_version = meta.get(META_VERSION)
        meta_version = sys.intern(meta_version) if type(meta_version) is str else meta_version  # one copy
        if requested is None and meta_version is None and not task:
            return NOTHING_HELD
        return Held(requested, meta_version, None, task, None, None, None, False)
    name = params.get("name")
    return Held(
        requested,
        version,  # its _meta's protocolVersion, interned
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
