"""Where the JSON value that ends a text begins, found in one pass over brackets and quotes.

Stray text glued before a message (`ready {"jsonrpc":...}`) and a message
pretty-printed over several lines are both found by asking, at the end of a
line, where the value the text ends with would begin; then that one place is
parsed. Parsing from every ``{`` in turn answers too, but costs the rest of
the line at each one: minutes for a stray line of a million braces.

If text[i:] is one JSON value, its opening bracket at i matches the closing
bracket that ends the text, so i is the only place worth parsing from. Matching
needs to know which quotes open strings, and stray text before the value may
hold a lone quote. A quote is escaped when an odd run of backslashes precedes
it, whatever the state, so unescaped quotes simply alternate, and the text has
two readings: one starting outside a string, one inside. The scanner keeps a
stack of open brackets for each, and hands each bracket to the reading that is
outside a string there. A JSON value holds an even number of quotes, so the
reading that matches the text's last bracket is the one that saw the value's
first: the match is exact whatever came before.
"""

from __future__ import annotations

import re

# Runs of backslashes, quotes, runs of openers, runs of closers: a line of a million braces is one token.
# Written as one character class and then the rest of the run, so that re skips plain text at C speed
# (an alternation of the four is ten times slower on a long string).
TOKENS = re.compile(rb'[\\"{}\[\]](?:(?<=\\)\\*|(?<=[{\[])[{\[]*|(?<=[}\]])[}\]]*)?')
# The same, read backwards (in reversed text): a quote and the backslashes before it, runs of brackets.
BACKWARD_TOKENS = re.compile(rb'["{}\[\]](?:(?<=")\\*|(?<=[}\]])[}\]]*|(?<=[{\[])[{\[]*)?')
BACKSLASH, QUOTE, BRACE, BRACKET = 0x5C, 0x22, 0x7B, 0x5B
OPENERS = (BRACE, BRACKET)
JSON_WHITESPACE = b" \t\n\r"


class BracketScanner:
    """Text fed in pieces (lines, for a pretty-printed message); positions count from its start."""

    def __init__(self) -> None:
        self.size = 0  # bytes fed so far
        self.first_solid = -1  # position of the first byte that is not JSON whitespace
        self.last_solid = -1  # and of the last
        self._quotes = 0  # parity of the unescaped quotes so far: the reading that is outside a string
        # Per reading, the brackets still open, as runs [position of the first, how many].
        self._open: tuple[list[list[int]], list[list[int]]] = ([], [])
        self._closed_at = -1  # position of the last closing bracket
        self._opened_at: int | None = None  # where the bracket it closed was opened; None: it closed none
        self._backslashes = 0  # the run of backslashes the text ends with

    def feed(self, piece: bytes) -> None:
        base = self.size
        backslashes_end, backslashes = (0, self._backslashes) if self._backslashes else (-1, 0)
        for token in TOKENS.finditer(piece):
            start, end = token.span()
            first = piece[start]
            if first == BACKSLASH:
                backslashes_end, backslashes = end, end - start + (backslashes if start == 0 else 0)
            elif first == QUOTE:
                if backslashes_end != start or backslashes % 2 == 0:
                    self._quotes ^= 1
            elif first in OPENERS:
                self._open[self._quotes].append([base + start, end - start])
            else:
                self._close(base + end - 1, end - start)
        solid = len(piece.rstrip(JSON_WHITESPACE))
        if solid:
            self.last_solid = base + solid - 1
            if self.first_solid < 0:
                self.first_solid = base + len(piece) - len(piece.lstrip(JSON_WHITESPACE))
        self._backslashes = backslashes if backslashes_end == len(piece) else 0
        self.size += len(piece)

    def value_start(self) -> int | None:
        """Where the value that ends the text begins, if the text ends with a closing bracket that
        closes one: the only place from which the rest of the text can parse as one JSON value."""
        if self._closed_at != self.last_solid:
            return None
        return self._opened_at

    def _close(self, last: int, count: int) -> None:
        """A run of ``count`` closing brackets ending at ``last``: each closes the latest still open."""
        runs = self._open[self._quotes]
        opened_at = None
        while count and runs:
            run = runs[-1]
            closed = min(count, run[1])
            run[1] -= closed
            count -= closed
            opened_at = run[0] + run[1]
            if run[1] == 0:
                runs.pop()
        self._closed_at = last
        self._opened_at = None if count else opened_at


def last_value_start(text: bytes) -> int | None:
    """``BracketScanner.value_start`` of a whole text, read from its end: it stops at the
    opener it looks for, so a line of many small values costs only the last one."""
    backwards = text.rstrip(JSON_WHITESPACE)[::-1]
    if backwards[:1] not in (b"}", b"]"):
        return None
    depth, outside = 0, True  # a text ends outside a string
    for token in BACKWARD_TOKENS.finditer(backwards):
        start, end = token.span()
        first = backwards[start]
        if first == QUOTE:
            if (end - start - 1) % 2 == 0:  # not escaped
                outside = not outside
        elif not outside:
            continue
        elif first in OPENERS:
            if depth <= end - start:  # the opener that closes the depth is in this run
                return len(backwards) - (start + depth)
            depth -= end - start
        else:
            depth += end - start
    return None
