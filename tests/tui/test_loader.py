"""The worker's side of the TUI: a backlog is listed first, then analysed as the report would."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from mcpspy.analysis.context_cost import context_cost
from mcpspy.capture.format import encode_header, encode_line, encode_record
from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import LineRecord, Stream
from mcpspy.filters import parse_filter
from mcpspy.replay_policy import open_capture
from mcpspy.tui import loader
from mcpspy.tui.app import InspectorApp
from mcpspy.tui.panes.findings import FindingsPane
from tests.conftest import FIXTURES
from tests.tui.snapshot_app import started_epoch
from tests.tui.test_app import header_of, wait_rows
from tests.tui.test_navigation import HEADER, visible_rows, wait_loaded, write_capture


def repeated(source: Path, times: int, out: Path, lines_only: bool = False) -> Path:
    """``source``'s records ``times`` over, renumbered: a backlog of many slices."""
    capture = read_capture(source)
    lines = [encode_header(capture.header)]
    seq = 0
    for _ in range(times):
        for record in capture.records:
            if lines_only and not isinstance(record, LineRecord):
                continue  # no proxy-stopped: a session still live
            seq += 1
            lines.append(encode_record(replace(record, seq=seq)))
    out.write_bytes(b"".join(lines))
    return out


@pytest.fixture
def small_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loader, "READ_SLICE", 2_000)
    monkeypatch.setattr(loader, "ANALYSE_SLICE", 7)


def gate_analysis(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The worker analyses a first slice, then waits for the event before each next one."""
    gate, slices = threading.Event(), []
    analyse = loader.CaptureFeed._analyse

    def gated(feed: loader.CaptureFeed, limit: int, batch: loader.Batch) -> None:
        slices.append(limit)
        if len(slices) > 1:
            gate.wait(10)
        analyse(feed, limit, batch)

    monkeypatch.setattr(loader.CaptureFeed, "_analyse", gated)
    return gate


def test_a_backlog_is_listed_before_it_is_analysed(tmp_path: Path, small_slices: None) -> None:
    path = repeated(FIXTURES / "lesson-missing-meta.jsonl", 40, tmp_path / "big.jsonl")
    lines = [r for r in read_capture(path).records if isinstance(r, LineRecord)]
    feed = loader.CaptureFeed(path, live=False)
    listed, findings, steps = [], [], 0
    while True:
        batch = feed.step()
        listed += batch.messages
        if feed.reader.at_end:  # listed to the end: this step begins the analysis
            findings += batch.findings
            break
        assert not batch.findings and not feed.analyzer.messages  # nothing analysed while listing
        steps += 1
    assert steps > 3 and [m.seq for m in listed] == [r.seq for r in lines]
    left = [batch.unanalysed]
    while not feed.done:
        batch = feed.step()
        assert not batch.messages  # listed once, never again
        findings += batch.findings
        left.append(batch.unanalysed)
    assert left == sorted(left, reverse=True) and left[-1] == 0 and len(left) > 3
    expected = open_capture(path).analyzer
    assert [(f.id, f.seq, f.message) for f in findings] == [
        (f.id, f.seq, f.message) for f in expected.findings
    ]
    assert any(f.id == "meta.missing" for f in findings)
    by_seq = {m.seq: m for m in expected.messages}
    assert [(m.kind, m.method, m.exchange is None) for m in listed] == [
        (by_seq[m.seq].kind, by_seq[m.seq].method, by_seq[m.seq].exchange is None) for m in listed
    ]


@pytest.mark.parametrize("times", [1, 40])
def test_the_last_slice_of_a_backlog_is_listed_alone_then_analysed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, times: int
) -> None:
    """The list is whole on screen before the analysis begins (one slice, or many); live lines that
    come after it are listed and analysed in one step."""
    monkeypatch.setattr(loader, "READ_SLICE", 2_000)
    path = repeated(
        FIXTURES / "lesson-missing-meta.jsonl", times, tmp_path / "backlog.jsonl", lines_only=True
    )
    feed = loader.CaptureFeed(path, live=True)
    batch = feed.step()
    while batch.reading:
        batch = feed.step()
    assert batch.messages and not batch.findings and not feed.analyzer.messages  # listed, alone
    assert batch.unanalysed > 0
    while batch.unanalysed:
        batch = feed.step()
    assert feed.analyzer.messages
    with path.open("ab") as capture:  # live traffic: listed and analysed at once
        body = b'{"jsonrpc":"2.0","id":"late","method":"tools/list"}'
        capture.write(encode_record(LineRecord(10_000, 9.0, Stream.C2S, body)))
    batch = feed.step()
    assert [m.seq for m in batch.messages] == [10_000] and batch.unanalysed == 0
    assert feed.analyzer.messages[-1].seq == 10_000
    feed.close()


async def test_a_filter_typed_while_analysing_is_applied_again_once_analysed(
    tmp_path: Path, small_slices: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = repeated(FIXTURES / "lesson-missing-meta.jsonl", 40, tmp_path / "big.jsonl")
    expected = open_capture(path).analyzer
    flagged = [m.seq for m in expected.messages if m.findings]
    gate = gate_analysis(monkeypatch)
    app = InspectorApp(path, live=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_rows(app, pilot, len(expected.messages))
        assert "analysing" in header_of(app) and not app.loaded
        app.message_list.set_filter(parse_filter("is:flagged"))
        assert len(app.rows) < len(flagged)  # most of the findings are still to come
        gate.set()
        for _ in range(100):
            if app.loaded:
                break
            await pilot.pause(0.05)
        await pilot.pause()
        assert app.loaded and [m.seq for m in app.rows] == flagged
        assert "analysing" not in header_of(app)


def named_calls(n: int) -> list[tuple[Stream, bytes]]:
    """``n`` tools/call requests, each naming its tool, and their replies: rows that change when paired."""
    lines = []
    for i in range(1, n + 1):
        call = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": f"tool{i % 7}"}}
        lines.append((Stream.C2S, orjson.dumps(call)))
        lines.append((Stream.S2C, orjson.dumps({"jsonrpc": "2.0", "id": i, "result": {"content": []}})))
    return lines


async def drawn_after_load(path: Path, *keys: str) -> list[str]:
    """The rows on screen once an app has loaded ``path`` at its own pace, after ``keys``."""
    app = InspectorApp(path, live=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press(*keys)
        await pilot.pause()
        return visible_rows(app.message_list)


@pytest.mark.parametrize("keys", [(), ("g",)])
async def test_rows_drawn_before_their_analysis_are_drawn_again_as_analysed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keys: tuple[str, ...]
) -> None:
    """Listed and drawn before it is paired, a row ends as one drawn after: latencies, what a reply's
    request names, however many rows one batch of the analysis changes at once."""
    path = write_capture(tmp_path / "calls.jsonl", named_calls(1500))
    expected = await drawn_after_load(path, *keys)
    monkeypatch.setattr(loader, "READ_SLICE", 20_000)
    monkeypatch.setattr(loader, "ANALYSE_SLICE", 7)
    gate = gate_analysis(monkeypatch)
    app = InspectorApp(path, live=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_rows(app, pilot, 3000)
        await pilot.press(*keys)
        await pilot.pause()
        before = visible_rows(app.message_list)
        assert not app.loaded and sum("ms" in row for row in before) <= 4  # drawn, not yet paired
        assert any("tools/call tool" in row for row in before)  # a request names its tool unpaired
        gate.set()
        await wait_loaded(app, pilot)
        await pilot.pause()
        after = visible_rows(app.message_list)
    assert after == expected != before
    assert sum("ms" in row for row in after) >= len(after) // 2 - 1  # every reply: its latency


async def test_seqs_repeated_and_out_of_order_list_every_line_and_jump_to_the_last_of_a_seq(
    tmp_path: Path,
) -> None:
    """A hand-made capture's seqs need not be unique nor in order: every line is a row, each drawn,
    and a seq names its last row (as the indexes made in bulk keep the last)."""
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "\x1b[2Jx"}}
    reply = {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}
    lines = [(3, call), (3, reply), (1, call), (2, reply), (3, {"jsonrpc": "2.0", "method": "n"})]
    body = [encode_header(HEADER)]
    for seq, message in lines:
        stream = Stream.C2S if "method" in message else Stream.S2C
        body.append(encode_line(seq, seq / 1000, stream, orjson.dumps(message)))
    path = tmp_path / "seqs.jsonl"
    path.write_bytes(b"".join(body))
    app = InspectorApp(path, live=False)
    async with app.run_test(size=(160, 30)) as pilot:
        await wait_loaded(app, pilot)
        table = app.message_list
        drawn = [table.row_text(row) for row in range(len(table.rows))]
        assert [m.seq for m in app.rows] == [3, 3, 1, 2, 3] and "\x1b" not in "".join(drawn)
        assert "tools/call \\x1b[2Jx" in drawn[0]  # what it names, made visible
        assert table.jump_to(3) and table.cursor == 4
        assert table.jump_to(1) and table.cursor == 2 and not table.jump_to(7)


async def test_a_live_backlog_says_when_its_analysis_is_done(tmp_path: Path, small_slices: None) -> None:
    """Nothing new arrives after the backlog, yet the header stops saying 'analysing'."""
    path = repeated(FIXTURES / "lesson-missing-meta.jsonl", 40, tmp_path / "live.jsonl", lines_only=True)
    with path.open("ab") as capture:  # a last slice whose analysis changes nothing on screen
        for seq in range(40 * 4 + 1, 40 * 4 + 21):
            capture.write(encode_record(LineRecord(seq, 1.0, Stream.ERR, b"log line")))
    app = InspectorApp(path, live=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_rows(app, pilot, 40 * 4 + 20)
        for _ in range(100):
            if "analysing" not in header_of(app) and "reading" not in header_of(app):
                break
            await pilot.pause(0.05)
        assert "analysing" not in header_of(app) and "reading" not in header_of(app)
        assert not app.loaded and app.query_one(FindingsPane).findings  # still live, and analysed


def test_the_snapshot_carries_the_latest_tools_list_cost_as_the_report_counts_it() -> None:
    path = FIXTURES / "tools-schema-dialect.jsonl"
    feed = loader.CaptureFeed(path, live=False)
    assert feed.snapshot().context_tokens is None
    while not feed.done:
        feed.step()
    analyzer = open_capture(path).analyzer
    expected = context_cost(analyzer.exchanges, analyzer.message).tools.tokens
    assert expected > 0 and feed.snapshot().context_tokens == expected
    feed.close()


@pytest.mark.parametrize(
    ("age", "rules"), [(42.0, {"pairing.slow"}), (61.0, {"pairing.slow", "request.no-progress-token"})]
)
def test_a_live_feed_judges_waiting_by_the_apps_clock(age: float, rules: set[str]) -> None:
    """One clock for "now": the ages shown and the slowness judged agree (the feed ran on its own before)."""
    path = FIXTURES / "pairing-unanswered.jsonl"
    started = started_epoch(path)
    feed = loader.CaptureFeed(path, live=True, slow_after=30.0, clock=lambda: started + age)
    findings = []
    for _ in range(20):
        findings += feed.step().findings
    assert {str(f.id) for f in findings} == rules
    assert feed.session_now() == age


def test_a_batch_whose_only_news_is_progress_is_posted_after_a_merge() -> None:
    """The worker merges steps before it posts them: the analysis catching up (a live capture's
    last request analysed, nothing else changed) must survive the merge, or the header says
    "analysing" until the next line comes."""
    held = loader.Batch()
    held.merge(loader.Batch(progressed=True))
    assert held and held.progressed and held.unanalysed == 0
