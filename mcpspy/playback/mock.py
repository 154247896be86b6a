"""The mock server as a sans-IO object: client lines in, timed server lines out.

``MockServer.receive(line, now)`` takes one client line; ``due(now)`` hands
back the lines whose time has come, ``next_due()`` says when the next one
will. The caller owns the clock and the pipes (``mock_command``).

- A request matched to a recorded one (``matching``) gets the recorded reply
  with its id rewritten (``message_bytes``), ``latency`` seconds after it
  arrives, so replies recorded out of order come out of order again; with
  ``Timing.FAST`` every delay is zero and lines keep their recorded order.
- The lines the recorded server wrote after that request (``script``) follow
  it at their recorded delays, the first time it is matched only: a reused
  request gets its reply alone (a ``list_changed`` replayed after every
  ``tools/list`` would make a client that re-lists loop forever).
- A client response to a server request releases what followed it.
- An unmatched request gets a -32601 error, a line that is not JSON -32700,
  one that is not JSON-RPC -32600; under ``strict`` each of these is returned
  as ``Unexpected`` instead, for the caller to stop on. Notifications and
  blank lines get nothing.
- Once input is closed, replies still owed are said at their time; other
  lines still waiting are dropped.
"""

from __future__ import annotations

import enum
import heapq
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import orjson

from mcpspy.capture.records import Stream
from mcpspy.jsonutil.structural import canonical
from mcpspy.playback.matching import ClientLine, Incoming, Matcher, read_client_line
from mcpspy.playback.script import Anchor, Emission, RecordedRequest, Script
from mcpspy.terminal import visible_line

METHOD_NOT_FOUND = -32601
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


class Timing(enum.Enum):
    RECORDED = "recorded"  # keep the recorded delays
    FAST = "fast"  # no delays, recorded order


@dataclass(frozen=True, slots=True)
class Unexpected:
    """A client line the recording has no answer for; ``strict`` stops on it."""

    reason: str  # one line, safe for a terminal


# A scheduled line: due time, arrival number, recorded seq, a tie-breaker, stream, bytes, owed (a reply).
_Slot = tuple[float, int, int, int, Stream, bytes, bool]


def error_reply(message_id: Any, code: int, message: str) -> bytes:
    return (
        orjson.dumps({"jsonrpc": "2.0", "id": message_id, "error": {"code": code, "message": message}})
        + b"\n"
    )


class MockServer:
    def __init__(self, script: Script, timing: Timing = Timing.RECORDED, strict: bool = False) -> None:
        self.timing = timing
        self.strict = strict
        self._start = script.start
        self._matcher: Matcher[RecordedRequest] = Matcher((r.method, r.key, r) for r in script.requests)
        self._responses = {key: deque(anchors) for key, anchors in script.responses.items()}
        self._released: set[int] = set()  # anchors whose followers have been said
        self._queue: list[_Slot] = []  # timed lines (Timing.RECORDED)
        self._ready: list[tuple[Stream, bytes, bool]] = []  # lines due now (Timing.FAST), in order
        self._staged: list[tuple[int, Stream, bytes, bool]] = []  # what the line being read causes
        self._arrivals = 0
        self._scheduled = 0
        self.input_closed = False

    # --- input

    def start(self, now: float) -> None:
        """The mock is up: schedule what the server said before any request."""
        self._follow(self._start, now)
        self._flush_staged()

    def receive(self, line: bytes, now: float) -> Unexpected | None:
        """One client line, without its newline."""
        unexpected = self._receive(line, now)
        self._flush_staged()
        return unexpected

    def _receive(self, line: bytes, now: float) -> Unexpected | None:
        self._arrivals += 1
        read = read_client_line(line)
        if read.kind is Incoming.REQUEST:
            return self._request(read, now)
        if read.kind is Incoming.RESPONSE:
            anchors = self._responses.get(canonical(read.id) or b"")
            if anchors:
                self._follow(anchors.popleft(), now)
            return None
        if read.kind is Incoming.NOT_JSON:
            return self._refuse(None, PARSE_ERROR, "Parse error", "a line that is not JSON", now)
        if read.kind is Incoming.INVALID:
            what = "a JSON value that is not a JSON-RPC message"
            return self._refuse(read.id, INVALID_REQUEST, "Invalid Request", what, now)
        return None  # notifications and blank lines are accepted silently

    def close_input(self) -> None:
        """The client closed stdin: only owed replies are still said."""
        self.input_closed = True
        self._queue = [slot for slot in self._queue if slot[6]]
        heapq.heapify(self._queue)
        self._ready = [line for line in self._ready if line[2]]

    # --- output

    def next_due(self) -> float | None:
        if self._ready:
            return float("-inf")
        return self._queue[0][0] if self._queue else None

    def due(self, now: float) -> list[tuple[Stream, bytes]]:
        out = [(stream, data) for stream, data, _ in self._ready]
        self._ready = []
        queue = self._queue
        while queue and queue[0][0] <= now:
            slot = heapq.heappop(queue)
            out.append((slot[4], slot[5]))
        return out

    @property
    def done(self) -> bool:
        """Input closed and nothing left to say."""
        return self.input_closed and not self._queue and not self._ready

    # --- internals

    def _request(self, read: ClientLine, now: float) -> Unexpected | None:
        method = read.method or ""
        recorded = self._matcher.match(method, read.key)
        if recorded is None:
            if self.strict:
                params = "" if read.params is None else (canonical(read.params) or b"").decode()
                return Unexpected(
                    visible_line(f"no recorded request matches {method} {params[:200]}".strip())
                )
            message = f"mcpspy mock: no recorded {method} request matches this one"
            self._put(now, 0.0, 0, Stream.S2C, error_reply(read.id, METHOD_NOT_FOUND, message), owed=True)
            return None
        reply = recorded.reply
        if reply is not None:
            self._put(now, reply.delay, reply.seq, Stream.S2C, reply.with_id(read.id), owed=True)
        self._follow(recorded, now)
        return None

    def _refuse(self, message_id: Any, code: int, message: str, what: str, now: float) -> Unexpected | None:
        if self.strict:
            return Unexpected(what)
        self._put(now, 0.0, 0, Stream.S2C, error_reply(message_id, code, message), owed=True)
        return None

    def _follow(self, anchor: Anchor, now: float) -> None:
        if anchor.seq in self._released:
            return
        self._released.add(anchor.seq)
        self._emit(anchor.followers, now)

    def _emit(self, emissions: Iterable[Emission], now: float) -> None:
        if self.input_closed:
            return
        for e in emissions:
            self._put(now, e.delay, e.seq, e.stream, e.data, owed=False)

    def _put(self, now: float, delay: float, seq: int, stream: Stream, data: bytes, owed: bool) -> None:
        if self.timing is Timing.FAST:
            self._staged.append((seq, stream, data, owed))
            return
        self._scheduled += 1
        heapq.heappush(
            self._queue, (now + max(delay, 0.0), self._arrivals, seq, self._scheduled, stream, data, owed)
        )

    def _flush_staged(self) -> None:
        """Timing.FAST: what one client line caused is due at once, in recorded order."""
        if self._staged:
            self._staged.sort(key=itemgetter(0))  # stable: a refusal (seq 0) keeps its place
            self._ready.extend((stream, data, owed) for _, stream, data, owed in self._staged)
            self._staged = []
