"""The TUI marks a line mcpspy --inject wrote, and shows what the server had written."""

from __future__ import annotations

from pathlib import Path

from mcpspy.capture.records import Event, LifecycleRecord, LineRecord, Stream
from mcpspy.replay_policy import replay_records
from mcpspy.tui.app import InspectorApp
from mcpspy.tui.panes.detail import detail_lines
from mcpspy.tui.panes.findings import FindingsPane
from mcpspy.tui.rows import INJECTED_MARK, message_cells
from tests.inject.test_report_injected import Client
from tests.tui.test_app import header_of, wait_rows

REQUEST = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
REPLY = b'{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'


def test_an_injected_line_is_marked_and_its_original_shown() -> None:
    records = [
        LineRecord(1, 0.0, Stream.C2S, REQUEST),
        LifecycleRecord(
            2,
            0.1,
            Event.INJECTED,
            {
                "fault": "stdout.crlf",
                "spec": "stdout.crlf",
                "pipe": "s2c",
                "before": REPLY.decode() + "\n",
                "after": REPLY.decode() + "\r\n",
                "altered": 3,
                "lines": 1,
                "id": "1",
            },
        ),
        LineRecord(3, 0.1, Stream.S2C, REPLY + b"\r"),
        LineRecord(4, 0.2, Stream.C2S, b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{}}'),
    ]
    analyzer = replay_records(records).analyzer
    injected, plain = analyzer.message(3), analyzer.message(4)
    assert injected is not None and plain is not None
    assert injected.injected is not None and plain.injected is None
    cells = message_cells(injected)
    assert "[injected]" in cells[4][0]
    assert cells[-1][0] == INJECTED_MARK  # not the marks of the findings it provoked
    text = "\n".join(line.plain for line in detail_lines(injected))
    assert "injected by mcpspy --inject stdout.crlf: not the server's doing" in text
    assert "original: " + REPLY.decode() + "⏎" in text
    assert "[injected]" not in message_cells(plain)[4][0]
    assert "injected by" not in "\n".join(line.plain for line in detail_lines(plain))


async def test_the_header_counts_none_of_an_injections_findings(tmp_path: Path) -> None:
    capture = tmp_path / "injected.jsonl"
    client = Client(capture, ["stdout.not-json@tools/list", "pairing.duplicate-response@id=3"])
    client.start()
    assert client.ask(2, "tools/list") and client.ask(3, "tools/list")
    assert client.close() == 0
    app = InspectorApp(capture, live=False)
    async with app.run_test(size=(140, 32)) as pilot:
        await wait_rows(app, pilot, 9)  # 3 requests, 3 replies, the stray line, the duplicate, initialized
        for _ in range(100):
            if not app.unanalysed:
                break
            await pilot.pause(0.05)
        shown = app.query_one(FindingsPane).findings
        assert {(f.id, f.injected) for f in shown} == {
            ("stdout.not-json", True),
            ("pairing.duplicate-response", True),
        }
        assert "✖ 0 ▲ 0 · 0" in header_of(app)  # listed, and not the server's
        assert sum(app.shown[0].by_severity.values()) == 0  # what `watch --all` counts a server
