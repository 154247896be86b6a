"""The SPEC grammar: which fault, where, which occurrence, with what parameters. Pure.

    ID[@METHOD|@id=N][#N|#every|~P][:KEY=VALUE,...]

``@METHOD``: the server's reply to the client's next request of that method
(a fault that inserts goes immediately before that reply; a c2s fault, or
a crash, strikes at the request itself); ``@id=N`` the reply to (or the
request with) id N. Without either, any reply (any request).
``#N``: the Nth match only (default ``#1``: once); ``#every``: every match;
``~P``: each match with probability P (0 < P <= 1), drawn from ``--seed``.
Parameters: ``KEY=VALUE`` separated by commas; durations as ``250ms`` or
``2s`` (a bare number is milliseconds), sizes as ``512``, ``64KiB`` or
``4MiB`` (bytes by default), counts as whole numbers, text as it is (no
comma). A parameter the fault does not have is an error.

``parse_spec`` raises ``SpecError`` naming the column (1-based) of what is wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import orjson

from mcpspy.inject.catalogue import FAULTS, Fault, Param, Unit

MAX_SIZE = 1 << 30  # 1 GiB: a padding bigger than that is a typo
MAX_COUNT = 1_000_000
MAX_MS = 24 * 3600 * 1000

_ID = re.compile(r"[a-z0-9][a-z0-9.-]*")
_METHOD = re.compile(r"[^#~:@\s]+")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|s)?")
_SIZE = re.compile(r"(\d+)(B|KiB|MiB|GiB|KB|MB|K|M)?")
_SIZE_UNITS = {None: 1, "B": 1, "K": 1024, "KiB": 1024, "KB": 1000, "M": 1 << 20, "MiB": 1 << 20, "MB": 10**6}
_SIZE_UNITS["GiB"] = 1 << 30


class SpecError(ValueError):
    """A SPEC that does not parse; ``column`` is 1-based."""

    def __init__(self, spec: str, column: int, why: str) -> None:
        super().__init__(f"bad --inject {spec!r} at column {column}: {why}")
        self.column = column


@dataclass(frozen=True, slots=True)
class Spec:
    text: str  # as the user wrote it
    fault: Fault
    method: str | None = None
    id: object = None  # a JSON-RPC id (int or str) when ``@id=`` named one
    has_id: bool = False
    nth: int | None = 1  # the match that fires; None with ``every`` or ``probability``
    every: bool = False
    probability: float | None = None
    params: dict[str, int | str] = field(default_factory=dict)  # every parameter, defaults filled in

    def value(self, name: str) -> int | str:
        return self.params[name]

    def number(self, name: str) -> int:
        value = self.params[name]
        assert isinstance(value, int), name
        return value

    def text_param(self, name: str) -> str:
        return str(self.params[name])

    @property
    def where(self) -> str:
        """What the SPEC waits for, in words (an unmatched SPEC says it)."""
        target = "request" if self.fault.anchor == "request" or self.fault.direction == "c2s" else "reply"
        if self.has_id:
            return f"the {target} with id {orjson.dumps(self.id).decode()}"
        if self.method is not None:
            return f"a {self.method} {target}" if target == "request" else f"a reply to {self.method}"
        return f"a {target}"


def parse_spec(text: str) -> Spec:
    """One SPEC, checked against the catalogue; SpecError names the column of the first fault."""
    m = _ID.match(text)
    if m is None:
        raise SpecError(text, 1, "expected a fault id (`mcpspy faults` lists them)")
    fault_id = m.group()
    fault = FAULTS.get(fault_id)
    if fault is None:
        raise SpecError(text, 1, f"no fault {fault_id!r} (`mcpspy faults` lists them)")
    pos = m.end()
    method: str | None = None
    has_id = False
    id_value: object = None
    if pos < len(text) and text[pos] == "@":
        pos += 1
        if text.startswith("id=", pos):
            pos += 3
            m = _METHOD.match(text, pos)
            if m is None:
                raise SpecError(text, pos + 1, "expected an id after @id=")
            raw = m.group()
            id_value = int(raw) if re.fullmatch(r"-?\d+", raw) else raw
            has_id = True
        else:
            m = _METHOD.match(text, pos)
            if m is None:
                raise SpecError(text, pos + 1, "expected a method after @ (as in @tools/call) or @id=N")
            method = m.group()
        pos = m.end()
    nth: int | None = 1
    every = False
    probability: float | None = None
    if pos < len(text) and text[pos] == "#":
        pos += 1
        if text.startswith("every", pos):
            nth, every = None, True
            pos += 5
        else:
            m = re.compile(r"\d+").match(text, pos)
            if m is None or int(m.group()) < 1:
                raise SpecError(text, pos + 1, "expected #every or #N with N from 1 (the Nth match)")
            nth = int(m.group())
            pos = m.end()
    elif pos < len(text) and text[pos] == "~":
        pos += 1
        m = re.compile(r"\d*\.?\d+").match(text, pos)
        p = float(m.group()) if m is not None else -1.0
        if m is None or not 0 < p <= 1:
            raise SpecError(text, pos + 1, "expected ~P with P a probability above 0, at most 1 (as in ~0.1)")
        nth, probability = None, p
        pos = m.end()
    params = {p.name: p.default for p in fault.params}
    if pos < len(text):
        if text[pos] != ":":
            raise SpecError(text, pos + 1, f"unexpected {text[pos]!r} (expected @, #, ~ or :)")
        pos += 1
        params.update(_parse_params(text, pos, fault))
    return Spec(text, fault, method, id_value, has_id, nth, every, probability, params)


def _parse_params(text: str, pos: int, fault: Fault) -> dict[str, int | str]:
    out: dict[str, int | str] = {}
    while True:
        end = text.find(",", pos)
        end = len(text) if end < 0 else end
        item = text[pos:end]
        key, eq, raw = item.partition("=")
        if not eq or not key:
            raise SpecError(text, pos + 1, f"expected KEY=VALUE, got {item!r}")
        param = fault.param(key)
        if param is None:
            known = ", ".join(p.name for p in fault.params) or "none"
            raise SpecError(text, pos + 1, f"{fault.id} has no parameter {key!r} (it has: {known})")
        try:
            out[key] = parse_value(param, raw)
        except ValueError as exc:
            raise SpecError(text, pos + len(key) + 2, str(exc)) from None
        if end == len(text):
            return out
        pos = end + 1


def parse_value(param: Param, raw: str) -> int | str:
    """A parameter's value in its unit: milliseconds, bytes, a count, or the text itself."""
    if param.unit is Unit.TEXT:
        if param.choices and raw not in param.choices:
            raise ValueError(f"{param.name} is one of {', '.join(param.choices)}, not {raw!r}")
        return raw
    if param.unit is Unit.MS:
        m = _DURATION.fullmatch(raw)
        if m is None:
            raise ValueError(f"{param.name} is a duration (250ms, 2s), not {raw!r}")
        ms = float(m.group(1)) * (1000 if m.group(2) == "s" else 1)
        if ms > MAX_MS:
            raise ValueError(f"{param.name} is at most a day")
        return round(ms)
    if param.unit is Unit.BYTES:
        m = _SIZE.fullmatch(raw)
        if m is None:
            raise ValueError(f"{param.name} is a size (512, 64KiB, 4MiB), not {raw!r}")
        size = int(m.group(1)) * _SIZE_UNITS[m.group(2)]
        if size > MAX_SIZE:
            raise ValueError(f"{param.name} is at most 1GiB")
        return size
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_COUNT:
        raise ValueError(f"{param.name} is a whole number from 1 to {MAX_COUNT}, not {raw!r}")
    return int(raw)
