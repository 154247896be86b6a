"""The one renderer of untrusted text: no control character or bidi override survives it."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from mcpspy.terminal import visible, visible_bytes, visible_line

FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def test_escape_sequences_are_shown_not_sent() -> None:
    assert visible("\x1b]0;PWNED\x07x") == "\\x1b]0;PWNED\\x07x"
    assert visible("\x9b2J") == "\\x9b2J"
    assert visible("abc\u202edef") == "abc\\u202edef"
    assert visible("a\tb\nc") == "a\tb\nc"
    assert visible_line("a\tb\nc\r") == "a\\x09b\\x0ac\\x0d"


def test_bytes_invalid_utf8_and_limit() -> None:
    assert visible_bytes(b"\xff\x1b[2J") == "\\xff\\x1b[2J"
    assert visible_bytes(b"abcdef", limit=3) == "abc…"


@given(st.text())
def test_no_control_survives(text: str) -> None:
    assert not FORBIDDEN.search(visible_line(text))
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", visible(text))


@given(st.binary())
def test_no_control_survives_bytes(data: bytes) -> None:
    assert not FORBIDDEN.search(visible_bytes(data))
