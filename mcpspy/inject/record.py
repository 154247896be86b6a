"""The capture's ``injected`` record: written from a ``Mark``, read back as an ``Injection``. Pure.

    {"seq":7,"t":0.51,"event":"injected","fault":"stdout.not-json","spec":"stdout.not-json@tools/call",
     "pipe":"s2c","before":"","after":"ready\\n","altered":8,"lines":1,"id":"3"}

``altered`` is the seq of the first of the ``lines`` line records the
injection wrote (absent when it wrote none: a dropped reply, a crash, the
client's answer to a request of ours, kept from the server). ``before`` and
``after`` are the bytes as the peer wrote them and as they were delivered,
as text when UTF-8, else ``before_b64``/``after_b64``; each is kept up to
``KEEP`` bytes (``before_size``/``after_size`` say the whole). ``id`` is the
JSON-RPC id (as JSON text) of the exchange struck (``request`` 1: its reply was
held, dropped or never came, so what is found about the request is the
injection's too); ``note`` what became of a
held line ("cancelled", "timed out") or "answered". A SPEC that never struck
is recorded once at the end with ``"matched":false``.
Credentials in the bytes are redacted like any line's (``redact``).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from mcpspy.capture.records import Event, LifecycleRecord
from mcpspy.inject.catalogue import Action
from mcpspy.inject.engine import Mark
from mcpspy.inject.spec import Spec

#: Faults that change when (or whether) a request is answered: findings about that request are theirs.
STRIKES_REQUEST = frozenset({Action.DELAY, Action.REORDER, Action.AFTER_CANCEL, Action.COALESCE, Action.KILL})
KEEP = 64 * 1024  # bytes of ``before`` and ``after`` kept in the record

Redact = Callable[[bytes], bytes | None]


def mark_details(mark: Mark, redact: Redact | None = None) -> dict[str, int | str | float]:
    """The record's fields (the recorder adds ``altered`` and ``lines``)."""
    details: dict[str, int | str | float] = {
        "fault": mark.spec.fault.id,
        "spec": mark.spec.text,
        "pipe": mark.stream.value,
    }
    _put(details, "before", mark.before, redact)
    _put(details, "after", mark.after, redact)
    if mark.id is not None:
        details["id"] = mark.id
    if mark.note:
        details["note"] = mark.note
    if mark.spec.fault.action in STRIKES_REQUEST or (mark.before and not mark.after):
        details["request"] = 1  # it changed when (or whether) the request got its reply
    if mark.spec.fault.ends_session:
        details["ends"] = 1  # what follows is the injection's doing (analysis.reporter)
    return details


def unmatched_details(spec: Spec) -> dict[str, int | str | float]:
    return {"fault": spec.fault.id, "spec": spec.text, "matched": 0, "where": spec.where}


def _put(details: dict[str, int | str | float], name: str, data: bytes, redact: Redact | None) -> None:
    if len(data) > KEEP:
        details[f"{name}_size"] = len(data)
        data = data[:KEEP]
    if redact is not None and data:
        data = b"".join(redact(line) or line for line in data.splitlines(keepends=True))
    try:
        details[name] = data.decode()
    except UnicodeDecodeError:
        details[f"{name}_b64"] = base64.b64encode(data).decode("ascii")


@dataclass(frozen=True, slots=True)
class Injection:
    """An ``injected`` record, as views read it."""

    seq: int  # the record's own
    t: float
    fault: str
    spec: str
    stream: str
    altered: int | None  # the first line it wrote
    lines: int
    before: bytes
    after: bytes
    before_size: int
    after_size: int
    id: str | None
    note: str
    matched: bool
    where: str

    @property
    def seqs(self) -> range:
        """The line records it wrote."""
        return range(0) if self.altered is None else range(self.altered, self.altered + max(self.lines, 1))


def injection_of(record: LifecycleRecord) -> Injection | None:
    """The injection an ``injected`` record describes; None for any other record (or a malformed one)."""
    if record.event is not Event.INJECTED:
        return None
    d = record.details
    altered = d.get("altered")
    lines = d.get("lines", 0)
    before, after = field_bytes(d, "before"), field_bytes(d, "after")
    ident = d.get("id")
    return Injection(
        seq=record.seq,
        t=record.t,
        fault=str(d.get("fault", "")),
        spec=str(d.get("spec", "")),
        stream=str(d.get("pipe", "")),
        altered=altered if type(altered) is int else None,
        lines=lines if type(lines) is int and lines >= 0 else 0,
        before=before,
        after=after,
        before_size=_size(d, "before", before),
        after_size=_size(d, "after", after),
        id=ident if isinstance(ident, str) else None,
        note=str(d.get("note", "")),
        matched=d.get("matched", 1) != 0,
        where=str(d.get("where", "")),
    )


def field_bytes(details: Mapping[str, object], name: str) -> bytes:
    """``before`` or ``after`` of a record's fields, from its text or its base64."""
    text = details.get(name)
    if isinstance(text, str):
        return text.encode("utf-8", "surrogatepass")
    raw = details.get(f"{name}_b64")
    if isinstance(raw, str):
        try:
            return base64.b64decode(raw, validate=True)
        except ValueError:
            return b""
    return b""


def _size(details: dict[str, int | str | float], name: str, data: bytes) -> int:
    size = details.get(f"{name}_size")
    return size if type(size) is int and size >= 0 else len(data)
