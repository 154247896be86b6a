"""The filter language's terms: one class per field, plus free text and the combinators.

Each field class has a ``key`` (what is typed before the colon), a ``help``
line (the `?` screen lists them from ``FIELDS``), a ``parse`` that checks the
value and raises FilterError, and ``__call__(message) -> bool``. As in
mitmproxy's flowfilter, a compiled filter is a tree of these callables.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Protocol

from mcpspy.analysis.model import ExchangeState, Kind, Message, Severity

WAITING = (ExchangeState.PENDING, ExchangeState.LOST)  # a lost reply leaves its sender waiting
#: is:VALUE read from the exchange's state (is:flagged reads findings); is:error: a request, its error reply
IS_STATES = {"pending": WAITING, "error": (ExchangeState.ERROR,)}


class FilterError(ValueError):
    """An invalid filter: the reason for a person, and the column (1-based) where it went wrong."""

    def __init__(self, reason: str, column: int | None = None) -> None:
        super().__init__(reason if column is None else f"{reason} (col {column})")
        self.reason = reason
        self.column = column


class Term(Protocol):
    def __call__(self, message: Message, /) -> bool: ...


@dataclass(frozen=True, slots=True)
class Method:
    key: ClassVar[str] = "method"
    help: ClassVar[str] = "the method (a reply has its request's); * and ? are wildcards: method:tools/*"
    pattern: str

    @classmethod
    def parse(cls, value: str) -> Method:
        return cls(value)

    def __call__(self, m: Message) -> bool:
        return m.method is not None and fnmatch.fnmatchcase(m.method, self.pattern)


@dataclass(frozen=True, slots=True)
class Id:
    key: ClassVar[str] = "id"
    help: ClassVar[str] = "the JSON-RPC id: id:3"
    value: str

    @classmethod
    def parse(cls, value: str) -> Id:
        return cls(value)

    def __call__(self, m: Message) -> bool:
        return m.id is not None and str(m.id) == self.value


@dataclass(frozen=True, slots=True)
class Direction:
    key: ClassVar[str] = "dir"
    help: ClassVar[str] = "the pipe: dir:c2s (client to server), dir:s2c, dir:err (stderr)"
    CHOICES: ClassVar[tuple[str, ...]] = ("c2s", "err", "s2c")
    value: str

    @classmethod
    def parse(cls, value: str) -> Direction:
        if value not in cls.CHOICES:
            raise FilterError(f"dir:{value}: expected one of {', '.join(cls.CHOICES)}")
        return cls(value)

    def __call__(self, m: Message) -> bool:
        return m.stream.value == self.value


@dataclass(frozen=True, slots=True)
class KindIs:
    key: ClassVar[str] = "kind"
    help: ClassVar[str] = "request, notification, response, error, invalid, not-json or stderr"
    value: str

    @classmethod
    def parse(cls, value: str) -> KindIs:
        kinds = sorted(k.value for k in Kind)
        if value not in kinds:
            raise FilterError(f"kind:{value}: expected one of {', '.join(kinds)}")
        return cls(value)

    def __call__(self, m: Message) -> bool:
        return m.kind.value == self.value


@dataclass(frozen=True, slots=True)
class Is:
    key: ClassVar[str] = "is"
    help: ClassVar[str] = (
        "is:pending (no reply yet, or one lost), is:error (answered with an error), "
        "is:flagged (has a finding)"
    )
    value: str

    @classmethod
    def parse(cls, value: str) -> Is:
        if value != "flagged" and value not in IS_STATES:
            raise FilterError(f"is:{value}: expected one of {', '.join(sorted({'flagged', *IS_STATES}))}")
        return cls(value)

    def __call__(self, m: Message) -> bool:
        if self.value == "flagged":
            return bool(m.findings)
        return m.exchange is not None and m.exchange.state in IS_STATES[self.value]


@dataclass(frozen=True, slots=True)
class SeverityAtLeast:
    key: ClassVar[str] = "severity"
    help: ClassVar[str] = "a finding this severe or worse: severity:warning"
    wanted: Severity

    @classmethod
    def parse(cls, value: str) -> SeverityAtLeast:
        try:
            return cls(Severity[value.upper()])
        except KeyError:
            raise FilterError(f"severity:{value}: expected info, warning or error") from None

    def __call__(self, m: Message) -> bool:
        severity = m.severity
        return severity is not None and severity >= self.wanted


_LATENCY = re.compile(r"^(<=|>=|<|>|=)?(\d+(?:\.\d+)?)(ms|s)?$")


@dataclass(frozen=True, slots=True)
class Latency:
    key: ClassVar[str] = "latency"
    help: ClassVar[str] = "the exchange's reply time: latency:>500ms, latency:<2s"
    op: str
    limit: float  # seconds

    @classmethod
    def parse(cls, value: str) -> Latency:
        match = _LATENCY.match(value)
        if not match:
            raise FilterError(f"latency:{value}: expected e.g. latency:>500ms or latency:<2s")
        op, number, unit = match.groups()
        return cls(op or "=", float(number) / (1000.0 if unit in (None, "ms") else 1.0))

    def __call__(self, m: Message) -> bool:
        lat = m.exchange.latency if m.exchange is not None else None
        if lat is None:
            return False
        limit = self.limit
        if self.op == "<":
            return lat < limit
        if self.op == ">":
            return lat > limit
        if self.op == "<=":
            return lat <= limit
        if self.op == ">=":
            return lat >= limit
        return abs(lat - limit) < 1e-9


ServerOf = Callable[[Message], "str | None"]


@dataclass(frozen=True, slots=True)
class Server:
    """The server a message is from: the view names it (``server_of``), the message does not."""

    key: ClassVar[str] = "server"
    help: ClassVar[str] = "the server's name (watch --all); * and ? are wildcards: server:git*"
    pattern: str
    server_of: ServerOf | None = None  # the view's; parse_filter binds it

    @classmethod
    def parse(cls, value: str) -> Server:
        return cls(value.lower())

    def __call__(self, m: Message) -> bool:
        name = self.server_of(m) if self.server_of is not None else None
        return name is not None and fnmatch.fnmatchcase(name.lower(), self.pattern)


FIELDS: dict[str, type[Method | Id | Direction | KindIs | Is | SeverityAtLeast | Latency | Server]] = {
    cls.key: cls for cls in (Method, Id, Direction, KindIs, Is, SeverityAtLeast, Latency, Server)
}


@dataclass(frozen=True, slots=True)
class FreeText:
    """A word or a quoted phrase: found in the line (any case) or in the method."""

    text: str

    def __call__(self, m: Message) -> bool:
        needle = self.text.lower()
        return needle.encode() in m.raw.lower() or (m.method is not None and needle in m.method.lower())


@dataclass(frozen=True, slots=True)
class Not:
    term: Term

    def __call__(self, m: Message) -> bool:
        return not self.term(m)


@dataclass(frozen=True, slots=True)
class All:
    terms: tuple[Term, ...]

    def __call__(self, m: Message) -> bool:
        return all(term(m) for term in self.terms)


@dataclass(frozen=True, slots=True)
class Any_:
    terms: tuple[Term, ...]

    def __call__(self, m: Message) -> bool:
        return any(term(m) for term in self.terms)
