"""HTML and HAR pages of crafted and big captures: each message once, and a bounded number of rows."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mcpspy.report.shown_once import MAX_ROWS
from tests.conftest import MCPSPY

HEADER = {"format": "1.1", "session": "20261204T000000.000Z-dup-1", "command": ["x"], "name": "dup"}


def call(i: int) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "x"}})


def write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in [HEADER, *records]))
    return path


def report(capture: Path, form: str, out: Path) -> bytes:
    proc = subprocess.run(
        [*MCPSPY, "report", str(capture), "--format", form, "--out", str(out), "--fail-on", "never"],
        capture_output=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return out.read_bytes()


@pytest.mark.parametrize("form", ["html", "har"])
def test_a_repeated_seq_shows_its_message_and_findings_once(tmp_path: Path, form: str) -> None:
    """Every request seq 1, none answered: each unanswered finding is about seq 1 (it was 5.8 GB)."""
    calls = 1500
    records: list[dict[str, object]] = [
        {"seq": 1, "t": 0.1, "stream": "c2s", "text": call(i)} for i in range(calls)
    ]
    records.append({"seq": 2, "t": 0.2, "event": "proxy-stopped", "code": 0})
    page = report(write(tmp_path / "dup.jsonl", records), form, tmp_path / f"page.{form}")
    # Each request is a row/entry, and each unanswered finding is named a bounded number of times:
    # linear in the calls (quadratic was 1500 x 1500 names of "pairing.unanswered").
    assert page.count(b"pairing.unanswered") < 10 * calls
    if form == "har":
        assert len(json.loads(page)["log"]["entries"]) == calls


@pytest.mark.parametrize("form", ["html", "har"])
def test_a_page_stops_at_its_bound_and_says_so(tmp_path: Path, form: str) -> None:
    calls = MAX_ROWS + 5
    records: list[dict[str, object]] = []
    for i in range(calls):
        records.append({"seq": 2 * i + 1, "t": 0.1, "stream": "c2s", "text": call(i)})
        reply = json.dumps({"jsonrpc": "2.0", "id": i, "result": {"content": []}})
        records.append({"seq": 2 * i + 2, "t": 0.2, "stream": "s2c", "text": reply})
    page = report(write(tmp_path / "big.jsonl", records), form, tmp_path / f"page.{form}")
    assert f"the first {MAX_ROWS} of {calls} rows are shown".encode() in page
    if form == "har":
        assert len(json.loads(page)["log"]["entries"]) == MAX_ROWS
    else:
        assert page.count(b'<details class="row"') == MAX_ROWS
