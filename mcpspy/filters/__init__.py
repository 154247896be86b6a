"""The filter language of the TUI's `/` bar. Pure: no I/O, no Textual.

``method:tools/* id:3 dir:s2c kind:notification is:pending is:flagged
severity:error latency:>500ms`` and free text; spaces mean "and", a leading
``-`` negates a term. ``parse_filter`` raises FilterError saying what is wrong.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass

from mcpspy.analysis.model import ExchangeState, Kind, Message, Severity

Predicate = Callable[[Message], bool]
DIRS = {"c2s", "s2c", "err"}
KINDS = {k.value for k in Kind}
FLAGS = {"pending", "flagged"}
_LATENCY = re.compile(r"^(<=|>=|<|>|=)?(\d+(?:\.\d+)?)(ms|s)?$")


class FilterError(ValueError):
    """An invalid filter, with the reason for a person."""


@dataclass(frozen=True)
class Filter:
    text: str
    terms: tuple[Predicate, ...]

    def __call__(self, message: Message) -> bool:
        return all(term(message) for term in self.terms)


def _latency(value: str) -> Predicate:
    match = _LATENCY.match(value)
    if not match:
        raise FilterError(f"latency:{value}: expected e.g. latency:>500ms or latency:<2s")
    op, number, unit = match.groups()
    limit = float(number) / (1000.0 if unit in (None, "ms") else 1.0)

    def test(m: Message) -> bool:
        lat = m.exchange.latency if m.exchange is not None else None
        if lat is None:
            return False
        return {"<": lat < limit, ">": lat > limit, "<=": lat <= limit, ">=": lat >= limit}.get(
            op or "=", abs(lat - limit) < 1e-9
        )

    return test


def _term(key: str, value: str) -> Predicate:
    if not value:
        raise FilterError(f"{key}: needs a value")
    if key == "method":
        return lambda m: m.method is not None and fnmatch.fnmatchcase(m.method, value)
    if key == "id":
        return lambda m: m.id is not None and str(m.id) == value
    if key == "dir":
        if value not in DIRS:
            raise FilterError(f"dir:{value}: expected one of {', '.join(sorted(DIRS))}")
        return lambda m: m.stream.value == value
    if key == "kind":
        if value not in KINDS:
            raise FilterError(f"kind:{value}: expected one of {', '.join(sorted(KINDS))}")
        return lambda m: m.kind.value == value
    if key == "is":
        if value == "pending":
            return lambda m: m.exchange is not None and m.exchange.state is ExchangeState.PENDING
        if value == "flagged":
            return lambda m: bool(m.findings)
        raise FilterError(f"is:{value}: expected one of {', '.join(sorted(FLAGS))}")
    if key == "severity":
        try:
            wanted = Severity[value.upper()]
        except KeyError:
            raise FilterError(f"severity:{value}: expected info, warning or error") from None
        return lambda m: m.severity is not None and m.severity >= wanted
    if key == "latency":
        return _latency(value)
    raise FilterError(f"unknown field {key}: (try method, id, dir, kind, is, severity, latency)")


def _free_text(word: str) -> Predicate:
    needle = word.lower().encode()
    return lambda m: needle in m.raw.lower() or (m.method is not None and word.lower() in m.method.lower())


def parse_filter(text: str) -> Filter:
    """Compile ``text``; raises FilterError on the first bad term."""
    terms: list[Predicate] = []
    for word in text.split():
        negate = word.startswith("-") and len(word) > 1
        body = word[1:] if negate else word
        key, sep, value = body.partition(":")
        pred = _term(key, value) if sep and key.isalpha() else _free_text(body)
        terms.append((lambda p: lambda m: not p(m))(pred) if negate else pred)
    return Filter(text, tuple(terms))
