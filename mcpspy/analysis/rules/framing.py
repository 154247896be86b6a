"""Framing (stdout.* and stdin.*): how a pipe's bytes become lines, and lines messages.

The same rules hold on both pipes; each has a twin member per pipe, picked by
``pipe_twin`` from the stream the line came on. ``classify_line`` reads one
line on its own (stateless: a viewer lists lines with it before the analysis
sees them); ``Framing`` holds what needs history: a message pretty-printed over
several lines, and the fate of stray lines that might start one.
"""

from __future__ import annotations

import re

import orjson

from mcpspy.analysis.jsonrpc import Parsed, preview
from mcpspy.analysis.model import Kind, Message
from mcpspy.analysis.reporter import Reporter
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis.rules.envelope import classify_message
from mcpspy.capture.records import Stream

CONTENT_LENGTH = re.compile(rb"^\s*Content-(Length|Type)\s*:", re.IGNORECASE)
MULTILINE_MAX_LINES = 500
PROTOCOL_KINDS = (Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE, Kind.ERROR_RESPONSE)


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
    if not body or body.isspace():  # not strip(): that copies every line
        rule = pipe_twin(stream, RuleId.STDOUT_BLANK_LINE, RuleId.STDIN_BLANK_LINE)
        problems.append((rule, "an empty line"))
        return Parsed(Kind.NOT_JSON, problems=problems)
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
        return Parsed(Kind.NOT_JSON, problems=problems)
    if CONTENT_LENGTH.match(body):
        rule = pipe_twin(stream, RuleId.STDOUT_CONTENT_LENGTH, RuleId.STDIN_CONTENT_LENGTH)
        problems.append((rule, f"a header line {preview(body)}: LSP framing, not MCP"))
        return Parsed(Kind.NOT_JSON, problems=problems)
    glued = _split_glued(body)
    if glued is not None:
        prefix, message = glued
        parsed = classify_message(message, problems)
        parsed.glued_prefix = prefix
        return parsed
    rule = pipe_twin(stream, RuleId.STDOUT_NOT_JSON, RuleId.STDIN_NOT_JSON)
    problems.append((rule, f"{preview(body)} is not JSON"))
    return Parsed(Kind.NOT_JSON, problems=problems)


def _split_glued(body: bytes) -> tuple[bytes, dict[str, object]] | None:
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


class Framing:
    def __init__(self, out: Reporter) -> None:
        self._out = out
        self._groups: dict[Stream, list[Message]] = {Stream.C2S: [], Stream.S2C: []}  # multi-line JSON

    def line(self, message: Message, parsed: Parsed) -> tuple[Message, Parsed] | None:
        """List a line and raise what its reading found (framing and envelope faults, in order).

        Returns the JSON-RPC message the line completes, for the other families:
        the line's own, or a pretty-printed one (held on its first line) that
        this line ends; None for a stray line or a fragment.
        """
        stream = message.stream
        group = self._groups[stream]
        if group:
            if _is_fragment(parsed) and len(group) < MULTILINE_MAX_LINES:
                return self._add_fragment(group, message)
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
        if parsed.kind not in PROTOCOL_KINDS:
            return None
        if parsed.glued_prefix is not None:
            self._glued(message, parsed)
        return message, parsed

    def flush(self, stream: Stream) -> None:
        """The group never became JSON: each of its lines is plain stray text."""
        group, self._groups[stream] = self._groups[stream], []
        for m in group:
            rule = pipe_twin(stream, RuleId.STDOUT_NOT_JSON, RuleId.STDIN_NOT_JSON)
            self._out.find(rule, m.seq, stream, f"{preview(m.raw)} is not JSON")

    def _opens_group(self, message: Message) -> bool:
        """A stray line opening with { or [ may be the first of a pretty-printed message: hold it."""
        if message.raw.strip()[:1] in (b"{", b"["):
            self._groups[message.stream] = [message]
            return True
        return False

    def _add_fragment(self, group: list[Message], message: Message) -> tuple[Message, Parsed] | None:
        group.append(message)
        self._out.message(message)
        stream = message.stream
        joined = classify_line(b"\n".join(m.raw for m in group), stream)
        if joined.kind is Kind.NOT_JSON:
            return None
        self._groups[stream] = []
        first = group[0]
        what = f"id {joined.id!r}" if joined.has_id else (joined.method or "a message")
        self._out.find(
            pipe_twin(stream, RuleId.STDOUT_MULTILINE_JSON, RuleId.STDIN_MULTILINE_JSON),
            first.seq,
            stream,
            f"one message ({what}) was pretty-printed over {len(group)} lines (seq {first.seq}-"
            f"{message.seq}); the other side sees {len(group)} broken lines",
        )
        if joined.kind not in PROTOCOL_KINDS:
            return None
        # Paired through its first line, so the exchange shows what the sender meant to say.
        first.kind, first.payload = joined.kind, joined.payload
        first.id, first.method = joined.id, joined.method
        if joined.glued_prefix is not None:
            self._glued(first, joined)
        return first, joined

    def _glued(self, message: Message, parsed: Parsed) -> None:
        prefix = parsed.glued_prefix or b""
        lost = (
            f"the response to id {parsed.id!r}"
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
