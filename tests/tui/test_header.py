"""The header line fits the terminal, shortening the capture's name and dropping the era first."""

from __future__ import annotations

from collections import Counter

from mcpspy.analysis.model import Era, Severity
from mcpspy.tui.loader import Snapshot
from mcpspy.tui.panes.header import HeaderState, header_text

FILE = "20261203T080802.538Z-helpdesk-23246.jsonl"


def plain(state: HeaderState, width: int) -> str:
    return header_text(state, width).plain


def test_header_shortens_to_fit() -> None:
    snapshot = Snapshot(era=Era.MODERN, protocol_version="2026-07-28", pending_count=2, name="helpdesk")
    state = HeaderState(
        FILE, snapshot, Counter({Severity.ERROR: 3}), 10, 10, False, 0, True, False, None, None
    )
    wide = plain(state, 160)
    assert wide.startswith(FILE) and "2026-07-28  10 msgs  2 pending  ✖ 3 ▲ 0 · 0  following" in wide
    narrow = plain(state, 80)
    assert len(narrow) <= 80 and narrow.startswith("helpdesk  2026-07-28")
    filtered = HeaderState(
        FILE, snapshot, Counter(), 4, 10, False, 0, False, True, "dir:s2c method:tools/*", "torn line"
    )
    first, problem = plain(filtered, 80).split("\n")
    assert len(first) <= 80 and first.startswith("helpdesk  4/10 msgs")
    assert "paused  ended  filter: dir:s2c" in first and first.endswith("…")
    assert "filter: dir:s2c method:tools/*" in plain(filtered, 120).split("\n")[0]
    assert "2026-07-28" not in first and problem == "torn line"  # the era went first


def test_header_says_a_backlog_is_read_then_analysed() -> None:
    snapshot = Snapshot(era=Era.MODERN, protocol_version="2026-07-28", name="helpdesk")
    reading = HeaderState(FILE, snapshot, Counter(), 5000, 5000, True, 5000, True, False, None, None)
    assert "reading…" in plain(reading, 160) and "analysing" not in plain(reading, 160)
    analysing = HeaderState(
        FILE, snapshot, Counter(), 100_000, 100_000, False, 42_000, True, False, None, None
    )
    assert "analysing, 42,000 to go" in plain(analysing, 160)
    done = HeaderState(FILE, snapshot, Counter(), 100_000, 100_000, False, 0, True, True, None, None)
    assert "analysing" not in plain(done, 160) and "reading" not in plain(done, 160)


def test_header_shows_what_the_latest_tools_list_costs_once_one_is_answered() -> None:
    unlisted = Snapshot(era=Era.MODERN, name="helpdesk")
    state = HeaderState(FILE, unlisted, Counter(), 4, 4, False, 0, True, True, None, None)
    assert "ctx" not in plain(state, 160)
    listed = Snapshot(era=Era.MODERN, name="helpdesk", context_tokens=12_345)
    state = HeaderState(FILE, listed, Counter(), 4, 4, False, 0, True, True, None, None)
    assert "· 0  ctx ~12,345 tok  ended" in plain(state, 160)


def test_the_context_cost_is_the_first_to_go_when_the_header_is_short() -> None:
    listed = Snapshot(era=Era.MODERN, protocol_version="2026-07-28", name="helpdesk", context_tokens=99)
    state = HeaderState(FILE, listed, Counter(), 4, 10, False, 0, True, True, "dir:s2c method:tools/*", None)
    narrow = plain(state, 80)
    assert "ctx" not in narrow and "filter: dir:s2c" in narrow and len(narrow) <= 80
    assert "ctx ~99 tok" in plain(state, 200)
