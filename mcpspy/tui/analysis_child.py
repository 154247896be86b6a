"""A finished capture analysed in a child process, while the app's own process lists and draws it.

One Python process runs one thread at a time: with the analysis on the app's
worker thread, Textual's start and drawing and the analysis took turns, and a
100,000-message capture took the sum of both to be analysed. The child is
forked (it has every module the analysis needs already) and forks a reader of
its own, which reads the same file's records and hands them over, plain,
through a pipe; the child analyses them as the worker would (the one replay
policy) and writes back, a slice at a time, what the analysis made of each
line: the exchanges, the findings, which line belongs to which. The app's
process lists the lines itself (listed.py) and ``Mirror`` puts what the child
says on them, so the list, the panes and every view read the same objects as
before.

What is sent is the analysis's own values (ids, methods, sentences, JSON
values), as plain data (``marshal``), between two processes of mcpspy's: no
code, no object the child could choose. A line is named by its index among
the capture's lines (the order both readers read them in), never by its seq,
which a capture may repeat.

Only for a capture that is not live: the analyzer's state stays in the child,
and a live capture keeps being analysed as lines come (loader.py, in the
worker). If the child cannot be started the worker analyses as before; if it
fails, what it had sent stands and the batch says why the rest is missing.
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import select
import signal
import struct
import sys
import threading
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any, cast

from mcpspy.analysis.analyzer import read_line
from mcpspy.analysis.catalogue import RULES
from mcpspy.analysis.context_cost import ContextMeter
from mcpspy.analysis.message_fields import fields_of
from mcpspy.analysis.model import (
    AnalysisEvent,
    Era,
    Exchange,
    ExchangeState,
    ExchangeUpdated,
    Finding,
    FindingRaised,
    Kind,
    Message,
    Repeats,
    Severity,
)
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.rules.framing import classify_line
from mcpspy.capture.reader import CaptureReader
from mcpspy.capture.records import STREAM_OF, Event, LifecycleRecord, LineRecord, Record
from mcpspy.replay_policy import Replay
from mcpspy.tui.listed import read_now

CHILD_AFTER = 1 << 20  # bytes of capture: below it one step of the worker reads it all (no fork is worth it)
READ_SLICE = 1 << 20  # bytes the child reads, analyses and reports at a time
SHOWN = 200  # the pending and the newest exchanges a snapshot names (as loader.py's)
HEADER = struct.Struct("!I")  # a frame: its length, then its marshal'd tuple
PIPE_SIZE = 1 << 20  # the child's pipe, when the kernel allows: a slice's frame fits whole
REPLIES = (Kind.RESPONSE, Kind.ERROR_RESPONSE)
PROTOCOL_KINDS = (Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE, Kind.ERROR_RESPONSE)
_KINDS = {kind.value: kind for kind in Kind}
_STATES = {state.value: state for state in ExchangeState}
_ERAS = {era.value: era for era in Era}
_EVENTS = {event.value: event for event in Event}
_SEQ = attrgetter("seq")
Frame = tuple[Any, ...]  # what the analysis child writes: plain data (marshal)


# --- the child's side


class _Reporting:
    """What the child has told the app of the analysis's objects, and what it tells next.

    The analysis loop only collects (each line's message, every event, in ``messages`` and
    ``events``); a frame reads what they say, a slice at a time: a call a line cost a sixth
    of the analysis.
    """

    def __init__(self, replay: Replay) -> None:
        self.analyzer = replay.analyzer
        self.found = self.analyzer.found()
        self.context = ContextMeter()
        self.messages: list[Message] = []  # every line's, by its index
        self.events: list[AnalysisEvent] = []  # since the last frame
        self.line_of: dict[int, int] = {}  # id(message) -> its index, made once a finding needs it
        self.exchange_index: dict[int, int] = {}  # id(exchange) -> its index, in the order first told
        self.finding_index: dict[int, int] = {}
        self.exchanges_told: list[Exchange] = []  # keeps each told object alive: its id stays its own
        self.findings_told: list[Finding] = []
        self._framed = 0  # lines told of
        self._seqs: set[int] = set()  # every line's seq
        self.injected = False  # an injection was fed: a line may carry its fields (Reporter.message)

    def listed_tools(self, events: list[AnalysisEvent]) -> None:
        for event in events:
            if type(event) is ExchangeUpdated and event.exchange.method == "tools/list":
                self.context.exchange(event.exchange, self.analyzer.message)

    def _exchange(self, exchange: Exchange) -> int:
        return _told(exchange, self.exchange_index, self.exchanges_told)

    def _finding(self, finding: Finding) -> int:
        return _told(finding, self.finding_index, self.findings_told)

    def frame(self, done: bool) -> Frame:
        """What changed since the last frame, as plain data (the app's ``Mirror.take`` reads it)."""
        analyzer, messages = self.analyzer, self.messages
        start, end = self._framed, len(messages)
        self._framed = end
        fresh = messages[start:end]
        self._seqs.update(map(_SEQ, fresh))
        # While every line's seq is its own, the app finds an exchange's lines by its seqs; else each
        # line that belongs to one is named (a capture may repeat a seq).
        by_seq = len(self._seqs) == end
        dirty: dict[int, Exchange] = {}
        new: list[Finding] = []
        for event in self.events:
            if type(event) is ExchangeUpdated:
                exchange = event.exchange
                dirty[id(exchange)] = exchange
            elif type(event) is FindingRaised:
                new.append(event.finding)
        self.events.clear()
        findings = [_finding_row(self._finding(f), f) for f in new]
        linked: list[tuple[int, Exchange, bool]] = []
        touched: set[int] = set()
        if not by_seq or self.injected:
            for index, message in enumerate(fresh, start):
                own = message.exchange
                if own is not None and not by_seq:
                    dirty[id(own)] = own
                    linked.append((index, own, message.kind in REPLIES))
                if message.injected is not None:
                    touched.add(index)
        if self.found:  # the lines findings were attached to, fresh or older
            line_of = self.line_of
            line_of.update(zip(map(id, messages[len(line_of) :]), range(len(line_of), end), strict=True))
            touched.update(line_of[id(found)] for found in self.found)
            self.found.clear()
        lines_told = []
        tallied: dict[int, Finding] = {}  # the once-per-session findings on these lines: each tally, once
        for index in sorted(touched):
            message = messages[index]
            tallied.update((id(f), f) for f in message.findings if f.repeats is not None)
            rewritten = None
            if _rewritten(message):  # the first line of a pretty-printed message
                rewritten = (message.kind.value, message.payload, message.id, message.method)
            own = message.exchange
            if own is not None:  # named whatever its seq: a lost reply's exchange is paired again later
                dirty[id(own)] = own
                linked.append((index, own, message.kind in REPLIES))
            lines_told.append(
                (index, tuple(self._finding(f) for f in message.findings), message.injected, rewritten)
            )
        findings += [_finding_row(self._finding(f), f) for f in tallied.values()]
        shown = analyzer.pending[:SHOWN], analyzer.exchanges[-SHOWN:]
        for exchanges in shown:
            dirty.update(zip(map(id, exchanges), exchanges, strict=True))
        rows = [_exchange_row(self._exchange(x), x) for x in dirty.values()]
        index_of = self.exchange_index
        links = [(index, index_of[id(x)], reply) for index, x, reply in linked]
        cost = self.context.cost.tools
        snapshot = (
            analyzer.era.value,
            analyzer.protocol_version,
            len(analyzer.pending),
            [index_of[id(x)] for x in shown[0]],
            [index_of[id(x)] for x in shown[1]],
            cost.tokens if cost.seen else None,
        )
        return (end, rows, by_seq, links, findings, lines_told, snapshot, done)


def _told(thing: Any, index_of: dict[int, int], told: list[Any]) -> int:
    """Its index among the objects told of, in the order first told (a new one's is the next)."""
    key = id(thing)
    index = index_of.get(key)
    if index is None:
        index = index_of[key] = len(told)
        told.append(thing)
    return index


def _rewritten(message: Message) -> bool:
    """A message the analysis made of more lines than its own (its line alone reads as no message)."""
    if type(message) is not Message or message.kind not in PROTOCOL_KINDS or message.payload is None:
        return False  # a LeanMessage's payload is its own line's (message_fields.let_payload_go)
    return classify_line(message.raw, message.stream).kind not in PROTOCOL_KINDS


def _exchange_row(index: int, x: Exchange) -> tuple[Any, ...]:
    return (
        index,
        x.request_seq,
        x.stream._value_,
        x.id,
        x.method,
        x.sent_t,
        x.reply_seq,
        x.reply_t,
        x.state._value_,
        x.out_of_order,
        x.cancel_seq,
        x.long_lived,
        x.version,
    )


def _finding_row(index: int, f: Finding) -> tuple[Any, ...]:
    repeats = f.repeats
    return (
        index,
        f.rule.id.value,
        f.seq,
        f.stream.value if f.stream is not None else None,
        f.sentence,
        f.related_seq,
        (repeats.count, repeats.last_seq, repeats.seqs) if repeats is not None else None,
        f.dropped_by,
        int(f.judged) if f.judged is not None else None,
        f.injected,
    )


def read_slices(path: Path) -> Iterator[list[Record]]:
    """The capture's records, a slice at a time, as the worker reads them; its torn end last."""
    with CaptureReader(path) as reader:
        while records := reader.poll_slice(READ_SLICE):
            yield records
        ending = reader.ending()  # a torn end, as the analysis' capture.torn-line
    if ending:
        yield ending


def analyse(
    slices: Iterable[list[Record]], slow_after: float, write: Callable[[tuple[Any, ...]], None]
) -> None:
    """The child's work: analyse the records, calling ``write`` with a frame a slice, and the last."""
    replay = Replay(slow_after, seen=False)  # the app has every line: no MessageSeen
    reporting = _Reporting(replay)
    messages, events, feed_read, feed = reporting.messages, reporting.events, replay.feed_read, replay.feed
    for records in slices:
        for record in records:
            if type(record) is LineRecord:
                message, parsed = read_line(record)
                messages.append(message)
                fed = feed_read(message, parsed)
                events += fed
                # The one cost the header shows (loader.Snapshot), measured now: the meter reads lines by
                # seq, as the worker does (a later line may repeat a seq). A fragment may end a reply.
                if fed and (message.method == "tools/list" or message.kind not in PROTOCOL_KINDS):
                    reporting.listed_tools(fed)
            else:
                events += feed(record)
                if cast(LifecycleRecord, record).event is Event.INJECTED:
                    reporting.injected = True
        write(reporting.frame(done=False))
    events += replay.conclude()
    write(reporting.frame(done=True))


def _child(path: Path, slow_after: float, fd: int, held: set[int | signal.Signals]) -> None:
    """In the forked child: never returns, never runs the app's code, never writes but to ``fd``."""
    code = 1
    try:
        _as_child(held)

        def write(frame: tuple[Any, ...]) -> None:
            _write_all(fd, _framed(frame))

        analyse(_slices_read_by_a_child(path), slow_after, write)
        code = 0
    except BaseException:  # told to the app, whatever it was
        with contextlib.suppress(BaseException):
            _write_all(fd, _framed(("failed", traceback.format_exc(limit=-3))))
    finally:
        os._exit(code)


def _fork() -> tuple[int, set[int | signal.Signals]]:
    """fork(2), every signal held back until the child has dropped the app's handlers (``_as_child``,
    given the mask to restore): a signal that came first would run one of them in the child."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    try:
        pid = os.fork()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        raise
    if pid:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    return pid, held


def _as_child(held: set[int | signal.Signals]) -> None:
    """A forked child's start: none of the app's signal handlers (a resize would run Textual's), no
    wake-up fd (the app's event loop's), ^C left to the app, no collector, dead with its parent."""
    with contextlib.suppress(ValueError):
        signal.set_wakeup_fd(-1)
    for number in signal.valid_signals():
        with contextlib.suppress(OSError, ValueError, TypeError):
            if callable(signal.getsignal(number)):
                signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the terminal's ^C is the app's to take
    signal.pthread_sigmask(signal.SIG_SETMASK, held)
    gc.disable()  # as the app runs its analysis (replay_policy.pause_collector): it exits soon
    _die_with_parent()


def _slices_read_by_a_child(path: Path) -> Iterator[list[Record]]:
    """``read_slices`` run by a child of this child: reading the capture's records (a fifth of the
    work) goes on beside the analysis, which takes them, plain, from a pipe."""
    read_end, write_end = _pipe()
    pid, held = _fork()
    if pid == 0:
        os.close(read_end)
        _reader(path, write_end, held)
    os.close(write_end)
    try:
        with os.fdopen(read_end, "rb", buffering=PIPE_SIZE) as pipe:
            while True:
                head = pipe.read(HEADER.size)
                if len(head) < HEADER.size:
                    raise ChildFailed("the capture's reader stopped before the end")
                kind, told = marshal.loads(pipe.read(HEADER.unpack(head)[0]))
                if kind == "end":
                    return
                if kind == "failed":
                    raise ChildFailed(f"the capture's reader failed:\n{told}")
                yield [_record(item) for item in told]
    finally:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)  # gone already, unless this child failed first
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def _reader(path: Path, fd: int, held: set[int | signal.Signals]) -> None:
    """In the reader child: never returns."""
    code = 1
    try:
        _as_child(held)
        for records in read_slices(path):
            _write_all(fd, _framed(("records", [_plain(record) for record in records])))
        _write_all(fd, _framed(("end", None)))
        code = 0
    except BaseException:  # told to the analysis, which tells the app
        with contextlib.suppress(BaseException):
            _write_all(fd, _framed(("failed", traceback.format_exc(limit=-3))))
    finally:
        os._exit(code)


def _plain(record: Record) -> tuple[Any, ...]:
    if type(record) is LineRecord:
        return (record.seq, record.t, record.stream._value_, record.data, record.terminated)
    assert isinstance(record, LifecycleRecord)
    return (record.seq, record.t, record.event._value_, record.details)


def _record(plain: tuple[Any, ...]) -> Record:
    if len(plain) == 5:
        seq, t, stream, data, terminated = plain
        return LineRecord(seq, t, STREAM_OF[stream], data, terminated)
    seq, t, event, details = plain
    return LifecycleRecord(seq, t, _EVENTS[event], details)


def _pipe() -> tuple[int, int]:
    from mcpspy.proxy.fdio import widen_pipe  # here: ctypes is no part of the app's start

    read_end, write_end = os.pipe()
    widen_pipe(write_end, PIPE_SIZE)
    return read_end, write_end


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        from mcpspy.proxy.fdio import PR_SET_PDEATHSIG, libc_function

        prctl = libc_function("prctl")
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _framed(frame: tuple[Any, ...]) -> bytes:
    data = marshal.dumps(frame)
    return HEADER.pack(len(data)) + data


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


# --- the app's side


class ChildFailed(Exception):
    """The child stopped before it said it was done; the text says why, as far as is known."""


class AnalysisChild:
    """The forked child, from the app's process: ``frames()`` reads what it has said."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid, self.fd = pid, fd
        self._buffer = bytearray()
        self._failed: str | None = None  # what it said of its failure, once its frames before are taken
        self.done = False

    @classmethod
    def start(cls, path: Path, slow_after: float) -> AnalysisChild | None:
        """Fork the child for ``path``; None where this system cannot fork."""
        if not hasattr(os, "fork"):
            return None
        read_end, write_end = _pipe()
        try:
            pid, held = _fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            return None
        if pid == 0:
            os.close(read_end)
            _child(path, slow_after, write_end, held)
        os.close(write_end)
        os.set_blocking(read_end, False)
        return cls(pid, read_end)

    def frames(self, wait: float = 0.0) -> list[tuple[Any, ...]]:
        """The frames the child has written, waiting up to ``wait`` seconds for one. Raises ChildFailed."""
        if wait and not self._complete_frame():
            select.select([self.fd], [], [], wait)
        ended = False
        while True:
            try:
                data = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                break
            if not data:
                ended = True
                break
            self._buffer += data
        frames: list[Frame] = []
        while self._failed is None and self._complete_frame():
            (size,) = HEADER.unpack_from(self._buffer)
            frame = marshal.loads(self._buffer[HEADER.size : HEADER.size + size])
            del self._buffer[: HEADER.size + size]
            if frame[0] == "failed":
                self._failed = f"the analysis process failed:\n{frame[1]}"
            else:
                frames.append(frame)
                self.done = self.done or frame[-1]
        if frames:  # what it said before it failed or stopped is taken first
            return frames
        if self._failed is not None:
            raise ChildFailed(self._failed)
        if ended and not self.done:
            raise ChildFailed(f"the analysis process stopped ({self._reap()})")
        return frames

    def _complete_frame(self) -> bool:
        if len(self._buffer) < HEADER.size:
            return False
        size: int = HEADER.unpack_from(self._buffer)[0]
        return len(self._buffer) >= HEADER.size + size

    def _reap(self) -> str:
        with contextlib.suppress(ChildProcessError):
            _, status = os.waitpid(self.pid, 0)
            self.pid = 0
            if os.WIFSIGNALED(status):
                return f"signal {os.WTERMSIG(status)}"
            return f"exit code {os.waitstatus_to_exitcode(status)}"
        return "gone"

    def close(self) -> None:
        """Stop the child if it still runs, and reap it: now if it is gone, else by a thread of its own
        (a process that held a capture's analysis takes tens of milliseconds to let its memory go)."""
        with contextlib.suppress(OSError):
            os.close(self.fd)
        pid, self.pid = self.pid, 0
        if not pid:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            if os.waitpid(pid, os.WNOHANG)[0] == 0:
                threading.Thread(target=_reap, args=(pid,), name="mcpspy-reap-analysis", daemon=True).start()


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


@dataclass
class Taken:
    """What one frame changed, for the worker's batch."""

    findings: list[Finding] = field(default_factory=list)
    changed: set[int] = field(default_factory=set)


class Mirror:
    """The analysis's objects as the child describes them, put on the lines the app listed."""

    def __init__(self) -> None:
        self.lines: list[Message] = []  # every line listed, by its index (the child names them so)
        self.exchanges: list[Exchange] = []
        self.findings: list[Finding] = []
        self.analysed = 0
        self.era = Era.UNKNOWN
        self.protocol_version: str | None = None
        self.pending_count = 0
        self.pending: list[Exchange] = []
        self.newest: list[Exchange] = []
        self.context_tokens: int | None = None
        self._waiting: deque[tuple[Any, ...]] = deque()  # frames about lines not listed here yet
        self._by_seq: dict[int, Message] = {}

    def take_listed(self, frames: list[tuple[Any, ...]], everything: bool) -> list[Taken]:
        """Take each frame once every line it names is listed here (this reader may be behind the
        child's), or all of them (``everything``: there is nothing more to list)."""
        waiting, listed = self._waiting, len(self.lines)
        waiting += frames
        taken = []
        while waiting and (everything or waiting[0][0] <= listed):
            taken.append(self.take(waiting.popleft()))
        return taken

    def take(self, frame: tuple[Any, ...]) -> Taken:
        analysed, exchanges, by_seq, links, findings, touched, snapshot, _ = frame
        taken = Taken()
        changed, lines = taken.changed, self.lines
        line_at = self._line_with_seq(analysed) if by_seq else {}
        for row in exchanges:
            x = self._exchange(row)
            changed.add(x.request_seq)
            request = line_at.get(x.request_seq)  # each seq names one line (else: links)
            if request is not None:
                request.exchange = x
            if x.reply_seq is not None:
                changed.add(x.reply_seq)
                reply = line_at.get(x.reply_seq)
                if reply is not None:
                    reply.exchange, reply.method = x, x.method
        for index, exchange, reply in links:
            if index < len(lines):
                message = lines[index]
                x = message.exchange = self.exchanges[exchange]
                if reply:
                    message.method = x.method
        for row in findings:
            finding, new = self._finding(row)
            if new:
                taken.findings.append(finding)
                changed.add(finding.seq)
        for index, told, injected, rewritten in touched:
            if index >= len(lines):
                continue
            message = lines[index]
            if rewritten is not None:
                _rewrite(message, rewritten)
            message.findings = [self.findings[i] for i in told] if told else ()
            message.injected = injected
            changed.add(message.seq)
        self.analysed = analysed
        era, self.protocol_version, self.pending_count, pending, newest, self.context_tokens = snapshot
        self.era = _ERAS[era]
        self.pending = [self.exchanges[i] for i in pending]
        self.newest = [self.exchanges[i] for i in newest]
        return taken

    def _line_with_seq(self, end: int) -> dict[int, Message]:
        """Each of the first ``end`` lines by its seq: only while the child says none of them repeats
        a seq (a line listed past them may)."""
        line_at = self._by_seq
        fresh = self.lines[len(line_at) : end]
        line_at.update(zip(map(_SEQ, fresh), fresh, strict=True))
        return line_at

    def _exchange(self, row: tuple[Any, ...]) -> Exchange:
        index, request_seq, stream, ident, method, sent_t, reply_seq, reply_t, state, *rest = row
        out_of_order, cancel_seq, long_lived, version = rest
        if index < len(self.exchanges):  # told before: the same object, brought up to date
            x: Exchange = self.exchanges[index]
            x.reply_seq, x.reply_t, x.state, x.out_of_order = reply_seq, reply_t, _STATES[state], out_of_order
            x.cancel_seq, x.long_lived, x.version = cancel_seq, long_lived, version
            return x
        x = Exchange(
            request_seq,
            STREAM_OF[stream],
            ident,
            method,
            sent_t,
            reply_seq,
            reply_t,
            _STATES[state],
            out_of_order,
            cancel_seq,
            long_lived,
            version,
        )
        self.exchanges.append(x)
        return x

    def _finding(self, row: tuple[Any, ...]) -> tuple[Finding, bool]:
        index, rule, seq, stream, sentence, related_seq, tally, dropped_by, judged, injected = row
        if index < len(self.findings):  # a once-per-session finding's tally, grown
            finding = self.findings[index]
            if finding.repeats is not None and tally is not None:
                finding.repeats.count, finding.repeats.last_seq, finding.repeats.seqs = tally
            return finding, False
        repeats = None
        if tally is not None:
            repeats = Repeats(tally[1], False)
            repeats.count, repeats.last_seq, repeats.seqs = tally
        finding = Finding(
            RULES[RuleId(rule)],
            seq,
            STREAM_OF[stream] if stream is not None else None,
            sentence,
            related_seq,
            repeats,
            tuple(dropped_by) if dropped_by is not None else None,
            Severity(judged) if judged is not None else None,
            injected,
        )
        self.findings.append(finding)
        return finding, True


def _rewrite(message: Message, rewritten: tuple[Any, ...]) -> None:
    """The first line of a pretty-printed message carries the whole message (rules/framing.py)."""
    read_now(message)
    kind, payload, ident, method = rewritten
    message.kind = _KINDS[kind]
    message.payload = payload
    message.params, message.meta = fields_of(message.kind, payload)
    message.id, message.method = ident, method
