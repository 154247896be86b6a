"""Structural comparison of JSON values: what changed, where.

Values are what ``orjson.loads`` gives. Numbers compare by value (``1`` equals
``1.0``) but never equal a boolean; objects compare by key, whatever the order;
arrays by index, so an item inserted at the front shows as every later item
changed and one added at the end. Diff, equality and pruning are iterative: a
hostile message nested a thousand deep cannot exhaust the stack.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Container
from dataclasses import dataclass
from typing import Any

import orjson

from mcpspy.jsonutil.paths import JsonPath


class _Missing:
    """Stands for the side where a key or an item does not exist."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Change(enum.Enum):
    CHANGED = "changed"
    ADDED = "added"  # only in the new value
    REMOVED = "removed"  # only in the old value


@dataclass(frozen=True, slots=True)
class Difference:
    path: JsonPath
    change: Change
    old: Any  # MISSING when added
    new: Any  # MISSING when removed


def json_type(value: Any) -> str:
    """The JSON type of a parsed value; ``int`` and ``float`` are both numbers."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _same_scalar(a: Any, b: Any) -> bool:
    return json_type(a) == json_type(b) and bool(a == b)


def diff(old: Any, new: Any) -> list[Difference]:
    """Every place where ``new`` differs from ``old``, the smallest places first found, in order."""
    found: list[Difference] = []
    stack: list[tuple[JsonPath, Any, Any]] = [((), old, new)]
    while stack:
        path, a, b = stack.pop()
        if isinstance(a, dict) and isinstance(b, dict):
            children: list[tuple[JsonPath, Any, Any]] = []
            for key in a:
                children.append(((*path, key), a[key], b.get(key, MISSING)))
            for key in b:
                if key not in a:
                    children.append(((*path, key), MISSING, b[key]))
            stack.extend(reversed(children))
        elif isinstance(a, list) and isinstance(b, list):
            pairs = [
                ((*path, i), a[i] if i < len(a) else MISSING, b[i] if i < len(b) else MISSING)
                for i in range(max(len(a), len(b)))
            ]
            stack.extend(reversed(pairs))
        elif a is MISSING:
            found.append(Difference(path, Change.ADDED, MISSING, b))
        elif b is MISSING:
            found.append(Difference(path, Change.REMOVED, a, MISSING))
        elif isinstance(a, dict | list) or isinstance(b, dict | list) or not _same_scalar(a, b):
            found.append(Difference(path, Change.CHANGED, a, b))
    return found


def canonical(value: Any) -> bytes | None:
    """``value`` as bytes that are equal exactly when the values are (object key order aside)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (orjson.JSONEncodeError, TypeError):  # nested deeper than orjson writes
        pass
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
    except (RecursionError, ValueError, TypeError):
        return None


def json_equal(a: Any, b: Any) -> bool:
    """Structural equality by the rules above."""
    stack: list[tuple[Any, Any]] = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, dict) and isinstance(y, dict):
            if x.keys() != y.keys():
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif isinstance(x, dict | list) or isinstance(y, dict | list) or not _same_scalar(x, y):
            return False
    return True


def prune(value: Any, ignored: Container[JsonPath]) -> Any:
    """A copy of ``value`` without the places in ``ignored`` (``MISSING`` when the root is ignored).

    An ignored object member is left out; an ignored array item becomes
    ``None`` (so later items keep their indexes); an object that pruning left
    empty is left out of its parent too (an object whose only member was a
    timestamp must not show up as a difference of its own).
    """
    if () in ignored:
        return MISSING
    results: list[Any] = []
    # ("enter", path, source) visits a value; ("exit", path, source, kept) builds a container from
    # the results its kept children left on ``results``.
    stack: list[tuple[Any, ...]] = [("enter", (), value)]
    while stack:
        frame = stack.pop()
        path, source = frame[1], frame[2]
        if frame[0] == "exit":
            kept = frame[3]
            built = results[len(results) - len(kept) :]
            del results[len(results) - len(kept) :]
            if isinstance(source, dict):
                members = {k: v for k, v in zip(kept, built, strict=True) if v is not MISSING}
                results.append(MISSING if source and not members else members)
            else:
                items: list[Any] = [None] * len(source)
                for i, v in zip(kept, built, strict=True):
                    items[i] = None if v is MISSING else v
                results.append(items)
        elif isinstance(source, dict | list):
            keys = source.keys() if isinstance(source, dict) else range(len(source))
            kept = [k for k in keys if (*path, k) not in ignored]
            stack.append(("exit", path, source, kept))
            stack.extend(("enter", (*path, k), source[k]) for k in reversed(kept))
        else:
            results.append(source)
    return results[0]
