"""The search (`ctrl+f`, then `n`/`N`): which messages have the text, and what to highlight. No Textual.

A message matches when the text is in its line or its method, in any case, as
the filter's free text does. The highlight is the same text as a pattern.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from mcpspy.analysis.model import Message


@dataclass(frozen=True)
class Search:
    text: str
    pattern: re.Pattern[str] = field(init=False, compare=False)
    _needle: bytes = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "pattern", re.compile(re.escape(self.text), re.IGNORECASE))
        object.__setattr__(self, "_needle", self.text.lower().encode())

    def __call__(self, message: Message) -> bool:
        if self._needle in message.raw.lower():
            return True
        return message.method is not None and self.text.lower() in message.method.lower()

    def next_index(self, rows: Sequence[Message], start: int, step: int) -> int | None:
        """The next row after ``start`` (before it, for step -1) that matches, wrapping around."""
        count = len(rows)
        for offset in range(1, count + 1):
            index = (start + step * offset) % count
            if self(rows[index]):
                return index
        return None

    def count(self, rows: Sequence[Message]) -> int:
        return sum(1 for m in rows if self(m))
