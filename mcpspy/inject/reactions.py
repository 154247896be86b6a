"""How the client took each injection, from the wire alone. Pure: records in, reactions out.

The first thing the client does after an injection decides, in this order
of the records:

- ``wrong-reply``: it answered a request of ours (``server.*``) with
  something that is not a JSON-RPC response to it (no result or error, both,
  another id);
- ``answered``: it answered that request properly (then what it did next is
  not asked);
- ``cancelled``: it cancelled the request the fault struck
  (``notifications/cancelled`` naming its id);
- ``retried``: it sent that request again (same method and params) before
  a reply to it had reached it whole;
- ``carried-on``: it sent another request (``next_seq``; the report adds the
  reply it got);
- ``gave-up``: it closed stdin before sending anything more;
- ``quiet``: it sent nothing more before the session ended (its server died,
  or it stopped reading);
- ``restarted``: (the report's, not the wire's) quiet or gave up, then a
  new session of the same command began within ``RESTART_WITHIN`` seconds
  (the sessions directory shows it).

A request of ours the client never answered, while it went on, is ``ignored``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from mcpspy.capture.records import Event, LifecycleRecord, LineRecord, Record, Stream
from mcpspy.inject.record import Injection, injection_of

REACTIONS = (
    "carried-on",
    "cancelled",
    "retried",
    "answered",
    "wrong-reply",
    "ignored",
    "quiet",
    "gave-up",
    "restarted",
)
RESTART_WITHIN = 10.0  # seconds after a session ends in which a new one of its command is a restart
CANCELLED = "notifications/cancelled"


@dataclass(frozen=True, slots=True)
class Reaction:
    injection: Injection
    reaction: str  # one of REACTIONS
    seq: int | None  # the record that decided it (None: the capture ended first)
    after: float | None  # seconds from the injection to that record
    detail: str  # a few words: "tools/call again", "closed stdin"...


def _injected(records: Sequence[Record]) -> list[Injection]:
    return [i for r in records if isinstance(r, LifecycleRecord) and (i := injection_of(r)) is not None]


def injections(records: Sequence[Record]) -> list[Injection]:
    """Every injection (not the answers to our requests, not the SPECs that never struck)."""
    return [i for i in _injected(records) if _is_injection(i)]


def unmatched(records: Sequence[Record]) -> list[Injection]:
    """The SPECs that never struck (recorded at the end of the session)."""
    return [i for i in _injected(records) if not i.matched]


def _is_injection(inj: Injection) -> bool:
    return inj.matched and inj.note != "answered"


def reactions(records: Sequence[Record]) -> list[Reaction]:
    """One reaction per injection, in the order they were made."""
    requests: dict[str, Any] = {}  # the client's requests by id (JSON), as seen so far
    out = []
    index_of = {record.seq: i for i, record in enumerate(records)}
    for i, record in enumerate(records):
        if isinstance(record, LineRecord) and record.stream is Stream.C2S:
            message = _parse(record.data)
            if isinstance(message, dict) and "method" in message and "id" in message:
                requests[_key(message["id"])] = message
        elif isinstance(record, LifecycleRecord):
            inj = injection_of(record)
            if inj is not None and _is_injection(inj):
                struck = requests.get(inj.id) if inj.id is not None else None
                out.append(_react(records, index_of.get(record.seq, i) + 1, inj, struck))
    return out


def _react(records: Sequence[Record], start: int, inj: Injection, struck: Any) -> Reaction:
    asked = _our_request_id(inj)
    skip = set(inj.seqs) if inj.stream == "c2s" else set()  # a c2s fault's own lines are not the client's
    replied = False  # a reply to the struck request reached the client whole
    for record in records[start:]:
        after = record.t - inj.t
        if isinstance(record, LifecycleRecord):
            other = injection_of(record)
            if (
                other is not None
                and asked is not None
                and other.note == "answered"
                and other.spec == inj.spec
            ):
                if other.id == asked and _is_response(other.before, asked):
                    return Reaction(inj, "answered", record.seq, after, "answered our request")
                return Reaction(
                    inj, "wrong-reply", record.seq, after, "a reply that is not a JSON-RPC response"
                )
            if record.event is Event.STDIN_CLOSED:
                return _end(inj, asked, "gave-up", record.seq, after, "closed stdin")
            continue
        if record.stream is Stream.S2C and inj.id is not None and not replied:
            reply = _parse(record.data)
            replied = isinstance(reply, dict) and "method" not in reply and _key(reply.get("id")) == inj.id
        if record.stream is not Stream.C2S or record.seq in skip:
            continue
        message = _parse(record.data)
        if not isinstance(message, dict):
            continue
        method = message.get("method")
        if method == CANCELLED and inj.id is not None:
            params = message.get("params")
            if isinstance(params, dict) and _key(params.get("requestId")) == inj.id:
                return Reaction(inj, "cancelled", record.seq, after, "cancelled the request")
            continue
        if isinstance(method, str) and "id" in message:
            if inj.stream == "c2s" and _key(message["id"]) == inj.id:
                continue  # the request it struck (a crash strikes before it is recorded), not a new one
            if not replied and isinstance(struck, dict) and _same_request(message, struck):
                return Reaction(inj, "retried", record.seq, after, f"{method} again")
            if asked is not None:
                return Reaction(inj, "ignored", record.seq, after, f"went on ({method}) without answering")
            return Reaction(inj, "carried-on", record.seq, after, method)
    return _end(inj, asked, "quiet", None, None, "sent nothing more")


def _end(
    inj: Injection, asked: str | None, reaction: str, seq: int | None, after: float | None, detail: str
) -> Reaction:
    return Reaction(inj, reaction, seq, after, detail + (", never answered our request" if asked else ""))


def _our_request_id(inj: Injection) -> str | None:
    """The id (JSON) of the request an injection sent the client (``server.*``), if it sent one."""
    if not inj.fault.startswith("server.") or inj.fault == "server.notification-flood":
        return None
    message = _parse(inj.after.split(b"\n", 1)[0])
    return _key(message["id"]) if isinstance(message, dict) and "id" in message else None


def _is_response(line: bytes, asked: str) -> bool:
    message = _parse(line.rstrip(b"\n"))
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return False
    if _key(message.get("id")) != asked:
        return False
    return ("result" in message) != ("error" in message)


def _same_request(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.get("method") == b.get("method") and _strip_meta(a.get("params")) == _strip_meta(b.get("params"))


def _strip_meta(params: Any) -> Any:
    if isinstance(params, dict):
        return {k: v for k, v in params.items() if k != "_meta"}
    return params


def _parse(data: bytes) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return None


def _key(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return "null"
