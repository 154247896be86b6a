"""The capture file's JSON Lines encoding, one record per line.

    {"format":"1.0","session":...,"started":...,"command":[...],...}   header
    {"seq":1,"t":0.0012,"stream":"c2s","text":"{...}"}                  a UTF-8 line
    {"seq":2,"t":0.003,"stream":"s2c","b64":"/w==","unterminated":true}  exact bytes
    {"seq":3,"t":0.01,"event":"server-exited","code":0}                 lifecycle

A line's text excludes its newline; ``unterminated`` marks the absence of one.
``t`` is seconds to the nearest microsecond, as orjson writes the float.

Line records, the hot path, are formatted as bytes around ``orjson.dumps`` of
their text, with no dict and no record object per line, byte for byte what
encoding the record as one dict gives; a long line is
encoded and written piece by piece, as it was read, so no copy of the whole
line is ever made and the GIL is never held for long.
"""

from __future__ import annotations

import base64
import codecs
from collections.abc import Iterator, Sequence
from typing import Any

import orjson

from mcpspy.capture.records import (
    Event,
    Header,
    LifecycleRecord,
    LineBatch,
    LineRecord,
    Record,
    Recorded,
    Stream,
)
from mcpspy.wire.splitter import LongLine

FORMAT_VERSION = "1.0"
FORMAT_MAJOR = 1


class CaptureFormatError(ValueError):
    """A capture line that is not a record this version can read."""


def encode_header(header: Header) -> bytes:
    return (
        orjson.dumps(
            {
                "format": header.format,
                "session": header.session,
                "started": header.started,
                "command": list(header.command),
                "name": header.name,
                "cwd": header.cwd,
                "mcpspy": header.mcpspy,
                "pid": header.pid,
            }
        )
        + b"\n"
    )


class _Forms:
    """The byte templates of one stream's line records: % (seq, time, text or base64)."""

    __slots__ = ("b64", "open_b64", "open_text", "text")

    def __init__(self, stream: Stream, terminated: bool) -> None:
        head = b'{"seq":%d,"t":%b,"stream":"' + stream.value.encode() + b'",'
        end = b"}\n" if terminated else b',"unterminated":true}\n'
        self.text = head + b'"text":%b' + end
        self.b64 = head + b'"b64":"%b"' + end
        self.open_text = head + b'"text":"'  # a long line: the text follows in pieces
        self.open_b64 = head + b'"b64":"'


_FORMS = {stream: _Forms(stream, True) for stream in Stream}
_FORMS_UNTERMINATED = {stream: _Forms(stream, False) for stream in Stream}
_CLOSE_TEXT = {True: b'"}\n', False: b'","unterminated":true}\n'}


def to_microsecond(t: float) -> float:
    """``t`` to the nearest microsecond (``round(t, 6)`` costs three times as much)."""
    return round(t * 1_000_000) / 1_000_000


def _time(t: float) -> bytes:
    """Seconds as every record writes them (once a batch, not a line)."""
    return orjson.dumps(to_microsecond(t))


def _line_record(forms: _Forms, seq: int, t: bytes, line: bytes) -> bytes:
    try:
        return forms.text % (seq, t, orjson.dumps(line.decode()))
    except UnicodeDecodeError:
        return forms.b64 % (seq, t, base64.b64encode(line))


def encode_line(seq: int, t: float, stream: Stream, data: bytes, terminated: bool = True) -> bytes:
    """One line record: the proxy's hot path, when a chunk is one whole line."""
    return _line_record((_FORMS if terminated else _FORMS_UNTERMINATED)[stream], seq, _time(t), data)


def encode_lines(batch: LineBatch) -> bytes:
    """The records of a batch of short lines (every line ``bytes``)."""
    forms = (_FORMS if batch.terminated else _FORMS_UNTERMINATED)[batch.stream]
    t = _time(batch.t)
    lines: Sequence[bytes] = batch.lines  # type: ignore[assignment]  # the caller checked
    if len(lines) == 1:
        return _line_record(forms, batch.first_seq, t, lines[0])
    return b"".join([_line_record(forms, seq, t, line) for seq, line in enumerate(lines, batch.first_seq)])


def encode_batch(batch: LineBatch) -> Iterator[bytes | memoryview]:
    """The records of any batch; a long line (only ever the first) comes in pieces, lazily."""
    first = batch.lines[0]
    if not isinstance(first, LongLine):
        yield encode_lines(batch)
        return
    forms = (_FORMS if batch.terminated else _FORMS_UNTERMINATED)[batch.stream]
    yield from _encode_long_line(forms, batch.first_seq, _time(batch.t), first, batch.terminated)
    if len(batch.lines) > 1:
        yield encode_lines(LineBatch(batch.first_seq + 1, batch.t, batch.stream, batch.lines[1:]))


def _encode_long_line(
    forms: _Forms, seq: int, t: bytes, line: LongLine, terminated: bool
) -> Iterator[bytes | memoryview]:
    """Piece by piece, as the line came in: no copy of the whole line is ever made."""
    pieces = line.pieces
    ascii_only = all(piece.isascii() for piece in pieces)
    if ascii_only or _is_utf8(pieces):
        decode = _decode_ascii if ascii_only else codecs.getincrementaldecoder("utf-8")().decode
        yield forms.open_text % (seq, t)
        for piece in pieces:
            yield memoryview(orjson.dumps(decode(piece)))[1:-1]  # the string, without its quotes
        yield _CLOSE_TEXT[terminated]
        return
    yield forms.open_b64 % (seq, t)
    carry = b""
    for piece in pieces:
        data = carry + piece if carry else piece
        whole = len(data) - len(data) % 3  # base64 of 3-byte groups concatenates
        yield base64.b64encode(data[:whole])
        carry = data[whole:]
    yield base64.b64encode(carry) + b'"' + (b"}\n" if terminated else b',"unterminated":true}\n')


def _decode_ascii(piece: bytes) -> str:
    return piece.decode("ascii")


def _is_utf8(pieces: Sequence[bytes]) -> bool:
    decode = codecs.getincrementaldecoder("utf-8")().decode
    try:
        for piece in pieces:
            decode(piece)
        decode(b"", True)
    except UnicodeDecodeError:
        return False
    return True


def encode_lifecycle(record: LifecycleRecord) -> bytes:
    obj: dict[str, Any] = {"seq": record.seq, "t": to_microsecond(record.t), "event": record.event.value}
    obj.update(record.details)
    return orjson.dumps(obj) + b"\n"


def encode_record(record: Record) -> bytes:
    if isinstance(record, LineRecord):
        return encode_line(record.seq, record.t, record.stream, record.data, record.terminated)
    return encode_lifecycle(record)


def encode_recorded(recorded: Sequence[Recorded]) -> Iterator[bytes | memoryview]:
    """What the recorder handed out, as capture bytes, in pieces (long lines lazily)."""
    for item in recorded:
        if isinstance(item, LineBatch):
            yield from encode_batch(item)
        else:
            yield encode_lifecycle(item)


def check_version(version: object) -> None:
    """Refuse a capture written by a newer major format than this reader knows."""
    if not isinstance(version, str):
        raise CaptureFormatError("not an mcpspy capture: the header has no format version")
    major, _, _ = version.partition(".")
    if not major.isdigit():
        raise CaptureFormatError(f"not an mcpspy capture: format version {version!r}")
    if int(major) > FORMAT_MAJOR:
        raise CaptureFormatError(
            f"this capture uses format {version}, newer than this mcpspy reads "
            f"({FORMAT_VERSION}); upgrade mcpspy to read it"
        )


def decode_header(line: bytes) -> Header:
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise CaptureFormatError(f"not an mcpspy capture: the first line is not JSON ({exc})") from None
    if not isinstance(obj, dict) or "session" not in obj:
        raise CaptureFormatError("not an mcpspy capture: the first line is not a header")
    check_version(obj.get("format"))
    return Header(
        format=str(obj["format"]),
        session=str(obj["session"]),
        started=str(obj.get("started", "")),
        command=tuple(str(a) for a in obj.get("command", ())),
        name=str(obj.get("name", "")),
        cwd=str(obj.get("cwd", "")),
        mcpspy=str(obj.get("mcpspy", "")),
        pid=int(obj.get("pid", 0)),
    )


_STREAM_OF = {stream.value: stream for stream in Stream}


def decode_record(line: bytes) -> Record:
    try:
        obj = orjson.loads(line)
        seq = int(obj["seq"])
        t = float(obj["t"])
        if "event" in obj:
            event = Event(obj["event"])
            details = {k: v for k, v in obj.items() if k not in ("seq", "t", "event")}
            return LifecycleRecord(seq, t, event, details)
        stream = _STREAM_OF[obj["stream"]]  # not Stream(...): an Enum lookup by value runs Python code
        text = obj.get("text")
        data = text.encode("utf-8") if text is not None else base64.b64decode(obj["b64"], validate=True)
        return LineRecord(seq, t, stream, data, "unterminated" not in obj or not obj["unterminated"])
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CaptureFormatError(f"unreadable capture record: {exc}") from None
