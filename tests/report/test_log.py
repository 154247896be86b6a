"""`mcpspy --log`: one line per message on stderr or in a file; stdout stays the server's."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import python_server, run_proxy
from tests.report.helpers import SERVER, request


def _lines(text: bytes) -> list[str]:
    return [line for line in text.decode().splitlines() if line.startswith("mcpspy ")]


def test_log_to_stderr_one_line_per_message_stdout_untouched(tmp_path: Path) -> None:
    stdin = request(1, "tools/list") + request(2, "hang")
    bare = run_proxy(tmp_path, [*python_server(SERVER), "--banner"], stdin=stdin)
    logged = run_proxy(tmp_path, [*python_server(SERVER), "--banner"], stdin=stdin, options=["--log"])
    assert logged.returncode == bare.returncode == 0
    assert logged.stdout == bare.stdout  # nothing of mcpspy's on stdout
    assert b"mcpspy" not in logged.stdout
    lines = _lines(logged.stderr)
    banner = next(line for line in lines if "not-json" in line)
    assert "←" in banner and "[stdout.not-json]" in banner and "server ready" in banner
    req = next(line for line in lines if "→ request" in line and "id=1" in line)
    assert "tools/list" in req
    reply = next(line for line in lines if "← response" in line and "id=1" in line)
    assert reply.rstrip().endswith("ms") and "tools/list" in reply
    assert any("id=2" in line and "hang" in line for line in lines)
    assert any("lifecycle.crash-in-flight" in line or "unanswered" in line for line in lines)
    # the server's own stderr passes through once, not echoed by the log
    assert logged.stderr.decode().count("got tools/list") == 1
    assert not _lines(bare.stderr)


def test_log_to_file_appends_and_includes_stderr_lines(tmp_path: Path) -> None:
    log = tmp_path / "traffic.log"
    log.write_text("earlier\n")
    run = run_proxy(
        tmp_path, python_server(SERVER), stdin=request(1, "tools/list"), options=["--log", str(log)]
    )
    assert run.returncode == 0
    assert b"mcpspy" not in run.stderr and b"mcpspy" not in run.stdout
    text = log.read_text()
    assert text.startswith("earlier\n")
    lines = _lines(text.encode())
    assert any("→ request" in line and "id=1" in line for line in lines)
    assert any("! stderr" in line and "got tools/list" in line for line in lines)


def test_unwritable_log_warns_once_and_forwarding_goes_on(tmp_path: Path) -> None:
    target = tmp_path / "no-such-dir" / "x.log"
    run = run_proxy(
        tmp_path, python_server(SERVER), stdin=request(1, "tools/list"), options=["--log", str(target)]
    )
    assert run.returncode == 0
    assert b'"id": 1' in run.stdout
    assert run.stderr.decode().count("cannot open the log") == 1
