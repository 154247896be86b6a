"""Where each row of a RowList starts on screen when one column wraps (the findings' sentences).

A list whose rows are one line each needs none of this: row i is line i. When
a column wraps, each row takes as many lines as its text needs at the current
width; ``RowLines`` keeps the first line of every row (a running sum, grown as
rows are appended, redone when the width changes) and finds the row under a
line by bisection. No Textual here.
"""

from __future__ import annotations

import textwrap
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")

WRAP_BELOW = 30  # a wrapping column narrower than this goes under its row, at the list's width
BELOW_INDENT = 2


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken between words where it can."""
    if len(text) <= width:
        return [text]
    return textwrap.wrap(text, width, break_on_hyphens=False, drop_whitespace=True) or [""]


class RowLines(Generic[T]):
    """First screen line of each row, for rows whose height is ``height(row)``."""

    def __init__(self, height: Callable[[T], int]) -> None:
        self.height = height
        self._tops: list[int] = [0]  # tops[i]: row i's first line; tops[-1]: the lines of all rows

    def reset(self) -> None:
        self._tops = [0]

    def extend(self, rows: Sequence[T]) -> None:
        """Take in the rows past the ones counted already."""
        tops, height = self._tops, self.height
        for index in range(len(tops) - 1, len(rows)):
            tops.append(tops[-1] + height(rows[index]))

    @property
    def total(self) -> int:
        return self._tops[-1]

    def top(self, index: int) -> int:
        return self._tops[index]

    def height_of(self, index: int) -> int:
        return self._tops[index + 1] - self._tops[index]

    def row_at(self, line: int) -> tuple[int, int]:
        """The row drawn on ``line``, and which of its lines it is."""
        index = bisect_right(self._tops, line) - 1
        return index, line - self._tops[index]
