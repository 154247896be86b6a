"""The capture file's JSON Lines encoding, one record per line.

    {"format":"1.0","session":...,"started":...,"command":[...],...}   header
    {"seq":1,"t":0.0012,"stream":"c2s","text":"{...}"}                  a UTF-8 line
    {"seq":2,"t":0.0030,"stream":"s2c","b64":"/w==","unterminated":true}  exact bytes
    {"seq":3,"t":0.0100,"event":"server-exited","code":0}               lifecycle

A line's text excludes its newline; ``unterminated`` marks the absence of one.
"""

from __future__ import annotations

import base64
from typing import Any

import orjson

from mcpspy.capture.records import Event, Header, LifecycleRecord, LineRecord, Record, Stream

FORMAT_VERSION = "1.0"
FORMAT_MAJOR = 1


class CaptureFormatError(ValueError):
    """A capture line that is not a record this version can read."""


def encode_header(header: Header) -> bytes:
    return orjson.dumps(
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
    ) + b"\n"


def encode_line(seq: int, t: float, stream: Stream, data: bytes, terminated: bool) -> bytes:
    """Encode a line record without building a LineRecord first (the hot path)."""
    obj: dict[str, Any] = {"seq": seq, "t": round(t, 6), "stream": stream.value}
    try:
        obj["text"] = data.decode("utf-8")
    except UnicodeDecodeError:
        obj["b64"] = base64.b64encode(data).decode("ascii")
    if not terminated:
        obj["unterminated"] = True
    return orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE)


def encode_record(record: Record) -> bytes:
    if isinstance(record, LineRecord):
        return encode_line(record.seq, record.t, record.stream, record.data, record.terminated)
    obj: dict[str, Any] = {"seq": record.seq, "t": round(record.t, 6), "event": record.event.value}
    obj.update(record.details)
    return orjson.dumps(obj) + b"\n"


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


def decode_record(line: bytes) -> Record:
    try:
        obj = orjson.loads(line)
        seq = int(obj["seq"])
        t = float(obj["t"])
        if "event" in obj:
            event = Event(obj["event"])
            details = {k: v for k, v in obj.items() if k not in ("seq", "t", "event")}
            return LifecycleRecord(seq, t, event, details)
        stream = Stream(obj["stream"])
        text = obj.get("text")
        data = text.encode("utf-8") if text is not None else base64.b64decode(obj["b64"], validate=True)
        return LineRecord(seq, t, stream, data, not obj.get("unterminated", False))
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CaptureFormatError(f"unreadable capture record: {exc}") from None
