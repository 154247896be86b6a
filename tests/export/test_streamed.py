"""HTML and HAR written as they are made: the pieces make the same document, and none is the whole page."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpspy.model.summary import Summary, build_summary
from mcpspy.replay_policy import open_capture
from mcpspy.report.har import har_object, har_pieces, render_har
from mcpspy.report.html import html_pieces, render_html
from tests.conftest import FIXTURES, MCPSPY
from tests.export.synthetic import CaptureBuilder, big_capture, mixed_capture, reply
from tests.export.test_html import hostile_capture


def summary_of(path: Path) -> Summary:
    opened = open_capture(path)
    return build_summary(opened.capture, path, opened.analyzer)


def whole_har(summary: Summary) -> str:
    """The HAR as one orjson dump of the whole object: what the pieces must add up to, byte for byte."""
    return orjson.dumps(har_object(summary), option=orjson.OPT_INDENT_2).decode() + "\n"


def test_the_har_pieces_are_the_whole_dump(tmp_path: Path) -> None:
    captures = [
        *sorted(FIXTURES.glob("*.jsonl")),
        mixed_capture(tmp_path / "mixed.jsonl"),
        hostile_capture(tmp_path / "hostile.jsonl"),
    ]
    empty = CaptureBuilder("no-exchanges")
    empty.line("err", "nothing but stderr")
    captures.append(empty.write(tmp_path / "empty.jsonl"))
    for capture in captures:
        summary = summary_of(capture)
        assert render_har(summary) == whole_har(summary), capture.name


TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=TEXT,
    tool=st.one_of(TEXT, st.just('"entries": "@ENTRIES@"')),
    answer=st.one_of(TEXT, st.just('\n      ],\n  "entries": [')),
    stray=TEXT,
)
def test_any_text_in_the_capture_keeps_the_har_exact(
    tmp_path: Path, name: str, tool: str, answer: str, stray: str
) -> None:
    b = CaptureBuilder("any-text", name=name or "x")
    b.line("s2c", stray or "x")
    b.exchange(1, tool)
    b.line("c2s", {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool}})
    r = reply(2, "ok")
    r["result"]["content"][0]["text"] = answer
    b.line("s2c", r)
    summary = summary_of(b.write(tmp_path / "any.jsonl"))
    text = render_har(summary)
    assert text == whole_har(summary)
    assert len(orjson.loads(text)["log"]["entries"]) == 2


def test_a_big_page_is_made_a_row_at_a_time(tmp_path: Path) -> None:
    summary = summary_of(big_capture(tmp_path / "big.jsonl", 7000))
    for pieces in (list(html_pieces(summary)), list(har_pieces(summary))):
        assert len(pieces) > 3000  # a piece per row or entry, not one page
        assert max(map(len, pieces)) < 64 * 1024  # the biggest is the head (style, script), not the rows


def test_report_writes_the_same_page_it_would_have_built_whole(tmp_path: Path) -> None:
    capture = hostile_capture(tmp_path / "hostile.jsonl")
    summary = summary_of(capture)
    for form, whole in (("html", render_html(summary)), ("har", render_har(summary))):
        out = tmp_path / f"page.{form}"
        base = [*MCPSPY, "report", str(capture), "--format", form, "--fail-on", "never"]
        done = subprocess.run([*base, "--out", str(out)], capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert out.read_text(encoding="utf-8") == whole and out.stat().st_mode & 0o777 == 0o600
        printed = subprocess.run(base, capture_output=True, timeout=120)
        assert printed.returncode == 0 and printed.stdout.decode("utf-8") == whole


def test_a_page_cut_short_leaves_the_old_file_and_no_piece_of_the_new(tmp_path: Path) -> None:
    """Written in pieces, --out is still replaced whole or not at all."""
    from mcpspy.capture.private import write_output

    out = tmp_path / "page.html"
    out.write_bytes(b"the old page")

    def pieces() -> Iterator[bytes]:
        yield b"<!DOCTYPE html>"
        raise MemoryError  # whatever stops the making half-way

    with pytest.raises(MemoryError):
        write_output(out, pieces())
    assert out.read_bytes() == b"the old page" and sorted(tmp_path.iterdir()) == [out]
