"""One replay policy: the same capture gives the same findings in every view, live and offline.

The capture holds a request answered after 40 s (slow, then answered: the
case `report` flagged and `view`/`sessions` did not, before there was one
policy), one still pending at the end (slow, then unanswered), one cancelled
and answered late, and a prompt one.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from mcpspy.analysis.model import AnalysisEvent, FindingRaised
from mcpspy.capture.format import encode_header, encode_record
from mcpspy.capture.records import Event, Header, LifecycleRecord, LineRecord, Record, Stream
from mcpspy.proxy.log import LogSink
from mcpspy.replay_policy import open_capture
from mcpspy.tui.app import InspectorApp
from tests.conftest import MCPSPY
from tests.tui.test_app import header_of

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
RESULT = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": []}
EXPECTED = {
    ("pairing.slow", 3),  # tools/list id 1, answered at 40 s
    ("pairing.slow", 4),  # id 2, never answered
    ("pairing.unanswered", 4),
    ("pairing.reply-after-cancel", 8),
}


def line(seq: int, t: float, stream: Stream, message: dict[str, object]) -> LineRecord:
    return LineRecord(seq, t, stream, orjson.dumps({"jsonrpc": "2.0", **message}))


def request(seq: int, t: float, id_: int) -> LineRecord:
    return line(seq, t, Stream.C2S, {"id": id_, "method": "tools/list", "params": {"_meta": META}})


def reply(seq: int, t: float, id_: int) -> LineRecord:
    return line(seq, t, Stream.S2C, {"id": id_, "result": RESULT})


def records() -> list[Record]:
    cancel = {"method": "notifications/cancelled", "params": {"requestId": 3, "_meta": META}}
    return [
        LifecycleRecord(1, 0.0, Event.SERVER_STARTED, {"pid": 4243}),
        request(2, 0.5, 4),
        request(3, 1.0, 1),
        request(4, 2.0, 2),
        reply(5, 2.1, 4),
        request(6, 3.0, 3),
        line(7, 3.5, Stream.C2S, cancel),
        reply(8, 4.0, 3),
        reply(9, 41.0, 1),  # waited 40 s
        LifecycleRecord(10, 50.0, Event.STDIN_CLOSED),
        LifecycleRecord(11, 50.5, Event.SERVER_EXITED, {"code": 0}),
        LifecycleRecord(12, 50.6, Event.PROXY_STOPPED, {"code": 0}),
    ]


def header() -> Header:
    started = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return Header(
        "1.0", "20261203T000000.000Z-policy-4242", started, ("server",), "policy", "/", "0.1.0", 4242
    )


def write_capture(path: Path, upto: int | None = None) -> None:
    with path.open("wb") as f:
        f.write(encode_header(header()))
        for record in records()[:upto]:
            f.write(encode_record(record))


def severities(pairs: set[tuple[str, int]], path: Path) -> Counter[str]:
    analyzer = open_capture(path).analyzer
    by_id = {f.id: f.severity.label for f in analyzer.findings}
    return Counter(by_id[rule] for rule, _ in pairs)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "sessions"
    home.mkdir(mode=0o700)
    write_capture(home / "20261203T000000.000Z-policy-4242.jsonl")
    return home


def test_the_replay_itself_finds_what_is_expected(home: Path) -> None:
    analyzer = open_capture(next(home.glob("*.jsonl"))).analyzer
    assert {(f.id, f.seq) for f in analyzer.findings} == EXPECTED


def test_report_text_json_and_sessions_agree(home: Path) -> None:
    path = next(home.glob("*.jsonl"))
    report = subprocess.run([*MCPSPY, "report", str(path), "--json"], capture_output=True, timeout=60)
    found = {(f["id"], f["seq"]) for f in json.loads(report.stdout)["findings"]}
    assert found == EXPECTED

    text = subprocess.run([*MCPSPY, "report", str(path)], capture_output=True, text=True, timeout=60).stdout
    assert Counter(re.findall(r"\b(pairing\.[a-z-]+)\b", text)) >= Counter(rule for rule, _ in EXPECTED)

    listing = subprocess.run(
        [*MCPSPY, "sessions", "--json", "--home", str(home)], capture_output=True, timeout=60
    )
    (session,) = json.loads(listing.stdout)
    counted = Counter({k: v for k, v in session["findings"].items() if v})
    assert counted == severities(EXPECTED, path)


class SpySink(LogSink):
    """The --log sink, noting each finding it is given to write (its lean analysis keeps none)."""

    raised: set[tuple[str, int]]

    def _lines(self, events: list[AnalysisEvent]) -> list[str]:
        self.raised.update((e.finding.id, e.finding.seq) for e in events if isinstance(e, FindingRaised))
        return super()._lines(events)


def test_the_live_log_agrees(home: Path) -> None:
    sink = SpySink(lambda data: None, lambda message: None, show_stderr=True)
    sink.raised = set()
    for record in records():
        sink([record])
    assert sink.raised == EXPECTED


def header_counts(app: InspectorApp) -> tuple[int, int, int]:
    match = re.search(r"✖ (\d+) ▲ (\d+) · (\d+)", header_of(app))
    assert match, header_of(app)
    errors, warnings, infos = map(int, match.groups())
    return errors, warnings, infos


async def wait_loaded(app: InspectorApp, pilot: object) -> None:
    for _ in range(200):
        if app.loaded and "ended" in header_of(app):
            return
        await pilot.pause(0.05)  # type: ignore[attr-defined]
    raise AssertionError(header_of(app))


def expected_counts(path: Path) -> tuple[int, int, int]:
    by = severities(EXPECTED, path)
    return by["error"], by["warning"], by["info"]


async def test_the_tui_offline_agrees(home: Path) -> None:
    path = next(home.glob("*.jsonl"))
    app = InspectorApp(path, live=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_loaded(app, pilot)
        assert header_counts(app) == expected_counts(path)


async def test_the_tui_live_agrees(tmp_path: Path) -> None:
    """The capture grows while the TUI follows it; once the proxy's last record lands, the same findings."""
    path = tmp_path / "live.jsonl"
    write_capture(path, upto=5)
    app = InspectorApp(path, live=True)
    async with app.run_test(size=(160, 40)) as pilot:
        for record in records()[5:]:
            await asyncio.sleep(0.05)
            with path.open("ab") as f:
                f.write(encode_record(record))
        await wait_loaded(app, pilot)
        write_capture(tmp_path / "whole.jsonl")
        assert header_counts(app) == expected_counts(tmp_path / "whole.jsonl")
