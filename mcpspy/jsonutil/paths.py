"""JSON paths: how a place in a message is named, and the patterns that pick places out.

A concrete path is a tuple of keys and indexes, rendered ``$.result.tools[0]
["weird key"]``. A pattern is the JSONPath subset that ``--ignore`` takes:

    $.result.content[0].text    a key, an index
    $.result.*  $.items[*]      any one key or index
    $.._meta.progressToken      ``..``: at any depth below
    $._meta["io.x/serverInfo"]  a key that is not a plain name

A pattern matches a path when it matches the path or one of its ancestors:
ignoring ``$.result._meta`` ignores everything under it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import orjson

#: A place in a JSON value: object keys and array indexes from the root.
JsonPath = tuple[str | int, ...]

_PLAIN_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*\Z")


def render_path(path: JsonPath) -> str:
    """``$.result.tools[0].name``; keys that are not plain names in brackets, JSON-quoted."""
    parts = ["$"]
    for step in path:
        if isinstance(step, int):
            parts.append(f"[{step}]")
        elif _PLAIN_KEY.match(step):
            parts.append(f".{step}")
        else:
            parts.append(f"[{orjson.dumps(step).decode()}]")
    return "".join(parts)


class _Any:
    """The ``*`` selector: any one key or index."""

    def __repr__(self) -> str:
        return "*"


ANY = _Any()
Selector = str | int | _Any


@dataclass(frozen=True, slots=True)
class Step:
    selector: Selector
    descend: bool = False  # ``..``: zero or more levels may come before this step


class PatternError(ValueError):
    """A pattern that is not in the subset above; the message says where."""


_NAME = re.compile(r"[^.\[\]\s]+")
_BRACKET = re.compile(
    r"""\[\s*(?:(?P<index>-?\d+)|(?P<any>\*)|(?P<q>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'))\s*\]"""
)


@dataclass(frozen=True, slots=True)
class PathPattern:
    text: str
    steps: tuple[Step, ...]

    @classmethod
    def parse(cls, text: str) -> PathPattern:
        if not text.startswith("$"):
            raise PatternError(f"{text!r}: a path starts with $ (as in $.result.content[0].text)")
        steps: list[Step] = []
        i = 1
        while i < len(text):
            descend = text.startswith("..", i)
            if descend or text[i] == ".":
                i += 2 if descend else 1
                if i < len(text) and text[i] == "[":
                    step, i = _bracket(text, i, descend)
                    steps.append(step)
                    continue
                name = _NAME.match(text, i)
                if name is None:
                    raise PatternError(f"{text!r}: a name is missing at column {i + 1}")
                word = name.group()
                steps.append(Step(ANY if word == "*" else word, descend))
                i = name.end()
            elif text[i] == "[":
                step, i = _bracket(text, i, False)
                steps.append(step)
            else:
                raise PatternError(f"{text!r}: unexpected {text[i]!r} at column {i + 1}")
        return cls(text, tuple(steps))

    def matches(self, path: JsonPath) -> bool:
        """Whether ``path`` is this pattern's place or lies under it."""
        return _match(self.steps, 0, path, 0)


def _bracket(text: str, i: int, descend: bool) -> tuple[Step, int]:
    found = _BRACKET.match(text, i)
    if found is None:
        raise PatternError(f"{text!r}: a bracket at column {i + 1} holds no index, * or quoted key")
    if found.group("index") is not None:
        return Step(int(found.group("index")), descend), found.end()
    if found.group("any") is not None:
        return Step(ANY, descend), found.end()
    quoted = found.group("q")
    if quoted.startswith("'"):
        return Step(re.sub(r"\\(.)", r"\1", quoted[1:-1]), descend), found.end()
    try:
        key = orjson.loads(quoted)
    except orjson.JSONDecodeError:
        raise PatternError(f"{text!r}: the key at column {i + 1} is not a valid JSON string") from None
    return Step(key, descend), found.end()


def _selects(selector: Selector, step: str | int) -> bool:
    if isinstance(selector, _Any):
        return True
    return type(selector) is type(step) and selector == step


def _match(steps: tuple[Step, ...], si: int, path: JsonPath, pi: int) -> bool:
    """Steps from ``si`` on match a prefix of ``path`` from ``pi`` on (``..`` tries every depth)."""
    while si < len(steps):
        step = steps[si]
        if step.descend:
            return any(
                _selects(step.selector, path[at]) and _match(steps, si + 1, path, at + 1)
                for at in range(pi, len(path))
            )
        if pi >= len(path) or not _selects(step.selector, path[pi]):
            return False
        si += 1
        pi += 1
    return True


@dataclass(frozen=True, slots=True)
class PathSet:
    """Several patterns: a path is in the set when any of them matches it."""

    patterns: tuple[PathPattern, ...] = ()

    @classmethod
    def parse(cls, texts: list[str] | tuple[str, ...]) -> PathSet:
        return cls(tuple(PathPattern.parse(t) for t in texts))

    def __contains__(self, path: object) -> bool:
        return isinstance(path, tuple) and any(p.matches(path) for p in self.patterns)
