"""Untrusted text made safe for a terminal: the one place every text view renders server data through.

A server's bytes may hold escape sequences (OSC 0 retitles the window, OSC 52
writes the clipboard, CSI 2J clears the screen), C1 controls that some
terminals obey as ESC, and bidirectional overrides that make a line read
differently from what it holds. None of them may reach a terminal: each is
shown as a visible escape (``\\x1b``, ``\\u202e``) instead.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls, bidi embeddings/overrides/isolates, and the
# line/paragraph separators that some terminals break lines on.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
_UNSAFE_IN_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control made visible; tabs and newlines are kept (multi-line views)."""
    return _UNSAFE.sub(_escape, text)


def visible_line(text: str) -> str:
    """``text`` for one line of output: tabs and newlines are made visible too."""
    return _UNSAFE_IN_LINE.sub(_escape, text)


def visible_bytes(data: bytes, limit: int | None = None) -> str:
    """Raw bytes as one safe line: invalid UTF-8 as ``\\xNN``, controls made visible, cut at ``limit``."""
    text = data.decode("utf-8", "backslashreplace")
    if limit is not None and len(text) > limit:
        text = text[:limit] + "…"
    return visible_line(text)
