"""Framing (stdout.* and stdin.*): how a pipe's bytes become lines, and lines messages.

The same rules hold on both pipes; each has a twin member per pipe, picked by
``pipe_twin`` from the stream the line came on. ``classify_line`` reads one
line on its own (stateless: a viewer lists lines with it before the analysis
sees them); ``Framing`` holds what needs history: a message pretty-printed over
several lines, and the fate of stray lines that might start one.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

import orjson

from mcpspy.analysis.brackets import BRACE, JSON_WHITESPACE, BracketScanner, last_value_start
from mcpspy.analysis.jsonrpc import Parsed, preview, shown
from mcpspy.analysis.line_edges import EDGE_BYTES, envelope_at_edges
from mcpspy.analysis.message_fields import fields_of
from mcpspy.analysis.model import Kind, Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.rules.envelope import classify_message
from mcpspy.capture.records import Stream

CONTENT_LENGTH = re.compile(rb"^\s*Content-(Length|Type)\s*:", re.IGNORECASE)
OPENS_VALUE = re.compile(rb"\s*[{\[]")  # a line that may open a pretty-printed message
MULTILINE_MAX_LINES = 500
MAX_LINE_BYTES = 16 * 1024 * 1024  # a longer line, or group of lines, is not parsed whole
INVALID_UTF8 = (RuleId.STDOUT_INVALID_UTF8, RuleId.STDIN_INVALID_UTF8)
PROTOCOL_KINDS = (Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE, Kind.ERROR_RESPONSE)
PROTOCOL_KIND_VALUES = frozenset(kind.value for kind in PROTOCOL_KINDS)  # hot: every line (Framing.line)


def pipe_twin(stream: Stream, on_stdout: RuleId, on_stdin: RuleId) -> RuleId:
    """The framing rule of the pipe a line came on: the server's stdout, or its stdin."""
    return on_stdout if stream is Stream.S2C else on_stdin


def classify_line(raw: bytes, stream: Stream) -> Parsed:
    """Read a line (without its newline) from ``stream``: its kind, fields and faults."""
    problems: list[tuple[RuleId, str]] = []
    body = raw
    if body.endswith(b"\r"):
        body = body[:-1]
        rule = pipe_twin(stream, RuleId.STDOUT_CRLF, RuleId.STDIN_CRLF)
        problems.append((rule, "the line ends in \\r\\n"))
    if len(body) > MAX_LINE_BYTES:
        return _classify_oversized(body, stream, problems)
    if not body or body.isspace():  # not strip(): that copies every line
        rule = pipe_twin(stream, RuleId.STDOUT_BLANK_LINE, RuleId.STDIN_BLANK_LINE)
        problems.append((rule, "an empty line"))
        return Parsed(Kind.NOT_JSON, problems)
    try:
        payload = orjson.loads(body)
    except orjson.JSONDecodeError:
        return _classify_stray(body, stream, problems)
    return classify_message(payload, problems)


def _classify_stray(body: bytes, stream: Stream, problems: list[tuple[RuleId, str]]) -> Parsed:
    """A line that is not JSON as a whole: say why, or find the message glued after stray text."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        rule = pipe_twin(stream, RuleId.STDOUT_INVALID_UTF8, RuleId.STDIN_INVALID_UTF8)
        problems.append((rule, f"the line is not valid UTF-8 (byte {exc.start})"))
        return Parsed(Kind.NOT_JSON, problems)
    if CONTENT_LENGTH.match(body):
        rule = pipe_twin(stream, RuleId.STDOUT_CONTENT_LENGTH, RuleId.STDIN_CONTENT_LENGTH)
        problems.append((rule, f"a header line {preview(body)}: LSP framing, not MCP"))
        return Parsed(Kind.NOT_JSON, problems)
    glued = _split_glued(body)
    if glued is not None:
        prefix, message = glued
        parsed = classify_message(message, problems)
        parsed.glued_prefix = prefix
        return parsed
    rule = pipe_twin(stream, RuleId.STDOUT_NOT_JSON, RuleId.STDIN_NOT_JSON)
    problems.append((rule, f"{preview(body)} is not JSON"))
    return Parsed(Kind.NOT_JSON, problems)


def _classify_oversized(body: bytes, stream: Stream, problems: list[tuple[RuleId, str]]) -> Parsed:
    """A line too long to parse whole: its kind, id and method from its first and last bytes,
    so that it can be listed and paired; its payload stays unread (None)."""
    members = envelope_at_edges(body)
    method = members.get("method")
    method = method if isinstance(method, str) else None
    if method is not None:
        kind = Kind.REQUEST if "id" in members else Kind.NOTIFICATION
    elif "error" in members or "result" in members:
        kind = Kind.ERROR_RESPONSE if "error" in members else Kind.RESPONSE
    else:
        kind = Kind.NOT_JSON
    what = f"a {kind.value}" if kind is not Kind.NOT_JSON else "no JSON-RPC message"
    if "id" in members:
        what += f", id {shown(members['id'])}"
    rule = pipe_twin(stream, RuleId.STDOUT_OVERSIZED_LINE, RuleId.STDIN_OVERSIZED_LINE)
    problems.append(
        (
            rule,
            f"a line of {len(body):,} bytes, over the {MAX_LINE_BYTES >> 20} MiB mcpspy parses whole: "
            f"read from its first and last {EDGE_BYTES >> 10} KiB only ({what})",
        )
    )
    if not OPENS_VALUE.match(body):  # neither an object nor a batch: stray text
        rule = pipe_twin(stream, RuleId.STDOUT_NOT_JSON, RuleId.STDIN_NOT_JSON)
        problems.append((rule, f"{preview(body)} is not JSON"))
    return Parsed(kind, problems, None, members.get("id"), "id" in members, method)


def _split_glued(body: bytes) -> tuple[bytes, Any] | None:
    """`ready {"jsonrpc":...}`: stray text, then a JSON-RPC message on the same line.

    Only two places can start it: the first { (where a message glued after plain
    text starts), and the opener of the value the line ends with (brackets.py).
    """
    first = body.find(b"{")
    if first <= 0 or not _may_name_jsonrpc(body):
        return None
    try:
        message = orjson.loads(body[first:])
    except orjson.JSONDecodeError:
        if body.rstrip(JSON_WHITESPACE)[-1:] != b"}":
            return None
        start = last_value_start(body)
        return None if start is None or start == first else _glued_at(body, start)
    return (body[:first], message) if isinstance(message, dict) and "jsonrpc" in message else None


def _may_name_jsonrpc(text: bytes) -> bool:
    """False when no JSON object in ``text`` can have a "jsonrpc" key: as written, or \\u-escaped."""
    return b'"jsonrpc"' in text or b"\\u" in text


def _glued_at(body: bytes, start: int) -> tuple[bytes, Any] | None:
    """The stray text and the message, if the JSON value at ``start`` is a JSON-RPC object."""
    if start == 0 or body[start] != BRACE or body[0] == BRACE:
        return None
    try:
        message = orjson.loads(body[start:])
    except orjson.JSONDecodeError:
        return None
    return (body[:start], message) if isinstance(message, dict) and "jsonrpc" in message else None


class Group:
    """A message pretty-printed over several lines, under way: its lines and their brackets.

    Each line is scanned once; the lines are joined and parsed only when they
    end a JSON value that could be the message (brackets.py).
    """

    def __init__(self, first: Message) -> None:
        self.lines = [first]
        self.size = len(first.raw)
        self._starts = [0]  # where each line starts in the lines joined by newlines
        self._scanner = BracketScanner()
        self._scanner.feed(first.raw)
        # What a message glued after stray text needs (_glued_at): text first, UTF-8, a "jsonrpc" key.
        self._may_glue = first.raw[:1] != b"{"
        self._names_jsonrpc = _may_name_jsonrpc(first.raw)

    def fits(self, message: Message) -> bool:
        return len(self.lines) < MULTILINE_MAX_LINES and self.size + 1 + len(message.raw) <= MAX_LINE_BYTES

    def add(self, message: Message, parsed: Parsed) -> Parsed | None:
        """Add a line; the message the lines make, once they make one (read as one line would be)."""
        self._starts.append(self.size + 1)
        self.lines.append(message)
        self.size += 1 + len(message.raw)
        self._may_glue = self._may_glue and not any(rule in INVALID_UTF8 for rule, _ in parsed.problems)
        self._names_jsonrpc = self._names_jsonrpc or _may_name_jsonrpc(message.raw)
        self._scanner.feed(b"\n")
        self._scanner.feed(message.raw)
        start = self._scanner.value_start()
        if start is None:
            return None  # the lines so far do not end a JSON value
        if start == self._scanner.first_solid:  # the lines may be one value
            try:
                return classify_message(orjson.loads(self._joined()))
            except orjson.JSONDecodeError:
                pass
        if not (self._may_glue and self._names_jsonrpc and self._byte_at(start) == BRACE):
            return None
        glued = _glued_at(self._joined(), start)
        if glued is None:
            return None
        parsed = classify_message(glued[1])
        parsed.glued_prefix = glued[0]
        return parsed

    def _joined(self) -> bytes:
        return b"\n".join(m.raw for m in self.lines)

    def _byte_at(self, position: int) -> int:
        line = bisect.bisect_right(self._starts, position) - 1
        return self.lines[line].raw[position - self._starts[line]]


class Framing:
    def __init__(self, out: Reporter) -> None:
        self._out = out
        self._groups: dict[Stream, Group | None] = {Stream.C2S: None, Stream.S2C: None}

    def line(self, message: Message, parsed: Parsed) -> Message | None:
        """List a line and raise what its reading found (framing and envelope faults, in order).

        Returns the JSON-RPC message the line completes, for the other families:
        the line itself, or the first line of a pretty-printed message that this
        line ends (holding the whole message); None for a stray line or a fragment.
        """
        stream = message.stream
        group = self._groups[stream]
        if group is not None:
            if _is_fragment(parsed) and group.fits(message):
                return self._add_fragment(group, message, parsed)
            self.flush(stream)
        self._out.message(message)
        for rule, sentence in parsed.problems:
            stray = rule is RuleId.STDOUT_NOT_JSON or rule is RuleId.STDIN_NOT_JSON
            if stray and self._opens_group(message):
                continue  # said at flush() if no message comes of the group
            self._out.find(rule, message.seq, stream, sentence)
        if not message.terminated:
            self._out.find(
                pipe_twin(stream, RuleId.STDOUT_UNTERMINATED, RuleId.STDIN_UNTERMINATED),
                message.seq,
                stream,
                "the stream ended in the middle of this line, with no newline",
            )
        # By its value: a str keeps its hash, an Enum member's hash is a Python call.
        if parsed.kind._value_ not in PROTOCOL_KIND_VALUES:
            return None
        if parsed.glued_prefix is not None:
            self._glued(message, parsed)
        return message

    def flush(self, stream: Stream) -> None:
        """The group never became JSON: each of its lines is plain stray text."""
        group, self._groups[stream] = self._groups[stream], None
        if group is None:
            return
        rule = pipe_twin(stream, RuleId.STDOUT_NOT_JSON, RuleId.STDIN_NOT_JSON)
        for m in group.lines:
            self._out.find(rule, m.seq, stream, f"{preview(m.raw)} is not JSON")

    def _opens_group(self, message: Message) -> bool:
        """A stray line opening with { or [ may be the first of a pretty-printed message: hold it."""
        if OPENS_VALUE.match(message.raw):
            self._groups[message.stream] = Group(message)
            return True
        return False

    def _add_fragment(self, group: Group, message: Message, parsed: Parsed) -> Message | None:
        self._out.message(message)
        joined = group.add(message, parsed)
        if joined is None:
            return None
        stream = message.stream
        self._groups[stream] = None
        first, lines = group.lines[0], len(group.lines)
        what = f"id {shown(joined.id)}" if joined.has_id else (joined.method or "a message")
        self._out.find(
            pipe_twin(stream, RuleId.STDOUT_MULTILINE_JSON, RuleId.STDIN_MULTILINE_JSON),
            first.seq,
            stream,
            f"one message ({what}) was pretty-printed over {lines} lines (seq {first.seq}-"
            f"{message.seq}); the other side sees {lines} broken lines",
        )
        if joined.kind not in PROTOCOL_KINDS:
            return None
        # Paired through its first line, so the exchange shows what the sender meant to say.
        first.kind, first.payload = joined.kind, joined.payload
        first.params, first.meta = fields_of(joined.kind, joined.payload)
        first.id, first.method = joined.id, joined.method
        if joined.glued_prefix is not None:
            self._glued(first, joined)
        return first

    def _glued(self, message: Message, parsed: Parsed) -> None:
        prefix = parsed.glued_prefix or b""
        lost = (
            f"the response to id {shown(parsed.id)}"
            if parsed.kind is Kind.RESPONSE or parsed.kind is Kind.ERROR_RESPONSE
            else f"this {parsed.kind.value}"
        )
        self._out.find(
            pipe_twin(message.stream, RuleId.STDOUT_GLUED_PREFIX, RuleId.STDIN_GLUED_PREFIX),
            message.seq,
            message.stream,
            f"the stray text {preview(prefix)} was glued before a JSON message, "
            f"so the other side cannot parse the line and loses {lost}",
        )


def _is_fragment(parsed: Parsed) -> bool:
    """Inside a pretty-printed message a line may parse alone ("2026-07-28", 3): still a fragment."""
    return parsed.kind is Kind.NOT_JSON or (
        parsed.kind is Kind.INVALID and not isinstance(parsed.payload, dict | list)
    )
