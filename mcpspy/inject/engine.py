"""The injector: fed what each pump reads, it says what to write, and when. Pure, sans-IO.

    steps = injector.feed(Stream.S2C, chunk, now)   # Write / Pause / Mark / Close / Kill
    steps = injector.due(Stream.S2C, now)           # once now >= injector.deadline(Stream.S2C)

No clock (``now`` comes in), no I/O, no threads: the proxy's injecting pump
(``proxy/inject_pump.py``) feeds it under one lock and carries the steps out.

A side (a direction) is *passthrough* while no fault can strike on it: its
chunks are forwarded as read, exactly as without ``--inject``, and only
observed afterwards (the client's requests, to know what a reply answers).
Otherwise it works a line at a time: each complete line is looked at, and the
untouched ones of one chunk go out in one write; a partial line waits for its
end (one longer than ``HOLD_LIMIT`` goes on as it comes, untouched). Between
the two, a server's chunk that no live SPEC can strike at (``quick``: every
SPEC waits for a reply to a method no pending request has, or for a later
match than this chunk can hold) is forwarded as read, and fed afterwards
(``forwarded=True``) only to be counted and paired: a SPEC waiting for its
moment costs the untouched traffic no latency. A line whose first bytes went
out that way is never struck (it cannot be: the budget counted it).

A ``Mark`` comes right before the bytes it describes are written: the
recorder ties it to the next line of its stream (``capture.recorder``).
"""

from __future__ import annotations

import random
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import orjson

from mcpspy.capture.records import Stream
from mcpspy.inject.catalogue import Action
from mcpspy.inject.spec import Spec
from mcpspy.inject.transforms import TRANSFORMS, server_request

HOLD_LIMIT = 1 << 20  # a partial line longer than this is not held for its end: it goes on untouched
MAX_TRACKED = 10_000  # requests remembered for pairing replies (the oldest forgotten first)
CANCELLED = "notifications/cancelled"
C2S, S2C, ERR = Stream.C2S, Stream.S2C, Stream.ERR


@dataclass(frozen=True, slots=True)
class Write:
    to: Stream  # S2C: the client's stdout; C2S: the server's stdin; ERR: our stderr
    data: bytes


@dataclass(frozen=True, slots=True)
class Pause:
    seconds: float


@dataclass(frozen=True, slots=True)
class Mark:
    """An injection, recorded just before the bytes it wrote (``lines`` of them on ``stream``)."""

    spec: Spec
    stream: Stream
    before: bytes
    after: bytes
    lines: int  # the line records ``after`` makes (0: nothing was written)
    id: str | None = None  # the JSON-RPC id (as JSON) of the exchange it struck
    note: str = ""  # e.g. "cancelled", "timed out", "answered"
    skip: int = 0  # lines written before the ones it describes (a duplicate: the original)


@dataclass(frozen=True, slots=True)
class Close:
    """Close the client's stdout (a cut line): nothing more reaches it."""


@dataclass(frozen=True, slots=True)
class Kill:
    """Kill the server (SIGKILL to its group)."""


Step = Write | Pause | Mark | Close | Kill


def line_count(data: bytes) -> int:
    """The line records ``data`` makes, its unterminated end included."""
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


@dataclass(slots=True)
class _SpecState:
    spec: Spec
    rng: random.Random
    matches: int = 0
    fired: int = 0

    @property
    def live(self) -> bool:
        return self.spec.nth is None or self.matches < self.spec.nth

    def strikes(self) -> bool:
        """Count a match; whether the fault strikes at it."""
        self.matches += 1
        spec = self.spec
        if spec.every:
            hit = True
        elif spec.probability is not None:
            hit = self.rng.random() < spec.probability
        else:
            hit = self.matches == spec.nth
        return hit


@dataclass(slots=True)
class _Held:
    """A line held back by a REORDER, COALESCE or AFTER_CANCEL fault."""

    state: _SpecState
    line: bytes
    message: Any
    id: str | None
    until: float
    joined: list[bytes] = field(default_factory=list)  # COALESCE: the lines gathered behind it
    note: str = ""


@dataclass(slots=True)
class _Side:
    stream: Stream  # the stream this side reads (C2S: the client's stdin)
    to: Stream  # where its writes go
    specs: list[_SpecState]
    buffer: bytearray = field(default_factory=bytearray)
    streaming: bool = False  # a line over HOLD_LIMIT is going on as it comes, until its end
    held: _Held | None = None
    out: list[Step] = field(default_factory=list)
    pending: bytearray = field(default_factory=bytearray)  # untouched bytes not yet in a Write
    cut: bool = False  # the client's stdout was closed: nothing more goes out
    sent: int = 0  # the first bytes of ``buffer`` already forwarded (a ``quick`` chunk's partial line)


class Injector:
    """One session's faults; ``feed`` each side's chunks (b"" at its end), carry out the steps."""

    def __init__(self, specs: list[Spec], seed: int = 0) -> None:
        states = [_SpecState(spec, random.Random(f"{seed}:{i}:{spec.text}")) for i, spec in enumerate(specs)]
        self.states = states
        self._sides = {
            S2C: _Side(S2C, S2C, [s for s in states if s.spec.fault.direction == "s2c" and _on_lines(s)]),
            C2S: _Side(C2S, C2S, [s for s in states if s.spec.fault.direction == "c2s"]),
        }
        self._kills = [s for s in states if s.spec.fault.action is Action.KILL]
        self._requests: OrderedDict[str, tuple[str, Any]] = OrderedDict()  # id (JSON) -> method, request
        self._asked: dict[str, _SpecState] = {}  # our own requests to the client, by id (JSON)
        self._asked_count = 0
        self._observe = bytearray()  # a passthrough c2s side's partial line, for observing
        self._observe_skip = False  # that partial line is over HOLD_LIMIT: not observed
        # Pending requests by method, for the methods the server's side SPECs name (``quick``). Only
        # those are tracked when every such SPEC names one: no other reply can be struck or counted.
        s2c = [s.spec for s in self._sides[S2C].specs]
        self._named = {spec.method: 0 for spec in s2c if spec.method is not None}
        self._track_all = any(spec.method is None or spec.has_id for spec in s2c)
        self._named_json = tuple(orjson.dumps(method) for method in self._named)  # as a request spells it

    # --- what the pump asks

    def passthrough(self, stream: Stream) -> bool:
        """No fault can strike on this side now: forward chunks as read (then ``observe`` c2s)."""
        side = self._sides[stream]
        if side.held is not None or side.buffer or side.streaming or side.cut:
            return False
        if stream is C2S and self._asked:
            return False
        return not any(s.live for s in side.specs)

    @property
    def observing(self) -> bool:
        """Whether a passthrough c2s chunk must be observed: a reply may still be struck (its request
        is what it is matched by), a crash may strike at a request, a held reply waits for a cancel."""
        s2c = self._sides[S2C]
        return s2c.held is not None or any(s.live for s in s2c.specs) or any(s.live for s in self._kills)

    def observe(self, data: bytes) -> list[Step]:
        """A c2s chunk about to be forwarded as read: learn its requests. A crash that strikes at one
        comes back as steps, to be carried out before the chunk is forwarded."""
        if self._nothing_to_learn(data):
            return []
        buf = self._observe
        start = 0
        steps: list[Step] = []
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                break
            if buf:
                line = bytes(buf) + data[start:end]
                buf.clear()
            else:
                line = data[start:end]
            if self._observe_skip:
                self._observe_skip = False
            else:
                steps += self._client_line(line)
            start = end + 1
        if start < len(data):
            buf += data[start:]
            if len(buf) > HOLD_LIMIT:
                buf.clear()
                self._observe_skip = True
        return steps

    def _nothing_to_learn(self, data: bytes) -> bool:
        """Whether whole client lines can hold no request a SPEC waits for (only those are tracked):
        none names such a method, spelled as JSON does it unescaped, and no escape could spell one.
        Then they are forwarded unparsed (a crash or a held reply still has every line looked at)."""
        if self._track_all or self._observe or not data.endswith(b"\n") or b"\\" in data:
            return False
        if self._sides[S2C].held is not None or any(s.live for s in self._kills):
            return False
        return not any(name in data for name in self._named_json)

    def quick(self, stream: Stream, data: bytes) -> bool:
        """Whether this server chunk can go on as read, before ``feed(..., forwarded=True)``: nothing is
        held, and no live SPEC can strike at any line it ends or begins."""
        side = self._sides[stream]
        if stream is not S2C or not data or side.held is not None or side.cut:
            return False
        if len(side.buffer) != side.sent:  # a partial line waits, unsent: these bytes go after it
            return False
        lines = data.count(b"\n") + 1  # every line it ends, and one it may begin
        return all(self._budget(state) >= lines for state in side.specs if state.live)

    def _budget(self, state: _SpecState) -> float:
        """How many more replies this SPEC can count without striking at one."""
        spec = state.spec
        if spec.method is not None and not spec.has_id and not self._named[spec.method]:
            return float("inf")  # it waits for a reply to a request nobody has made yet
        if spec.nth is None:
            return 0  # every match, or a draw at each: any reply may be struck
        return spec.nth - state.matches - 1

    def feed(self, stream: Stream, data: bytes, now: float, forwarded: bool = False) -> list[Step]:
        """A chunk read on ``stream`` (not passthrough); b"" at its end: what is held goes out.

        ``forwarded``: the chunk went on as read (``quick`` said it could): it is only counted and
        paired here, and nothing comes back to write.
        """
        side = self._sides[stream]
        if side.cut:
            return []
        if stream is C2S:
            self._observe.clear()  # a line begun while passthrough ends here, unobserved
        if not data:
            if side.held is not None:
                self._release(side, now, timed_out=True)
            if side.buffer:
                side.pending += side.buffer[side.sent :]
                side.buffer.clear()
                side.sent = 0
            return self._take(side)
        if forwarded:
            if self._track_all or any(self._named.values()):
                self._feed(side, data, now)
            else:  # no request a SPEC waits for is pending: no line here can count, only the last goes on
                self._skim(side, data)
            side.sent = 0 if side.streaming else len(side.buffer)
            assert not side.out, side.out  # quick: no SPEC could strike
            side.pending.clear()
            return []
        self._feed(side, data, now)
        return self._take(side)

    def _skim(self, side: _Side, data: bytes) -> None:
        """``_feed`` for a chunk no line of which can be counted or struck (no request a SPEC waits
        for is pending, and only those are tracked): the line it leaves open goes on untouched too."""
        side.buffer.clear()
        side.streaming = not data.endswith(b"\n")

    def _feed(self, side: _Side, data: bytes, now: float) -> None:
        if side.streaming:
            end = data.find(b"\n")
            if end < 0:
                side.pending += data
                return
            side.pending += data[: end + 1]
            side.streaming = False
            data = data[end + 1 :]
        buffer = side.buffer
        buffer += data
        start = 0
        while not side.cut:
            end = buffer.find(b"\n", start)
            if end < 0:
                break
            line = bytes(buffer[start:end])
            if side.sent:  # its first bytes went on as read: only the rest is to write, untouched
                self._line(side, line, now, sent=side.sent)
                side.sent = 0
            else:
                self._line(side, line, now)
            start = end + 1
        if side.cut:
            buffer.clear()
            side.sent = 0
            return
        del buffer[:start]
        if len(buffer) > HOLD_LIMIT:
            side.pending += buffer[side.sent :]
            buffer.clear()
            side.sent = 0
            side.streaming = True

    def deadline(self, stream: Stream) -> float | None:
        """When ``due`` has something to release on this side (None: nothing held)."""
        held = self._sides[stream].held
        return None if held is None else held.until

    def due(self, stream: Stream, now: float) -> list[Step]:
        side = self._sides[stream]
        if side.held is not None and now >= side.held.until:
            self._release(side, now, timed_out=not side.held.note)
        return self._take(side)

    def unmatched(self) -> list[Spec]:
        """The SPECs that never struck (said at exit, and recorded)."""
        return [s.spec for s in self.states if s.fired == 0]

    # --- lines

    def _take(self, side: _Side) -> list[Step]:
        self._flush(side)
        out, side.out = side.out, []
        return out

    def _flush(self, side: _Side) -> None:
        if side.pending:
            side.out.append(Write(side.to, bytes(side.pending)))
            side.pending.clear()

    def _line(self, side: _Side, line: bytes, now: float, sent: int = 0) -> None:
        """One complete line: passed on, or struck. ``sent``: its first bytes went on already, as read."""
        message = _parse(line)
        if side.stream is C2S:
            swallowed = self._client_answer(side, line, message)
            if swallowed:
                return
            crash = self._client_line(line, message)
            if crash:  # the server dies as the request reaches it
                self._flush(side)
                side.out += crash
            request = message
            state = self._match(side, message, message)
        else:
            request = self._answered(message)
            state = None if request is _NOT_A_REPLY else self._match(side, message, request)
        if sent:  # counted and paired, never struck: a reply begun before its request was made
            if state is not None:
                state.fired -= 1
            side.pending += (line + b"\n")[sent:]
            return
        held = side.held
        if held is not None and self._hold_takes(side, held, line, message, request is not _NOT_A_REPLY, now):
            return
        if state is None:
            side.pending += line + b"\n"
            return
        self._strike(side, state, line, message, None if request is _NOT_A_REPLY else request, now)

    def _hold_takes(
        self, side: _Side, held: _Held, line: bytes, message: Any, is_reply: bool, now: float
    ) -> bool:
        """A line while another is held: whether the hold took it (else it goes on as usual)."""
        action = held.state.spec.fault.action
        if action is Action.COALESCE:
            held.joined.append(line)
            if len(held.joined) + 1 >= held.state.spec.number("count"):
                self._release(side, now, timed_out=False)
            return True
        if action is Action.REORDER and is_reply:
            self._flush(side)
            both = held.line + b"\n" + line + b"\n"
            swapped = line + b"\n" + held.line + b"\n"
            side.out.append(Mark(held.state.spec, side.stream, both, swapped, 2, held.id))
            side.out.append(Write(side.to, swapped))
            side.held = None
            return True
        return False

    def _match(self, side: _Side, message: Any, request: Any) -> _SpecState | None:
        """The first live SPEC of this side that strikes at this message.

        Every live SPEC that targets the message counts it (so ``#N`` means the Nth such
        message whatever the other SPECs do); only the first that strikes is applied.
        """
        if not side.specs or not isinstance(message, dict) or "id" not in message:
            return None
        if side.stream is C2S and "method" not in message:
            return None
        asked = request.get("method") if isinstance(request, dict) else None
        method, key = (asked if isinstance(asked, str) else None), _id_key(message["id"])
        hit = None
        for state in side.specs:
            if state.live and _targets(state.spec, method, key) and state.strikes() and hit is None:
                hit = state
        if hit is not None:
            hit.fired += 1
        return hit

    def _strike(
        self, side: _Side, state: _SpecState, line: bytes, message: Any, request: Any, now: float
    ) -> None:
        spec = state.spec
        fault = spec.fault
        action = fault.action
        key = _id_key(message.get("id")) if isinstance(message, dict) else None
        self._flush(side)
        out = side.out
        if action is Action.INSERT:
            if fault.make.startswith("request:"):
                self._asked_count += 1
                asked_id = f"mcpspy-{self._asked_count}"
                inserted = server_request(fault.make.removeprefix("request:"), asked_id)
                self._asked[_id_key(asked_id)] = state
            else:
                inserted = TRANSFORMS[fault.make](line, spec, message, request)
            out.append(Mark(spec, side.stream, b"", inserted, line_count(inserted), key))
            side.pending += inserted + line + b"\n"
        elif action is Action.REPLACE and fault.make == "duplicate":  # the copy is what it wrote
            out.append(Mark(spec, side.stream, b"", line + b"\n", 1, key, skip=1))
            side.pending += line + b"\n" + line + b"\n"
        elif action is Action.REPLACE:
            after = TRANSFORMS[fault.make](line, spec, message, request)
            out.append(Mark(spec, side.stream, line + b"\n", after, line_count(after), key))
            side.pending += after
        elif action is Action.SPLIT or action is Action.DRIP:
            whole = line + b"\n"
            if action is Action.SPLIT:
                pieces = _split(whole, spec.number("writes"))
            else:
                pieces = [whole[i : i + 1] for i in range(len(whole))]
            gap = spec.number("gap") / 1000
            out.append(Mark(spec, side.stream, whole, whole, 1, key, f"{len(pieces)} writes"))
            for i, piece in enumerate(pieces):
                if i:
                    out.append(Pause(gap))
                out.append(Write(side.to, piece))
        elif action is Action.DELAY:
            out.append(Mark(spec, side.stream, line + b"\n", line + b"\n", 1, key, f"{spec.number('ms')}ms"))
            out.append(Pause(spec.number("ms") / 1000))
            side.pending += line + b"\n"
        elif action in (Action.REORDER, Action.COALESCE, Action.AFTER_CANCEL):
            if side.held is not None:
                self._release(side, now, timed_out=False)
            side.held = _Held(state, line, message, key, now + spec.number("wait") / 1000)
        elif action is Action.CUT:
            half = line[: max(1, len(line) // 2)]
            out.append(Mark(spec, side.stream, line + b"\n", half, 1, key))
            out.append(Write(side.to, half))
            out.append(Close())
            side.cut = True
        elif action is Action.STDERR:
            flood = _stderr_flood(spec.number("size"))
            out.append(Mark(spec, ERR, b"", flood, line_count(flood), key))
            out.append(Write(ERR, flood))
            side.pending += line + b"\n"
        else:  # pragma: no cover - KILL strikes at requests (``_client_line``), never at lines
            side.pending += line + b"\n"

    def _release(self, side: _Side, now: float, timed_out: bool) -> None:
        held = side.held
        assert held is not None
        side.held = None
        self._flush(side)
        whole = b"".join(part + b"\n" for part in (held.line, *held.joined))
        note = "timed out" if timed_out else held.note
        side.out.append(Mark(held.state.spec, side.stream, whole, whole, 1 + len(held.joined), held.id, note))
        side.out.append(Write(side.to, whole))

    # --- what the client sends

    def _client_line(self, line: bytes, message: Any = None) -> list[Step]:
        """Learn a client line: its request (and a crash that strikes at it), its cancel."""
        if message is None:
            message = _parse(line)
        if not isinstance(message, dict):
            return []
        method = message.get("method")
        if not isinstance(method, str):
            return []
        if "id" in message:
            key = _id_key(message["id"])
            if self._sides[S2C].specs and (self._track_all or method in self._named):
                requests = self._requests
                if (earlier := requests.get(key)) is not None:  # an id used again: the last one counts
                    self._untrack(earlier[0])
                requests[key] = (method, message)
                if method in self._named:
                    self._named[method] += 1
                if len(requests) > MAX_TRACKED:
                    self._untrack(requests.popitem(last=False)[1][0])
            for state in self._kills:
                if state.live and _targets(state.spec, method, key) and state.strikes():
                    state.fired += 1
                    return [Mark(state.spec, C2S, b"", b"", 0, key), Kill()]
            return []
        if method == CANCELLED:
            params = message.get("params")
            cancelled = _id_key(params.get("requestId")) if isinstance(params, dict) else None
            held = self._sides[S2C].held
            if (
                held is not None
                and held.id == cancelled
                and held.state.spec.fault.action is Action.AFTER_CANCEL
            ):
                held.until = 0.0  # due at once: the s2c pump looks within its poll interval
                held.note = "cancelled"
        return []

    def _client_answer(self, side: _Side, line: bytes, message: Any) -> bool:
        """The client's reply to a request of ours: kept from the server, recorded. True if it was one."""
        if not self._asked or not isinstance(message, dict) or "method" in message:
            return False
        key = _id_key(message.get("id"))
        state = self._asked.pop(key, None)
        if state is None:
            return False
        self._flush(side)
        side.out.append(Mark(state.spec, C2S, line + b"\n", b"", 0, key, "answered"))
        return True

    def _answered(self, message: Any) -> Any:
        """The client request a server line replies to (None if unknown), or _NOT_A_REPLY."""
        if not isinstance(message, dict) or "method" in message or "id" not in message:
            return _NOT_A_REPLY
        asked = self._requests.pop(_id_key(message["id"]), None)
        if asked is None:
            return None
        self._untrack(asked[0])
        return asked[1]

    def _untrack(self, method: str) -> None:
        """A request no longer pending (answered, or forgotten): one fewer for its method."""
        if method in self._named:
            self._named[method] -= 1


_NOT_A_REPLY: Any = object()


def _targets(spec: Spec, method: str | None, key: str) -> bool:
    """Whether the SPEC's ``@METHOD`` or ``@id=N`` (if any) names this exchange."""
    if spec.has_id and orjson.dumps(spec.id).decode() != key:
        return False
    return spec.method is None or spec.method == method


def _on_lines(state: _SpecState) -> bool:
    return state.spec.fault.action is not Action.KILL


def _parse(line: bytes) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


def _id_key(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return "null"


def _split(data: bytes, writes: int) -> list[bytes]:
    writes = max(1, min(writes, len(data)))
    size, extra = divmod(len(data), writes)
    pieces, start = [], 0
    for i in range(writes):
        end = start + size + (1 if i < extra else 0)
        pieces.append(data[start:end])
        start = end
    return pieces


def _stderr_flood(size: int) -> bytes:
    line = b"mcpspy: a stderr flood, as a server logging too much writes it " + b"." * 36 + b"\n"
    count, rest = divmod(size, len(line))
    return line * count + (line[: rest - 1] + b"\n" if rest > 1 else b"")
