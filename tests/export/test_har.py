"""HAR 1.2: checked against a schema written from the spec, field by field, and opened by haralyzer."""

from __future__ import annotations

import subprocess
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import jsonschema
import orjson
from haralyzer import HarParser

from mcpspy.model.summary import build_summary
from mcpspy.replay_policy import open_capture
from mcpspy.report.har import render_har
from tests.conftest import FIXTURES, MCPSPY
from tests.export.har_schema import HAR_1_2
from tests.export.synthetic import mixed_capture


def har_of(capture: Path, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "session.har"
    done = subprocess.run(
        [*MCPSPY, "report", str(capture), "--format", "har", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode in (0, 1), done.stderr
    har: dict[str, Any] = orjson.loads(out.read_bytes())
    return har


def test_har_follows_the_1_2_schema(tmp_path: Path) -> None:
    jsonschema.validate(har_of(mixed_capture(tmp_path / "mixed.jsonl"), tmp_path), HAR_1_2)
    for capture in sorted(FIXTURES.glob("*.jsonl")):  # every scenario the analysis knows, in process
        summary = build_summary(*analyze(capture))
        jsonschema.validate(orjson.loads(render_har(summary)), HAR_1_2)


def analyze(path: Path) -> tuple[Any, Path, Any]:
    opened = open_capture(path)
    capture, analyzer = opened.capture, opened.analyzer
    return capture, path, analyzer


def test_the_schema_rejects_what_the_spec_forbids(tmp_path: Path) -> None:
    """The schema check can fail: a wait of -1, or a field of our own without its underscore."""
    har = har_of(mixed_capture(tmp_path / "mixed.jsonl"), tmp_path)
    har["log"]["entries"][0]["timings"]["wait"] = -1
    try:
        jsonschema.validate(har, HAR_1_2)
    except jsonschema.ValidationError:
        pass
    else:
        raise AssertionError("a wait of -1 passed")
    har = har_of(mixed_capture(tmp_path / "mixed.jsonl"), tmp_path)
    har["log"]["entries"][0]["mcpspy"] = {}
    try:
        jsonschema.validate(har, HAR_1_2)
    except jsonschema.ValidationError:
        return
    raise AssertionError("an unprefixed custom field passed")


def test_each_exchange_is_one_entry(tmp_path: Path) -> None:
    har = har_of(mixed_capture(tmp_path / "mixed.jsonl"), tmp_path)
    log = har["log"]
    assert log["creator"]["name"] == "mcpspy" and log["version"] == "1.2"
    entries = {e["_mcpspy"]["id"]: e for e in log["entries"]}
    assert sorted(entries) == [1, 2, 3, 4, 5, 6, 7, 8]
    ok, tool_error, rpc_error, unanswered = entries[2], entries[3], entries[4], entries[8]
    assert ok["request"]["method"] == "POST"
    assert ok["request"]["url"] == "stdio://helpdesk-srv/tools/call"  # the server's serverInfo name
    assert entries[1]["request"]["url"] == "stdio://helpdesk-srv/server/discover"
    sent = orjson.loads(ok["request"]["postData"]["text"])
    assert sent["params"]["name"] == "search" and ok["request"]["postData"]["mimeType"] == "application/json"
    assert ok["request"]["bodySize"] == len(ok["request"]["postData"]["text"]) + 1  # and its newline
    assert (ok["response"]["status"], ok["response"]["statusText"]) == (200, "OK")
    assert orjson.loads(ok["response"]["content"]["text"])["id"] == 2
    assert ok["time"] == ok["timings"]["wait"] == 5.0
    assert (ok["timings"]["send"], ok["timings"]["receive"]) == (0, 0)
    started = datetime.fromisoformat(log["pages"][0]["startedDateTime"].replace("Z", "+00:00"))
    assert datetime.fromisoformat(ok["startedDateTime"].replace("Z", "+00:00")) - started == timedelta(
        milliseconds=6  # server-started, the stray line, stderr, discover and its reply: 1 ms each
    )
    assert (tool_error["response"]["status"], tool_error["_mcpspy"]["toolError"]) == (200, True)
    assert rpc_error["response"]["status"] == 500
    assert rpc_error["response"]["statusText"] == "JSON-RPC error -32603: backend down"
    assert unanswered["response"]["status"] == 0 and unanswered["response"]["statusText"] == "unanswered"
    assert "text" not in unanswered["response"]["content"]
    assert unanswered["time"] > 0  # it waited until the capture ended
    assert [f["id"] for f in log["_mcpspy"]["findings"]]  # the report's findings ride along
    assert [p["id"] for p in log["pages"]] == ["mixed-session"]
    assert all(e["pageref"] == "mixed-session" for e in log["entries"])


def test_haralyzer_reads_it(tmp_path: Path) -> None:
    """A real HAR reader (PyPI haralyzer) opens the file and sees the entries, methods and statuses."""
    capture = mixed_capture(tmp_path / "mixed.jsonl")
    har = har_of(capture, tmp_path)
    parser = HarParser(har)
    assert parser.creator["name"] == "mcpspy"
    assert parser.version == "1.2"
    [page] = parser.pages
    assert len(page.entries) == 8
    assert [e.request.url for e in page.entries][:2] == [
        "stdio://helpdesk-srv/server/discover",
        "stdio://helpdesk-srv/tools/call",
    ]
    assert [e.response.status for e in page.entries] == [200, 200, 200, 500, 200, 200, 200, 0]
    assert all(e.request.method == "POST" for e in page.entries)
    assert len(page.post_requests) == 8
    assert page.entries[1].timings["wait"] == 5.0
    assert parser.match_status_code(page.entries[3], "500")
