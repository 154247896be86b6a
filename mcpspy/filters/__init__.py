"""The filter language of the TUI's `/` bar. Pure: no I/O, no Textual.

``method:tools/* id:3 dir:s2c kind:notification is:pending is:flagged
severity:error latency:>500ms server:github``, free words and ``"quoted phrases"``; spaces
mean "and", ``OR`` (or ``or``, ``|``) means or, a leading ``-`` (or ``!``, ``NOT``)
negates, parentheses group. ``parse_filter`` raises FilterError saying what
is wrong and at which column. The fields and their help are in terms.FIELDS.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcpspy.analysis.model import Message
from mcpspy.filters.parse import parse_term
from mcpspy.filters.terms import FIELDS, FilterError, ServerOf, Term

__all__ = ["FIELDS", "SYNTAX_HELP", "Filter", "FilterError", "parse_filter"]

SYNTAX_HELP = (
    ("a b", "both (a space means and)"),
    ("a OR b", "either (also a or b, a | b); and binds tighter: a OR b c is a OR (b c)"),
    ("-a", "not a (also !a, NOT a)"),
    ("( )", "grouping: dir:s2c (method:tools/* OR is:flagged)"),
    ('"two words"', "a phrase, found anywhere in the line or the method (any case)"),
    ("word", "a word, found the same way"),
)


@dataclass(frozen=True)
class Filter:
    text: str
    term: Term

    def __call__(self, message: Message) -> bool:
        return self.term(message)


def _everything(message: Message) -> bool:
    return True


def parse_filter(text: str, server_of: ServerOf | None = None) -> Filter:
    """Compile ``text`` (an empty one passes everything); raises FilterError on the first mistake.

    ``server_of``: which server a message is from, as the view names it (for `server:`).
    """
    term = parse_term(text, server_of)
    return Filter(text, term if term is not None else _everything)
