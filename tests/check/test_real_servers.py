"""Real servers through the real check: the Python SDK server, server-everything, and mcpspy's demo.

Where a real server breaks a rule, the test names the check and says why.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import LineRecord, Stream
from tests.check.helpers import DEMO, EVERYTHING, PY_SDK_SERVER, faulty, run_check

M, L = "modern", "legacy"
# The SDK server imports a lot; on a loaded 2-core machine it has taken 12 s to answer its first request.
PATIENT = ("--timeout", "5")


def test_the_python_sdk_server_passes_both_eras(tmp_path: Path) -> None:
    result = run_check(tmp_path, PY_SDK_SERVER, *PATIENT, "--call", 'add={"a": 2, "b": 3}', timeout=300)
    assert result.returncode == 0, result.stderr
    # mcp 2.3's stdio reader drops a line that is not JSON without a word (it logs it on stderr):
    # JSON-RPC 2.0 answers it with a -32700 error whose id is null. A warning, not an error. A JSON
    # array line (a batch) goes the same way: taken silently, though it is no valid message.
    assert result.not_passed() == {
        (check, era): "warn" for check in ("robust.parse-error", "jsonrpc.batch-refused") for era in (M, L)
    }
    assert result.check("discover.result", M)["status"] == "pass"  # it speaks 2026-07-28 too
    assert result.check("initialize.result", L)["status"] == "pass"
    for era in (M, L):
        assert result.check("tools.call", era)["status"] == "pass"
        assert result.check("list.prompts", era)["status"] == "pass"  # declared, and empty


@pytest.mark.clients
def test_server_everything_speaks_legacy_only(tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    if not Path(EVERYTHING[0]).exists():
        pytest.fail("run .ci/clients/install.sh first: server-everything is not installed")
    result = run_check(tmp_path, EVERYTHING, *PATIENT, timeout=300)
    assert result.returncode == 0, result.stderr
    # Built on the TypeScript SDK 1.x: server/discover is an unknown method to it (-32601), so the
    # modern era is skipped, as a dual-era client would fall back. Like the Python SDK, it drops a
    # line that is not JSON, and a JSON array line, without the reply JSON-RPC 2.0 asks for; and it
    # answers logging/setLevel of a level that is none with -32603, not -32602.
    assert result.not_passed() == {
        ("robust.parse-error", L): "warn",
        ("jsonrpc.batch-refused", L): "warn",
        ("logging.set-level", L): "warn",
    }
    discover = result.check("discover.result", M)
    assert discover["status"] == "skip" and "-32601" in discover["message"]
    legacy = {c["id"]: c["status"] for c in result.report["checks"] if c["era"] == L}
    assert (
        legacy["list.resource-templates"] == legacy["pipeline.ten"] == legacy["initialize.second"] == "pass"
    )


def test_the_demo_server(tmp_path: Path) -> None:
    result = run_check(tmp_path, DEMO, "--timeout", "2")
    assert result.returncode == 1
    # The demo checks that _meta *has* a clientCapabilities key, not that it is an object, so null
    # passes; it echoes an id of the wrong type instead of answering -32600 with a null id; and it
    # takes a JSON array line (a batch) without a word.
    assert result.not_passed() == {
        ("meta.capabilities-null", M): "fail",
        ("robust.id-type", M): "warn",
        ("robust.id-type", L): "warn",
        ("jsonrpc.batch-refused", M): "warn",
        ("jsonrpc.batch-refused", L): "warn",
    }


def test_tools_are_called_only_when_asked(tmp_path: Path) -> None:
    quiet = run_check(tmp_path / "quiet", faulty(), "--timeout", "2")
    assert quiet.returncode == 0
    asked = run_check(tmp_path / "asked", faulty(), "--timeout", "2", "--call", 'add={"a": 2, "b": 3}')
    assert asked.returncode == 0
    for result, calls in ((quiet, 0), (asked, 1)):
        for era, path in result.report["capture"].items():
            records = [r for r in read_capture(path).records if isinstance(r, LineRecord)]
            sent = [json.loads(r.data) for r in records if r.stream is Stream.C2S and r.data.startswith(b"{")]
            assert sum(m.get("method") == "tools/call" for m in sent) == calls, era
            logged = [r for r in records if r.stream is Stream.ERR and b"tools/call" in r.data]
            assert len(logged) == calls, era
    call = asked.check("tools.call", M)
    assert call["target"] == "add" and call["status"] == "pass"


def test_the_legacy_client_answers_the_servers_ping(tmp_path: Path) -> None:
    result = run_check(tmp_path, faulty("pings-client"), "--era", "legacy", "--timeout", "2")
    assert result.returncode == 0 and result.not_passed() == {}
    records = read_capture(result.report["capture"][L]).records
    sent = [r.data for r in records if isinstance(r, LineRecord) and r.stream is Stream.C2S]
    answers = [json.loads(line) for line in sent if line.startswith(b'{"jsonrpc":"2.0","id":"srv-1"')]
    assert {"jsonrpc": "2.0", "id": "srv-1", "result": {}} in answers


def test_each_era_is_an_ordinary_session_that_report_and_sessions_open(tmp_path: Path) -> None:
    result = run_check(tmp_path, faulty(), "--timeout", "2")
    listed = subprocess.run(  # check's sessions are kept apart, in the sessions dir's check/
        [sys.executable, "-m", "mcpspy", "sessions", "--home", str(tmp_path / "check"), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    listed_paths = {s["path"]: s["name"] for s in json.loads(listed.stdout)}
    for era, path in result.report["capture"].items():
        assert listed_paths[path] == f"faulty_server-check-{era}"
        report = subprocess.run(
            [sys.executable, "-m", "mcpspy", "report", path, "--json"],
            capture_output=True,
            text=True,
            check=False,
        )
        parsed = json.loads(report.stdout)
        assert parsed["era"] == ("2026-07-28" if era == M else "legacy")
        assert parsed["session"]["name"] == f"faulty_server-check-{era}"
