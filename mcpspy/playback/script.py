"""A capture turned into what the mock says, in answer to what, and how long after.

Every line the recorded server wrote (stdout and stderr) hangs on an
**anchor**, the client line it answered or followed:

- a reply to a client request hangs on that request, ``latency`` seconds after it;
- any other line (a notification, a request to the client, a log line on
  stderr, a stray ``ready``, a reply to an id nobody sent) hangs on the last
  client request, or client response to a server request, before it, as many
  seconds after it as it came; lines before any such client line hang on the
  start, timed from the server's start.

Client notifications are no anchors: the mock accepts them silently. Pairing
is the replay policy's (``open_capture``), never redone here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.model import Kind, Message
from mcpspy.capture.reader import Capture
from mcpspy.capture.records import Event, LifecycleRecord, LineRecord, Stream
from mcpspy.jsonutil.structural import canonical
from mcpspy.playback.matching import request_key
from mcpspy.playback.message_bytes import IdSplit, split_at_id

RESPONSE_KINDS = (Kind.RESPONSE, Kind.ERROR_RESPONSE)


@dataclass(frozen=True, slots=True)
class Emission:
    """A recorded server line: said ``delay`` seconds after its anchor, exactly as recorded."""

    seq: int  # recorded order: ties in time keep it
    delay: float
    stream: Stream  # S2C (stdout) or ERR (stderr)
    data: bytes  # with its newline, unless it was recorded without one


@dataclass(frozen=True, slots=True)
class Reply:
    """A recorded reply, ready to take the id of whatever request is matched to its own.

    The id is substituted in the recorded bytes (``split``); a line the scanner
    cannot cut is re-encoded with orjson (``reencode``: the stray prefix glued
    before it, then the message); a reply pretty-printed over several lines
    goes out as recorded, its id unchanged.
    """

    seq: int
    delay: float  # the recorded latency
    split: IdSplit | None
    reencode: tuple[bytes, dict[str, Any]] | None
    recorded: bytes  # with its newline, if it had one
    newline: bytes

    def with_id(self, new_id: Any) -> bytes:
        if self.split is not None:
            return self.split.with_id(new_id) + self.newline
        if self.reencode is not None:
            glued, payload = self.reencode
            return glued + orjson.dumps({**payload, "id": new_id}) + self.newline
        return self.recorded


@dataclass(slots=True)
class Anchor:
    """A client line the recorded server reacted to, and what it said after it."""

    seq: int
    t: float
    followers: list[Emission] = field(default_factory=list)


@dataclass(slots=True)
class RecordedRequest(Anchor):
    method: str = ""
    key: bytes | None = None
    reply: Reply | None = None  # None: the recording never answered it


@dataclass(slots=True)
class Script:
    start: Anchor
    requests: list[RecordedRequest]
    #: the client's responses to server requests, by canonical id, each id's in recorded order
    responses: dict[bytes, list[Anchor]]


def build_script(capture: Capture, analyzer: Analyzer) -> Script:
    started = next(
        (r.t for r in capture.records if isinstance(r, LifecycleRecord) and r.event is Event.SERVER_STARTED),
        0.0,
    )
    request_of_reply = {
        x.reply_seq: x.request_seq
        for x in analyzer.exchanges
        if x.stream is Stream.C2S and x.reply_seq is not None
    }
    start = Anchor(0, started)
    anchor: Anchor = start
    requests: dict[int, RecordedRequest] = {}
    responses: dict[bytes, list[Anchor]] = {}
    for record in capture.records:
        if not isinstance(record, LineRecord):
            continue
        message = analyzer.message(record.seq)
        if record.stream is Stream.C2S:
            if message is None:
                continue
            if message.kind is Kind.REQUEST and message.method is not None:
                params = message.payload.get("params") if isinstance(message.payload, dict) else None
                anchor = requests[record.seq] = RecordedRequest(
                    record.seq, record.t, method=message.method, key=request_key(params)
                )
            elif message.kind in RESPONSE_KINDS:
                anchor = Anchor(record.seq, record.t)
                responses.setdefault(canonical(message.id) or b"", []).append(anchor)
            continue
        request_seq = request_of_reply.get(record.seq)
        request = requests.get(request_seq) if request_seq is not None else None
        if request is not None and message is not None:
            request.reply = _reply(record, message, record.t - request.t)
        else:
            anchor.followers.append(Emission(record.seq, record.t - anchor.t, record.stream, record.wire))
    return Script(start, list(requests.values()), responses)


def _reply(record: LineRecord, message: Message, delay: float) -> Reply:
    glued = message.glued_prefix or b""
    split = split_at_id(record.data, message.payload, len(glued))
    reencode = None
    if split is None and isinstance(message.payload, dict) and _parses(record.data[len(glued) :]):
        reencode = (glued, message.payload)
    newline = b"\n" if record.terminated else b""
    return Reply(record.seq, delay, split, reencode, record.wire, newline)


def _parses(data: bytes) -> bool:
    """Whether the line holds the whole message (not the first line of a pretty-printed one)."""
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return True
