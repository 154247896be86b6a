"""JSON with comments and trailing commas (VS Code's JSONC), read without losing a byte.

``blank`` turns JSONC into plain JSON *of the same length*: each comment
character becomes a space (line breaks stay) and each trailing comma a space.
Every offset into the blanked text is the same offset into the original, so
the span of a value found in one is its span in the other: edits are made to
the user's text, comments and all, and nothing else moves.
"""

from __future__ import annotations

import re

# A string (unrolled loop: linear, no backtracking), a // comment, a /* */ comment, or
# one never closed (to the end, once: a file of unclosed ``/*`` costs O(n), not O(n^2)).
_COMMENTS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|//[^\n\r]*|/\*(?:.*?\*/|.*)', re.DOTALL)
# A string, or a comma whose next significant character closes its object or array.
_TRAILING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|,(?=[ \t\r\n]*[}\]])', re.DOTALL)
_BREAKS = re.compile(r"[^\r\n]")


def _spaces(match: re.Match[str]) -> str:
    found = match.group()
    if found.startswith('"') or (found.startswith("/*") and (len(found) < 4 or not found.endswith("*/"))):
        return found  # a string, or a comment never closed: left for the JSON reader to refuse
    return _BREAKS.sub(" ", found)


def blank_comments(text: str) -> str:
    """``text`` with comments turned to spaces (trailing commas kept); same length, same line breaks."""
    return _COMMENTS.sub(_spaces, text) if "/" in text else text


def blank(text: str) -> str:
    """``text`` with comments and trailing commas turned to spaces; same length, same line breaks."""
    without_comments = blank_comments(text)
    return _TRAILING.sub(_spaces, without_comments) if "," in text else without_comments
