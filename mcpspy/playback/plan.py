"""What ``mcpspy replay`` sends, and what it waits for: the recorded client side as steps.

Each client line of the capture is one step, sent as recorded, in order, as
fast as the waits allow:

- after a request whose recorded reply came before the next client line, the
  replay waits for the new reply (the recorded client waited for it: what it
  sent next may depend on it);
- a client response to a server request (sampling, elicitation, roots) waits
  for the new server's next request of that method and takes its id;
- at the end, every request the recording saw answered is waited for.

``ServerWatch`` follows the new server's lines to say when a wait is over.
Pure: the command owns the pipes and the clock.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass
from typing import Any

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.model import Kind
from mcpspy.capture.reader import Capture
from mcpspy.capture.records import LineRecord, Stream
from mcpspy.jsonutil.structural import canonical
from mcpspy.playback.matching import Incoming, read_client_line
from mcpspy.playback.message_bytes import IdSplit, split_at_id


@dataclass(frozen=True, slots=True)
class Step:
    """One recorded client line to send."""

    seq: int
    data: bytes  # as recorded, with its newline if it had one
    awaits: bytes | None = None  # a request the recording saw answered: its canonical id
    wait: bool = False  # the recording had its reply before the next client line
    answers: str | None = None  # a response to a server request of this method
    split: IdSplit | None = None  # where its id sits, to put the new server's request id there

    def with_id(self, new_id: Any) -> bytes:
        if self.split is None:
            return self.data
        newline = b"\n" if self.data.endswith(b"\n") else b""
        return self.split.with_id(new_id) + newline


def plan_steps(capture: Capture, analyzer: Analyzer) -> list[Step]:
    client_lines = [r for r in capture.records if isinstance(r, LineRecord) and r.stream is Stream.C2S]
    next_client_seq = {
        line.seq: (client_lines[i + 1].seq if i + 1 < len(client_lines) else None)
        for i, line in enumerate(client_lines)
    }
    replied = {
        x.request_seq: x.reply_seq
        for x in analyzer.exchanges
        if x.stream is Stream.C2S and x.reply_seq is not None
    }
    answered_server_request = {
        x.reply_seq: x.method
        for x in analyzer.exchanges
        if x.stream is Stream.S2C and x.reply_seq is not None
    }
    steps: list[Step] = []
    for line in client_lines:
        message = analyzer.message(line.seq)
        reply_seq = replied.get(line.seq)
        if message is not None and message.kind is Kind.REQUEST and reply_seq is not None:
            following = next_client_seq[line.seq]
            steps.append(
                Step(
                    line.seq,
                    line.wire,
                    awaits=canonical(message.id),
                    wait=following is None or reply_seq < following,
                )
            )
        elif line.seq in answered_server_request and message is not None:
            glued = len(message.glued_prefix or b"")
            split = split_at_id(line.data, message.payload, glued)
            steps.append(Step(line.seq, line.wire, answers=answered_server_request[line.seq], split=split))
        else:
            steps.append(Step(line.seq, line.wire))
    return steps


class ServerWatch:
    """The new server's replies and requests, as far as the waits need them."""

    def __init__(self) -> None:
        self._owed: Counter[bytes] = Counter()
        self._server_requests: dict[str, deque[Any]] = {}

    def sent(self, step: Step) -> None:
        if step.awaits is not None:
            self._owed[step.awaits] += 1

    def feed(self, line: bytes) -> None:
        """One line of the server's stdout (stray text and all)."""
        read = read_client_line(line)  # the same shapes as a client's lines, seen from this side
        start = line.find(b"{")
        if read.kind is Incoming.NOT_JSON and start > 0:  # `ready {"jsonrpc":...}`: a reply all the same
            read = read_client_line(line[start:])
        if read.kind is Incoming.RESPONSE:
            key = canonical(read.id)
            if key is not None and self._owed[key] > 0:
                self._owed[key] -= 1
        elif read.kind is Incoming.REQUEST and read.method is not None:
            self._server_requests.setdefault(read.method, deque()).append(read.id)

    def answered(self, awaits: bytes | None) -> bool:
        return awaits is None or self._owed[awaits] == 0

    @property
    def all_answered(self) -> bool:
        return not +self._owed

    def has_request(self, method: str) -> bool:
        return bool(self._server_requests.get(method))

    def take_request(self, method: str) -> Any:
        return self._server_requests[method].popleft()
