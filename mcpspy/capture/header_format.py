"""The capture's header line: its encoding, and a reader's checks of every field. Pure.

Kept apart from ``capture.format`` (the records), which re-exports it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import orjson

from mcpspy.capture.records import Header

FORMAT_VERSION = "1.2"
FORMAT_MAJOR = 1


class CaptureFormatError(ValueError):
    """A capture line that is not a record this version can read."""


def encode_header(header: Header, redaction: dict[str, object] | None = None) -> bytes:
    """The header line; ``redaction`` is the policy in force (``RedactionPolicy.header``)."""
    obj: dict[str, object] = {
        "format": header.format,
        "session": header.session,
        "started": header.started,
        "command": list(header.command),
        "name": header.name,
        "cwd": header.cwd,
        "mcpspy": header.mcpspy,
        "pid": header.pid,
    }
    if header.escaped:
        obj["escaped"] = list(header.escaped)
    if redaction is not None:
        obj["redaction"] = redaction
    return orjson.dumps(obj) + b"\n"


def check_version(version: object) -> None:
    """Refuse a capture written by a newer major format than this reader knows."""
    if not isinstance(version, str):
        raise CaptureFormatError("not an mcpspy capture: the header has no format version")
    major, _, _ = version.partition(".")
    if not (major.isascii() and major.isdigit()):  # isdigit alone takes "²", which int() refuses
        raise CaptureFormatError(f"not an mcpspy capture: format version {version!r}")
    if int(major) > FORMAT_MAJOR:
        raise CaptureFormatError(
            f"this capture uses format {version}, newer than this mcpspy reads "
            f"({FORMAT_VERSION}); upgrade mcpspy to read it"
        )


PID_MAX = 2**31 - 1  # pid_t


def _is_string(value: object) -> bool:
    return isinstance(value, str)


def _is_strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(a, str) for a in value)


def _is_pid(value: object) -> bool:
    return type(value) is int and 0 <= value <= PID_MAX


def _is_redaction(value: object) -> bool:
    if not isinstance(value, dict):
        return False
    return isinstance(value.get("enabled"), bool) and _is_strings(value.get("keys"))


#: What each header field must be, when present (``format`` and ``session`` must be).
_HEADER_FIELDS: dict[str, tuple[Callable[[object], bool], str]] = {
    "session": (_is_string, "a string"),
    "started": (_is_string, "a string"),
    "command": (_is_strings, "an array of strings"),
    "name": (_is_string, "a string"),
    "cwd": (_is_string, "a string"),
    "mcpspy": (_is_string, "a string"),
    "pid": (_is_pid, f"a process id (0 to {PID_MAX})"),
    "escaped": (_is_strings, "an array of strings"),
    "redaction": (_is_redaction, 'a redaction policy ({"enabled": bool, "keys": [string]})'),
}


def _json_type(value: object) -> str:
    if type(value) is int:
        return f"{value}"
    names = {str: "a string", bool: "true or false", float: "a number", dict: "an object", list: "an array"}
    return names.get(type(value), "null")


def decode_header(line: bytes) -> Header:
    """The header, every field of the type it must have; CaptureFormatError says which is not."""
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise CaptureFormatError(f"not an mcpspy capture: the first line is not JSON ({exc})") from None
    if not isinstance(obj, dict) or "session" not in obj:
        raise CaptureFormatError("not an mcpspy capture: the first line is not a header")
    check_version(obj.get("format"))
    for key, (valid, what) in _HEADER_FIELDS.items():
        if key in obj and not valid(obj[key]):
            raise CaptureFormatError(f'bad capture header: "{key}" is {_json_type(obj[key])}, not {what}')
    return Header(
        format=obj["format"],
        session=obj["session"],
        started=obj.get("started", ""),
        command=tuple(obj.get("command", ())),
        name=obj.get("name", ""),
        cwd=obj.get("cwd", ""),
        mcpspy=obj.get("mcpspy", ""),
        pid=obj.get("pid", 0),
        escaped=tuple(obj.get("escaped", ())),
    )


def epoch_of(started: str) -> float | None:
    """The header's start (ISO 8601) as seconds since the epoch: a live view's clock; None if unreadable."""
    try:
        return datetime.fromisoformat(started.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
