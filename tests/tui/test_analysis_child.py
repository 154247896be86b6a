"""A finished capture analysed in a child process: the app's messages, findings and exchanges are
the ones the worker's own analysis makes, line for line, on every fixture."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpspy.analysis.model import Exchange, Finding, Message
from mcpspy.capture.format import encode_line
from mcpspy.capture.header_format import encode_header
from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import LineRecord, Stream
from mcpspy.tui import analysis_child, loader
from mcpspy.tui.analysis_child import AnalysisChild
from mcpspy.tui.listed import ListedMessage
from tests.conftest import FIXTURES
from tests.tui.test_loader import repeated

ALL_FIXTURES = sorted(FIXTURES.glob("*.jsonl"))


def _exchange(x: Exchange | None) -> Any:
    if x is None:
        return None
    return (x.request_seq, x.stream, x.id, x.method, x.sent_t, x.reply_seq, x.reply_t, x.state,
            x.out_of_order, x.cancel_seq, x.long_lived, x.version)  # fmt: skip


def _finding(f: Finding) -> Any:
    repeats = (f.repeats.count, f.repeats.last_seq) if f.repeats is not None else None
    return (
        f.rule.id,
        f.seq,
        f.stream,
        f.sentence,
        f.related_seq,
        repeats,
        f.dropped_by,
        f.judged,
        f.injected,
    )


def _message(m: Message) -> Any:
    fields = (m.seq, m.t, m.stream, m.kind, m.raw, m.terminated, m.payload, m.id, m.method, m.glued_prefix)
    return (*fields, m.params, m.meta, _exchange(m.exchange), [_finding(f) for f in m.findings], m.injected)


def _seen(path: Path, in_child: bool) -> dict[str, Any]:
    feed = loader.CaptureFeed(path, live=False, in_child=in_child)
    assert feed.mirrored is in_child  # this system forks: the child is the one asked for
    return _drained(feed)


def _drained(feed: loader.CaptureFeed) -> dict[str, Any]:
    """Everything the app would be told, stepped to the end, and the messages as they stand then."""
    messages: list[Message] = []
    findings: list[Finding] = []
    changed: set[int] = set()
    problems: list[str] = []
    steps = 0
    while not feed.done:
        batch = feed.step()
        messages += batch.messages
        findings += batch.findings
        changed |= batch.changed
        problems += batch.problems
        steps += 1
        assert steps < 10_000, "the feed never ended"
    snapshot = feed.snapshot()
    feed.close()
    return {
        "messages": [_message(m) for m in messages],
        "findings": [_finding(f) for f in findings],  # as they stand at the end (a tally grows)
        "changed": changed,
        "problems": problems,
        "snapshot": (
            snapshot.era,
            snapshot.protocol_version,
            snapshot.pending_count,
            [_exchange(x) for x in snapshot.pending],
            [_exchange(x) for x in snapshot.exchanges],
            snapshot.context_tokens,
        ),
    }


def _same(path: Path) -> None:
    by_thread, by_child = _seen(path, in_child=False), _seen(path, in_child=True)
    changed_by_child = by_child.pop("changed")
    changed_by_thread = by_thread.pop("changed")
    assert by_child == by_thread
    assert changed_by_thread <= changed_by_child | {m[0] for m in by_child["messages"]}


@pytest.mark.parametrize("fixture", ALL_FIXTURES, ids=lambda p: p.stem)
def test_every_fixture_reads_the_same_analysed_in_a_child(fixture: Path) -> None:
    _same(fixture)


@pytest.mark.parametrize("behind", [False, True])
def test_a_capture_of_several_slices_reads_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, behind: bool
) -> None:
    """Several frames, told as the child writes them, or all at once while this side has listed
    one small slice (its frames name lines not listed yet)."""
    if behind:
        monkeypatch.setattr(loader, "READ_SLICE", 1 << 14)
        frames = AnalysisChild.frames

        def all_at_once(child: AnalysisChild, wait: float = 0.0) -> list[Any]:
            told = []
            while not child.done:
                told += frames(child, 0.05)
            return told

        monkeypatch.setattr(AnalysisChild, "frames", all_at_once)
    path = repeated(FIXTURES / "lesson-missing-meta.jsonl", 3_000, tmp_path / "big.jsonl")
    assert path.stat().st_size > 1 << 20  # more than a slice: several frames
    _same(path)


LINES = st.lists(
    st.tuples(
        st.sampled_from([Stream.C2S, Stream.S2C, Stream.ERR]),
        st.one_of(
            st.sampled_from(
                [
                    b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
                    b'{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}',
                    b'{"jsonrpc":"2.0","id":1,"result":{}}\r',
                    b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
                    b"{",
                    b'  "jsonrpc": "2.0", "id": 2,',
                    b'  "result": {}',
                    b'  "jsonrpc": "2.0", "id": 1,',
                    b'  "result": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}',
                    b"}",
                    b'ready {"jsonrpc":"2.0","id":3,"result":{}}',
                ]
            ),
            st.binary(max_size=30),
        ),
        st.booleans(),
    ),
    max_size=40,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(LINES, st.one_of(st.none(), st.lists(st.integers(1, 6), min_size=40, max_size=40)))
def test_any_capture_reads_the_same_analysed_in_a_child(
    tmp_path: Path, lines: list[Any], seqs: list[int] | None
) -> None:
    """Stray, pretty-printed, glued, CRLF, torn lines, and seqs that repeat: a child's analysis is the
    worker's."""
    path = tmp_path / "any.jsonl"
    records = [
        encode_line(seqs[n] if seqs else n + 1, n / 10, stream, data, True)
        for n, (stream, data, _) in enumerate(lines)
    ]
    if lines and lines[-1][2]:  # the proxy stopped while writing the last record
        records[-1] = records[-1][: len(records[-1]) // 2]
    path.write_bytes(encode_header(read_capture(FIXTURES / "clean-modern.jsonl").header) + b"".join(records))
    _same(path)


def test_listed_rows_read_after_the_childs_analysis_keep_it(tmp_path: Path) -> None:
    path = repeated(FIXTURES / "lesson-missing-meta.jsonl", 50, tmp_path / "some.jsonl")
    feed = loader.CaptureFeed(path, live=False, in_child=True)
    messages: list[Message] = []
    while not feed.done:
        messages += feed.step().messages
    feed.close()
    unread = [m for m in messages if type(m) is ListedMessage]
    assert unread, "every row was read: nothing to check"
    replies = [m for m in unread if m.exchange is not None and m.exchange.reply_seq == m.seq]
    assert replies
    for message in replies:
        method, exchange = message.method, message.exchange
        assert type(message) is ListedMessage  # the analysis's fields read without reading the line
        assert message.kind.value in ("response", "error")  # now read
        assert (message.method, message.exchange) == (method, exchange)


def test_a_child_that_dies_before_it_says_anything_leaves_the_analysis_to_the_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = repeated(FIXTURES / "lesson-missing-meta.jsonl", 50, tmp_path / "some.jsonl")
    monkeypatch.setattr(analysis_child, "_child", lambda *_: os.kill(os.getpid(), signal.SIGKILL))
    feed = loader.CaptureFeed(path, live=False, in_child=True)
    assert feed.mirrored
    seen = _drained(feed)
    assert not feed.mirrored  # the worker's
    assert seen == _seen(path, in_child=False)


def test_a_child_that_fails_after_it_said_part_says_why_and_what_it_said_stands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = repeated(FIXTURES / "lesson-missing-meta.jsonl", 3_000, tmp_path / "big.jsonl")
    analyse = analysis_child.analyse

    def fails_after_one_frame(slices: Any, slow_after: float, write: Any) -> None:
        def once(frame: Any) -> None:
            write(frame)  # taken first, whenever the app reads the failure
            raise RuntimeError("the analysis broke")

        analyse(slices, slow_after, once)

    monkeypatch.setattr(analysis_child, "analyse", fails_after_one_frame)
    feed = loader.CaptureFeed(path, live=False, in_child=True)
    seen = _drained(feed)
    assert feed.done and feed.mirrored
    assert len(seen["problems"]) == 1 and "the analysis broke" in seen["problems"][0]
    assert len(seen["messages"]) == len(_seen(path, in_child=False)["messages"])  # every line listed
    analysed = [m for m in seen["messages"] if m[12] is not None]  # with an exchange
    assert 0 < len(analysed) < len(seen["messages"]) / 2  # the first frame's lines, not the rest


def _children() -> list[int]:
    """This process's children still running or unreaped (any: a test process has no other)."""
    task = Path(f"/proc/{os.getpid()}/task")
    found = []
    for thread in task.iterdir():
        children = (thread / "children").read_text().split()
        found += [int(pid) for pid in children]
    return found


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task").exists(), reason="Linux's /proc")
async def test_the_app_analyses_a_big_capture_in_a_child_and_leaves_none_behind(tmp_path: Path) -> None:

    app, started = _app_forking(
        repeated(FIXTURES / "lesson-missing-meta.jsonl", 3_000, tmp_path / "big.jsonl")
    )
    async with app.run_test(size=(120, 32)) as pilot:
        for _ in range(400):
            if app.loaded:
                break
            await pilot.pause(0.05)
        assert app.loaded
        replies = [m for m in app.rows if m.kind.value == "error"]
        assert replies and all(m.exchange is not None and m.method == m.exchange.method for m in replies)
    _gone(started)


def _app_forking(path: Path) -> tuple[Any, set[int]]:
    """The app for a big finished capture, and the one child it forks as it is made (before Textual)."""
    from mcpspy.tui.app import InspectorApp

    before = set(_children())
    app = InspectorApp(path, live=False)
    started = set(_children()) - before
    assert len(started) == 1
    return app, started


def _gone(children: set[int]) -> None:
    """Reaped, soon: a child is reaped by a thread of its own once it has let its memory go."""
    for _ in range(100):
        if not children & set(_children()):
            return
        time.sleep(0.05)
    assert not children & set(_children())


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task").exists(), reason="Linux's /proc")
async def test_an_app_closed_before_the_analysis_ends_stops_its_child(tmp_path: Path) -> None:

    app, started = _app_forking(
        repeated(FIXTURES / "lesson-missing-meta.jsonl", 20_000, tmp_path / "more.jsonl")
    )
    async with app.run_test(size=(120, 32)):
        pass  # closed at once: the worker, cancelled, closes its feed at its next step
    _gone(started)


def test_a_pretty_printed_tools_list_reply_is_measured_as_the_worker_measures_it(tmp_path: Path) -> None:
    lines = [
        (Stream.C2S, b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'),
        (Stream.S2C, b"{"),
        (Stream.S2C, b'  "jsonrpc": "2.0", "id": 1,'),
        (Stream.S2C, b'  "result": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}'),
        (Stream.S2C, b"}"),
    ]
    path = tmp_path / "pretty.jsonl"
    records = [encode_line(n, n / 10, stream, data, True) for n, (stream, data) in enumerate(lines, 1)]
    path.write_bytes(encode_header(read_capture(FIXTURES / "clean-modern.jsonl").header) + b"".join(records))
    assert _seen(path, in_child=False)["snapshot"][-1] is not None  # the tokens of the tools listed
    _same(path)


def test_frames_taken_after_everything_is_listed_name_no_later_line_by_seq(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line past a frame's lines that repeats an earlier seq: the frame's exchanges stay on their own
    lines, though this side has listed the repeat before it takes the frame."""
    path = repeated(FIXTURES / "lesson-missing-meta.jsonl", 3_000, tmp_path / "big.jsonl")
    first = read_capture(path).records[0]
    assert isinstance(first, LineRecord)
    with path.open("ab") as out:  # the first request's seq again, on the capture's last line
        out.write(encode_line(first.seq, 999.0, first.stream, first.data, True))
    listed_all: list[loader.CaptureFeed] = []
    frames = AnalysisChild.frames

    def once_all_is_listed(child: AnalysisChild, wait: float = 0.0) -> list[Any]:
        return frames(child, wait) if listed_all and listed_all[0].reader.at_end else []

    monkeypatch.setattr(AnalysisChild, "frames", once_all_is_listed)
    feed = loader.CaptureFeed(path, live=False, in_child=True)
    listed_all.append(feed)
    by_child = _drained(feed)
    monkeypatch.undo()
    by_thread = _seen(path, in_child=False)
    by_child.pop("changed"), by_thread.pop("changed")
    assert by_child == by_thread


def test_a_once_per_session_finding_on_every_line_is_told_once_a_frame(tmp_path: Path) -> None:
    """stdout.crlf on each of thousands of lines, over several frames: one finding, its tally whole."""
    path = repeated(FIXTURES / "stdout-crlf.jsonl", 2_000, tmp_path / "crlf.jsonl")
    assert path.stat().st_size > 1 << 20
    _same(path)
    seen = _seen(path, in_child=True)
    crlf = [f for f in seen["findings"] if f[0].value == "stdout.crlf"]
    assert len(crlf) == 1 and crlf[0][5][0] == 2_000  # one finding, standing for each such line


def test_the_child_runs_none_of_the_apps_signal_handlers(tmp_path: Path) -> None:
    """A resize (SIGWINCH) reaches the terminal's whole process group: the child must not run the
    handler the app installed (Textual's), nor stop for it."""
    path = repeated(FIXTURES / "lesson-missing-meta.jsonl", 3_000, tmp_path / "big.jsonl")
    ran_in = tmp_path / "ran-in"

    def handler(signum: int, frame: object) -> None:
        with ran_in.open("a") as out:
            out.write(f"{os.getpid()}\n")

    previous = signal.signal(signal.SIGWINCH, handler)
    try:
        child = AnalysisChild.start(path, 30.0)
        assert child is not None
        for _ in range(5):
            os.kill(child.pid, signal.SIGWINCH)
            time.sleep(0.01)
        frames: list[Any] = []
        while not child.done:
            frames += child.frames(0.05)
        child.close()
    finally:
        signal.signal(signal.SIGWINCH, previous)
    assert frames[-1][-1]  # analysed to the end
    assert not ran_in.exists()  # only the child was signalled: the handler never ran


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task").exists(), reason="Linux's /proc")
async def test_another_finished_capture_opened_in_the_app_is_analysed_in_a_child_its_worker_forks(
    tmp_path: Path,
) -> None:
    """Forked from the worker thread while Textual runs: the same analysis, and nothing left behind."""
    from mcpspy.tui.app import InspectorApp

    first = repeated(FIXTURES / "clean-modern.jsonl", 2, tmp_path / "small.jsonl")
    second = repeated(FIXTURES / "lesson-missing-meta.jsonl", 3_000, tmp_path / "big.jsonl")
    before = set(_children())
    app = InspectorApp(first, live=False)
    assert not set(_children()) - before  # small: analysed by the worker
    async with app.run_test(size=(120, 32)) as pilot:
        app.open_session(second, live=False)
        forked: set[int] = set()
        for _ in range(400):
            forked |= set(_children()) - before
            if app.loaded:
                break
            await pilot.pause(0.02)
        assert app.loaded and forked
        by_thread = _seen(second, in_child=False)
        shown = [_message(m) for m in app.message_list.all_messages]
        assert shown == by_thread["messages"]
    _gone(forked)
