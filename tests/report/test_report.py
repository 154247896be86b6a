"""`mcpspy report` run as a subprocess on captures made by the real proxy."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from mcpspy.capture.reader import read_capture
from tests.conftest import FIXTURES, MCPSPY, python_server
from tests.report.helpers import SERVER, make_capture, report, request


def test_clean_capture_text_report_and_exit_0(tmp_path: Path) -> None:
    capture = make_capture(tmp_path, banner=False)
    result = report(str(capture))
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "era       2026-07-28   protocol 2026-07-28" in out
    assert "exit code 0" in out
    assert "c2s  request 2" in out
    assert "s2c  response 2" in out
    assert "err  stderr 2" in out
    assert "tools/list      2" in out  # latency row: two answered
    assert "findings  none" in out
    assert result.stderr == ""


def test_banner_is_an_error_with_its_line_and_exit_1(tmp_path: Path) -> None:
    capture = make_capture(tmp_path, banner=True)
    result = report(str(capture))
    assert result.returncode == 1
    assert "errors (1)" in result.stdout
    error_line = next(line for line in result.stdout.splitlines() if "stdout.not-json" in line)
    assert "(line " in error_line and "s2c" in error_line and "server ready" in error_line
    assert report(str(capture), "--fail-on", "never").returncode == 0


def test_fail_on_warning_and_unanswered_request(tmp_path: Path) -> None:
    capture = make_capture(tmp_path, banner=False, hang=True)
    text = report(str(capture), "--fail-on", "never")
    assert text.returncode == 0
    assert "never answered (1)" in text.stdout
    assert "id=3 hang  unanswered" in text.stdout
    data = json.loads(report(str(capture), "--json", "--fail-on", "never").stdout)
    worst = {f["severity"] for f in data["findings"]}
    expected = 1 if worst & {"error", "warning"} else 0
    assert report(str(capture), "--fail-on", "warning").returncode == expected


def test_json_report_shape_and_values(tmp_path: Path) -> None:
    capture = make_capture(tmp_path, banner=True, hang=True)
    result = report(str(capture), "--json")
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert data["report_version"] == 1
    assert set(data) >= {"session", "era", "protocol_version", "counts", "latency", "findings", "exchanges"}
    assert data["session"]["file"] == str(capture)
    assert data["session"]["exit"] == {"code": 0}
    assert data["era"] == "2026-07-28"
    assert data["counts"]["c2s"] == {"request": 3}
    assert data["counts"]["s2c"] == {"not-json": 1, "response": 2}
    assert data["latency"]["tools/list"]["count"] == 2
    assert data["latency"]["tools/list"]["max_ms"] >= data["latency"]["tools/list"]["p50_ms"] >= 0
    banner = [f for f in data["findings"] if f["id"] == "stdout.not-json"]
    assert len(banner) == 1
    assert banner[0]["severity"] == "error" and banner[0]["stream"] == "s2c"
    line = capture.read_bytes().split(b"\n")[banner[0]["line"] - 1]
    assert json.loads(line)["seq"] == banner[0]["seq"]  # the line number points at the record
    assert banner[0]["source"] and banner[0]["message"]
    states = [(e["method"], e["id"], e["direction"], e["state"]) for e in data["exchanges"]]
    assert states == [
        ("tools/list", 1, "c2s", "answered"),
        ("tools/list", 2, "c2s", "answered"),
        ("hang", 3, "c2s", "unanswered"),
    ]
    first, _, hang = data["exchanges"]
    assert first["reply_seq"] > first["request_seq"] and first["latency_ms"] >= 0
    assert hang["reply_seq"] is None and hang["latency_ms"] is None


def test_markdown_transcript_pairs_reply_under_request(tmp_path: Path) -> None:
    capture = make_capture(tmp_path, banner=True, hang=True)
    md = report(str(capture), "--markdown").stdout
    assert md.startswith("# mcpspy transcript: ")
    assert "```text\nserver ready\n```" in md
    assert "- **error** `stdout.not-json`" in md
    first_request = md.index("request · `tools/list` · id `1`")
    first_reply = md.index("response · `tools/list` · id `1`")
    second_request = md.index("request · `tools/list` · id `2`")
    assert first_request < first_reply < second_request  # the reply sits under its request
    assert "**reply** (answered after " in md
    assert '```json\n{\n  "jsonrpc": "2.0",' in md
    assert "*unanswered: no reply was seen.*" in md
    started = read_capture(capture).header.started
    assert f"- started: `{started}`," in md  # a date in code, not 2026\\-12\\-04


def test_session_lookup_by_name_id_and_newest(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for name in ("alpha", "beta"):
        subprocess.run(
            [*MCPSPY, "--home", str(home), "--name", name, "--", *python_server(SERVER)],
            input=request(1, "tools/list"),
            capture_output=True,
            timeout=60,
            check=True,
        )
    newest = json.loads(report("--json", home=home).stdout)
    assert newest["session"]["name"] == "beta"
    alpha = json.loads(report("alpha", "--json", home=home).stdout)
    assert alpha["session"]["name"] == "alpha"
    by_id = json.loads(report(alpha["session"]["id"], "--json", home=home).stdout)
    assert by_id["session"]["file"] == alpha["session"]["file"]
    unknown = report("gamma", home=home)
    assert unknown.returncode == 2 and "gamma" in unknown.stderr


def test_missing_and_unreadable_files_exit_2(tmp_path: Path) -> None:
    missing = report(str(tmp_path / "nope.jsonl"), home=tmp_path)
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.startswith("mcpspy report: ") and len(missing.stderr.splitlines()) == 1
    junk = tmp_path / "junk.jsonl"
    junk.write_text("this is not a capture\n")
    bad = report(str(junk))
    assert bad.returncode == 2 and "not an mcpspy capture" in bad.stderr
    empty = report(home=tmp_path / "empty")
    assert empty.returncode == 2 and "no sessions found" in empty.stderr


def test_newer_format_is_refused_with_exit_2(tmp_path: Path) -> None:
    capture = make_capture(tmp_path, banner=False)
    lines = capture.read_bytes().split(b"\n")
    header = json.loads(lines[0])
    header["format"] = "99.0"
    newer = tmp_path / "newer.jsonl"
    newer.write_bytes(b"\n".join([json.dumps(header).encode(), *lines[1:]]))
    result = report(str(newer))
    assert result.returncode == 2
    assert "newer than this mcpspy reads" in result.stderr and result.stdout == ""


def test_every_fixture_reports_in_all_three_views() -> None:
    fixtures = sorted(FIXTURES.glob("*.jsonl"))
    for fixture in fixtures:
        for view in ((), ("--json",), ("--markdown",)):
            result = report(str(fixture), *view, "--fail-on", "never")
            assert result.returncode == 0, (fixture.name, view, result.stderr)
            assert result.stdout
        data = json.loads(report(str(fixture), "--json", "--fail-on", "never").stdout)
        if fixture.stem.startswith("clean-"):
            assert [f for f in data["findings"] if f["severity"] == "error"] == [], fixture.name


def test_exchange_states_out_of_order_and_cancelled_from_fixtures() -> None:
    ooo = json.loads(report(str(FIXTURES / "lesson-out-of-order.jsonl"), "--json").stdout)
    assert [(e["id"], e["state"], e["out_of_order"]) for e in ooo["exchanges"]] == [
        (2, "answered", False),
        (3, "out-of-order", True),
    ]
    assert [f["id"] for f in ooo["findings"]] == ["pairing.out-of-order"]
    assert ooo["latency"]["tools/call"] == {"count": 2, "p50_ms": 10.0, "p95_ms": 30.0, "max_ms": 30.0}
    cancelled = json.loads(
        report(str(FIXTURES / "lesson-cancelled.jsonl"), "--json", "--fail-on", "never").stdout
    )
    (exchange,) = cancelled["exchanges"]
    assert exchange["state"] == "cancelled" and exchange["cancel_seq"] is not None


def test_slow_threshold_flags_a_reply_that_took_longer() -> None:
    fixture = str(FIXTURES / "lesson-out-of-order.jsonl")  # id 2 answered after 30 ms, id 3 after 10 ms
    default = json.loads(report(fixture, "--json").stdout)
    assert "pairing.slow" not in [f["id"] for f in default["findings"]]
    strict = report(fixture, "--json", "--slow", "0.02", "--fail-on", "warning")
    slow = [f for f in json.loads(strict.stdout)["findings"] if f["id"] == "pairing.slow"]
    assert [f["seq"] for f in slow] == [1]  # the 30 ms request, not the 10 ms one
    assert strict.returncode == 1


def test_a_reader_that_goes_away_gets_no_traceback(tmp_path: Path) -> None:
    """`mcpspy report --markdown | head`: the reader leaves early; exit 141 as for SIGPIPE, no traceback."""
    from mcpspy.capture.format import encode_header, encode_line
    from mcpspy.capture.records import Header, Stream

    header = Header(
        format="1.0",
        session="pipe",
        started="2026-12-03T00:00:00.000Z",
        command=("srv",),
        name="srv",
        cwd="/",
        mcpspy="0.1.0",
        pid=1,
    )
    lines = [
        encode_line(i, i / 1000, Stream.C2S, request(i, "tools/list").rstrip(b"\n"), True)
        for i in range(1, 21)
    ]
    capture = tmp_path / "big.jsonl"
    capture.write_bytes(encode_header(header) + b"".join(lines))
    proc = subprocess.Popen(
        [*MCPSPY, "report", "--markdown", str(capture)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # gone before the report is ready: its first write fails
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141, stderr
    assert stderr == ""


def test_a_finding_repeated_a_thousand_times_is_a_few_lines_and_a_count(tmp_path: Path) -> None:
    capture = tmp_path / "spam.jsonl"
    spam = "import sys\nfor i in range(1245):\n    sys.stdout.write(f'log line {i}\\n')\n"
    subprocess.run(
        [*MCPSPY, "--capture", str(capture), "--", *python_server(spam)],
        stdout=subprocess.DEVNULL,
        check=True,
        timeout=60,
    )
    out = report(str(capture)).stdout
    assert "errors (1245)" in out
    assert out.count("stdout.not-json: 'log line") == 5
    assert "… and 1,240 more stdout.not-json (seq " in out
    assert len(out.splitlines()) < 40
    data = json.loads(report(str(capture), "--json").stdout)
    assert sum(f["id"] == "stdout.not-json" for f in data["findings"]) == 1245  # JSON keeps every one
