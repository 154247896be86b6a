"""The capture file's JSON Lines encoding, one record per line.

    {"format":"1.1","session":...,"started":...,"command":[...],...}   header
    {"seq":1,"t":0.0012,"stream":"c2s","text":"{...}"}                  a UTF-8 line
    {"seq":2,"t":0.003,"stream":"s2c","b64":"/w==","unterminated":true}  exact bytes
    {"seq":3,"t":0.01,"event":"server-exited","code":0}                 lifecycle

A line's text excludes its newline; ``unterminated`` marks the absence of one,
and ``redacted`` says that credentials in it were replaced by markers
(``capture.redact``) before it was stored: the header's ``redaction`` says
which keys.
``t`` is seconds to the nearest microsecond, as orjson writes the float.

Format 1.1: a line longer than ``wire.splitter.PART_AT`` (16 MiB, what the
analysis parses whole) is not held until its newline: it is recorded as it
arrives, in parts of about 1 MiB, then its end::

    {"part":1,"t":0.2,"stream":"s2c","text":"{\"jsonrpc\":..."}          no seq yet
    {"part":2,"t":0.2,"stream":"s2c","b64":"..."}                       text or b64, per part
    {"seq":9,"t":0.9,"stream":"s2c","text":"...}","parts":2}            the end: seq, and how many parts

A part is text when it is UTF-8 and its JSON string is no longer than its
base64 (escapes make a control character 6 bytes), else base64. A part has
no ``seq``: a line is numbered when it ends, as every line is, so records of
other streams may come between its parts. A reader keeps the
parts of each stream and joins them to the line record of that stream whose
``parts`` counts them (``capture.pieces`` keeps at most a head and a tail of
a line that long). Parts with no end (a ``capture-gap`` dropped it, or the
proxy was killed) are left out; a capture that ends among them is torn.
A 1.0 reader reads a 1.1 capture's parts as unreadable records, and its
ends as their last bytes; a 1.1 reader reads 1.0 captures unchanged.

Format 1.2: ``mcpspy --inject`` records each injection as a lifecycle record
of its own, event ``injected`` (the fields: ``inject.record``). A 1.1 reader
reads a 1.2 capture with those records left out as unreadable (it says so);
a 1.2 reader reads 1.0 and 1.1 captures unchanged.

A ``capture-gap`` lifecycle record says what the proxy dropped rather than
wait on the disk (``capture.admission``): ``lines``, ``bytes``, the ``first``
and ``last`` seq lost, and ``parts`` of streamed lines lost.

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
from dataclasses import dataclass
from typing import Any

import orjson

from mcpspy.capture.header_format import (  # the header's encoding, kept apart: re-exported here
    FORMAT_MAJOR,
    FORMAT_VERSION,
    CaptureFormatError,
    check_version,
    decode_header,
    encode_header,
)
from mcpspy.capture.records import (
    STREAM_OF,
    Event,
    LifecycleRecord,
    LineBatch,
    LinePart,
    LineRecord,
    Record,
    Recorded,
    Stream,
)
from mcpspy.capture.redact import Redactor, StreamedRedaction
from mcpspy.wire.splitter import LongLine

__all__ = [
    "FORMAT_MAJOR",
    "FORMAT_VERSION",
    "CaptureFormatError",
    "StreamedEnd",
    "check_version",
    "decode_entry",
    "decode_header",
    "decode_record",
    "encode_batch",
    "encode_header",
    "encode_lifecycle",
    "encode_line",
    "encode_lines",
    "encode_part",
    "encode_part_pieces",
    "encode_record",
    "encode_recorded",
]


class _Forms:
    """The byte templates of one stream's line records: % (seq, time, text or base64)."""

    __slots__ = ("b64", "open_b64", "open_text", "redacted_b64", "redacted_text", "text")

    def __init__(self, stream: Stream, terminated: bool) -> None:
        head = b'{"seq":%d,"t":%b,"stream":"' + stream.value.encode() + b'",'
        end = b"}\n" if terminated else b',"unterminated":true}\n'
        self.text = head + b'"text":%b' + end
        self.b64 = head + b'"b64":"%b"' + end
        self.redacted_text = head + b'"text":%b' + end[:-2] + b',"redacted":true}\n'
        self.redacted_b64 = head + b'"b64":"%b"' + end[:-2] + b',"redacted":true}\n'
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


def _line_record(forms: _Forms, seq: int, t: bytes, line: bytes, redactor: Redactor | None = None) -> bytes:
    if redactor is not None and (redacted := redactor.redact(line)) is not None:
        return _redacted_record(forms, seq, t, redacted)
    try:
        return forms.text % (seq, t, orjson.dumps(line.decode()))
    except UnicodeDecodeError:
        return forms.b64 % (seq, t, base64.b64encode(line))


def _redacted_record(forms: _Forms, seq: int, t: bytes, line: bytes) -> bytes:
    try:
        return forms.redacted_text % (seq, t, orjson.dumps(line.decode()))
    except UnicodeDecodeError:
        return forms.redacted_b64 % (seq, t, base64.b64encode(line))


def encode_line(
    seq: int, t: float, stream: Stream, data: bytes, terminated: bool = True, redactor: Redactor | None = None
) -> bytes:
    """One line record: the proxy's hot path, when a chunk is one whole line."""
    forms = (_FORMS if terminated else _FORMS_UNTERMINATED)[stream]
    return _line_record(forms, seq, _time(t), data, redactor)


def encode_lines(batch: LineBatch, redactor: Redactor | None = None) -> bytes:
    """The records of a batch of short lines (every line ``bytes``)."""
    forms = (_FORMS if batch.terminated else _FORMS_UNTERMINATED)[batch.stream]
    t = _time(batch.t)
    lines: Sequence[bytes] = batch.lines  # type: ignore[assignment]  # the caller checked
    if len(lines) == 1:
        return _line_record(forms, batch.first_seq, t, lines[0], redactor)
    return b"".join(
        [_line_record(forms, seq, t, line, redactor) for seq, line in enumerate(lines, batch.first_seq)]
    )


def _put_data(obj: dict[str, Any], data: bytes, marker: str | None) -> None:
    """A piece's bytes into a record: as text when UTF-8, else base64; or the marker hiding them."""
    if marker is not None:
        obj["text"] = marker
        obj["redacted"] = True
        return
    try:
        obj["text"] = data.decode()
    except UnicodeDecodeError:
        obj["b64"] = base64.b64encode(data).decode("ascii")


#: A part's record, % (index, time, stream, the text as a JSON string / base64 / the marker's).
_PART_TEXT = b'{"part":%d,"t":%b,"stream":"%b","text":%b}\n'
_PART_OPEN = b'{"part":%d,"t":%b,"stream":"%b","text":"'  # a plain part's own bytes follow, then:
_PART_CLOSE = b'"}\n'
_PART_B64 = b'{"part":%d,"t":%b,"stream":"%b","b64":"%b"}\n'
_PART_REDACTED = b'{"part":%d,"t":%b,"stream":"%b","text":%b,"redacted":true}\n'


def encode_part(part: LinePart, streamed: StreamedRedaction | None = None) -> bytes:
    """A part of a streamed line (see the module's docstring)."""
    return b"".join(encode_part_pieces(part, streamed))


def encode_part_pieces(part: LinePart, streamed: StreamedRedaction | None = None) -> tuple[bytes, ...]:
    """``encode_part``'s bytes in pieces to write in a row: a plain part (ASCII, nothing to escape)
    is its own bytes between its record's head and tail, neither copied nor held twice; any other
    is formatted into one record, a copy of the MiB (what orjson returns for a long string holds 16
    times its length in memory, its reserve, never given back, and the proxy queues encoded parts).
    """
    data, stream = part.data, part.stream.value.encode()
    try:
        decoded = data.decode()
        text: bytes | None = orjson.dumps(decoded)  # the check for escapes, at orjson's speed
    except UnicodeDecodeError:
        decoded, text = "", None
    plain = text is not None and len(text) == len(data) + 2 and decoded.isascii()  # nothing escaped
    if streamed is not None and (marker := streamed.part(part.stream, part.index, data, plain)) is not None:
        return (_PART_REDACTED % (part.index, _time(part.t), stream, orjson.dumps(marker)),)
    if plain:
        return (_PART_OPEN % (part.index, _time(part.t), stream), data, _PART_CLOSE)
    if text is None or len(text) > (len(data) + 2) // 3 * 4 + 2:
        # Not UTF-8, or escaped to more than base64 takes (a control character is 6 bytes as
        # JSON): a part is never more than 4/3 of its bytes, held in the proxy's buffer.
        return (_PART_B64 % (part.index, _time(part.t), stream, base64.b64encode(data)),)
    return (_PART_TEXT % (part.index, _time(part.t), stream, text),)


def _encode_streamed_end(batch: LineBatch, line: LongLine, streamed: StreamedRedaction | None) -> bytes:
    """The line record that ends a streamed line: its last bytes, and how many parts went before."""
    data = bytes(line)
    obj: dict[str, Any] = {"seq": batch.first_seq, "t": to_microsecond(batch.t), "stream": batch.stream.value}
    marker = None if streamed is None else streamed.end(batch.stream, data)
    _put_data(obj, data, marker)
    redacted = obj.pop("redacted", False)
    obj["parts"] = line.parts
    if not batch.terminated:
        obj["unterminated"] = True
    if redacted:
        obj["redacted"] = True
    return orjson.dumps(obj) + b"\n"


def encode_batch(
    batch: LineBatch, redactor: Redactor | None = None, streamed: StreamedRedaction | None = None
) -> Iterator[bytes | memoryview]:
    """The records of any batch; a long line (only ever the first) comes in pieces, lazily.

    A long line that may name a credential is joined to be redacted (it is
    held in memory already, as its pieces); one that does not is never copied.
    The end of a streamed line goes through ``streamed`` (``StreamedRedaction``).
    """
    if batch.encoded is not None:
        yield batch.encoded
        return
    first = batch.lines[0]
    if not isinstance(first, LongLine):
        yield encode_lines(batch, redactor)
        return
    forms = (_FORMS if batch.terminated else _FORMS_UNTERMINATED)[batch.stream]
    t = _time(batch.t)
    if first.parts:
        yield _encode_streamed_end(batch, first, streamed)
    elif redactor is not None and redactor.pieces_may_hold_secret(first.pieces):
        yield _line_record(forms, batch.first_seq, t, bytes(first), redactor)
    else:
        yield from _encode_long_line(forms, batch.first_seq, t, first, batch.terminated)
    if len(batch.lines) > 1:
        yield encode_lines(LineBatch(batch.first_seq + 1, batch.t, batch.stream, batch.lines[1:]), redactor)


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


def encode_record(record: Record, redactor: Redactor | None = None) -> bytes:
    if isinstance(record, LineRecord):
        return encode_line(record.seq, record.t, record.stream, record.data, record.terminated, redactor)
    return encode_lifecycle(record)


def encode_recorded(
    recorded: Sequence[Recorded], redactor: Redactor | None = None, streamed: StreamedRedaction | None = None
) -> Iterator[bytes | memoryview]:
    """What the recorder handed out, as capture bytes, in pieces (long lines lazily)."""
    for item in recorded:
        if isinstance(item, LineBatch):
            yield from encode_batch(item, redactor, streamed)
        elif isinstance(item, LinePart):
            yield from item.encoded if item.encoded is not None else encode_part_pieces(item, streamed)
        else:
            yield encode_lifecycle(item)


@dataclass(frozen=True, slots=True)
class StreamedEnd:
    """The record that ends a streamed line: its last bytes, and how many parts went before."""

    record: LineRecord
    parts: int


def decode_entry(line: bytes) -> Record | LinePart | StreamedEnd:
    """Any record of a capture line, parts of streamed lines included (readers join them)."""
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise CaptureFormatError(f"unreadable capture record: {exc}") from None
    # Most records: a terminated UTF-8 line, {"seq","t","stream","text"} and nothing else, read here
    # with no call (a third of a record's reading); any other shape, or a fault, as _entry says.
    try:
        if len(obj) == 4:  # not a dict: TypeError at the first key
            seq, t, text, stream = obj["seq"], obj["t"], obj["text"], STREAM_OF[obj["stream"]]
            if (
                type(seq) is int
                and type(t) is float
                and type(text) is str
                and 0 <= seq <= MAX_SEQ
                and 0 <= t <= MAX_T
            ):
                return LineRecord(seq, t, stream, text.encode(), True)
    except (KeyError, TypeError, UnicodeEncodeError):  # a key missing, a value unhashable, a lone surrogate
        pass
    return _entry(obj)


def _entry(obj: Any) -> Record | LinePart | StreamedEnd:
    try:
        if "part" in obj:
            text = obj.get("text")
            data = text.encode("utf-8") if text is not None else base64.b64decode(obj["b64"], validate=True)
            index = obj["part"]
            if type(index) is not int or index < 1:
                raise ValueError(f"part is {index!r}")
            return LinePart(STREAM_OF[obj["stream"]], _time_of(obj["t"]), index, data)
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CaptureFormatError(f"unreadable capture record: {exc}") from None
    record = _record(obj)
    if "parts" in obj and isinstance(record, LineRecord):
        parts = obj["parts"]
        if type(parts) is not int or parts < 0:
            raise CaptureFormatError(f"unreadable capture record: parts is {parts!r}")
        return StreamedEnd(record, parts)
    return record


def decode_record(line: bytes) -> Record:
    """One record (a streamed line's end comes as its last bytes; a part is refused)."""
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise CaptureFormatError(f"unreadable capture record: {exc}") from None
    return _record(obj)


MAX_T = 1e9  # seconds since the session started: 31 years; past it, a time no proxy wrote
MAX_SEQ = 2**53  # as far as every JSON reader counts exactly


def _time_of(value: Any) -> float:
    """A record's time: a finite number of seconds from 0 to ``MAX_T`` (1e308 would crash every view)."""
    if type(value) not in (int, float) or not 0 <= value <= MAX_T:
        raise ValueError(f"t is {value!r}, not seconds from 0 to {MAX_T:.0e}")
    return float(value)


def _seq_of(value: Any) -> int:
    if type(value) is not int or not 0 <= value <= MAX_SEQ:
        raise ValueError(f"seq is {value!r}, not a count")
    return value


def _record(obj: Any) -> Record:
    try:
        seq = _seq_of(obj["seq"])
        t = _time_of(obj["t"])
        if "event" in obj:
            event = Event(obj["event"])
            details = {k: v for k, v in obj.items() if k not in ("seq", "t", "event")}
            return LifecycleRecord(seq, t, event, details)
        stream = STREAM_OF[obj["stream"]]
        text = obj.get("text")
        data = text.encode("utf-8") if text is not None else base64.b64decode(obj["b64"], validate=True)
        return LineRecord(seq, t, stream, data, "unterminated" not in obj or not obj["unterminated"])
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CaptureFormatError(f"unreadable capture record: {exc}") from None
