"""A reply lost to a glued prefix is still awaited: the header and the In flight pane count it."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson

from mcpspy.capture.format import encode_record
from mcpspy.capture.records import LineRecord, Stream
from mcpspy.tui.app import InspectorApp
from mcpspy.tui.panes.inflight import InFlightPane
from tests.conftest import FIXTURES
from tests.tui.test_app import header_of, wait_rows

CANCEL = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}


async def _wait_header(app: InspectorApp, pilot: object, text: str) -> None:
    for _ in range(100):
        if text in header_of(app):
            return
        await pilot.pause(0.05)  # type: ignore[attr-defined]
    raise AssertionError(header_of(app))


async def test_a_lost_reply_is_pending_until_its_request_is_cancelled(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    shutil.copy(FIXTURES / "lesson-ready-glued.jsonl", path)
    app = InspectorApp(path, live=True)
    async with app.run_test(size=(120, 35)) as pilot:
        await wait_rows(app, pilot, 2)
        await _wait_header(app, pilot, "1 pending")
        await pilot.press("3")  # the In flight tab
        await pilot.pause(0.1)
        in_flight = app.query_one(InFlightPane)
        assert len(in_flight.rows) == 1 and "lost: server/discover" in in_flight.row_text(0)
        with path.open("ab") as f:
            f.write(encode_record(LineRecord(3, 0.5, Stream.C2S, orjson.dumps(CANCEL))))
        await wait_rows(app, pilot, 3)
        await _wait_header(app, pilot, "0 pending")
        await pilot.pause(0.1)
        assert len(in_flight.rows) == 0
