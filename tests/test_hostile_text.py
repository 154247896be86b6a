"""A hostile server cannot reach the user's terminal through any text view.

A test server sends methods, ids, stray lines and stderr made of escape
sequences (OSC 0/8/52, CSI 2J and cursor moves, C1, BEL), bidi overrides,
Textual markup and a 10,000-character method; it runs behind the real
proxy, and every text view's output is checked byte by byte.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import MCPSPY

HOSTILE = [
    "\x1b]0;PWNED\x07",
    "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "\x1b]52;c;cHduZWQ=\x07",
    "\x1b[2J\x1b[H\x1b[10A",
    "\x9b31m",
    "\x07bell",
    "abc\u202edcba\u2066x\u2069",
    "[@click=app.screenshot('x.svg','/tmp')]click me[/]",
    "[/]",
    "m" * 10_000,
]
#: ESC, the other C0 controls but tab and newline, DEL, C1, bidi embeddings, overrides and isolates.
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

SERVER = r"""
import json, sys
hostile = json.loads(sys.argv[1])
for text in hostile:
    sys.stdout.write(text + "\n")
    sys.stderr.write(text + "\n")
sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "tools/list":  # tool names the report's context cost and tools.* rules quote
        tools = [
            {"name": text, "description": text, "inputSchema": {"$schema": text, "anyOf": [{"$ref": text}]}}
            for text in hostile
        ]
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": tools}}) + "\n")
        sys.stdout.flush()
        continue
    for text in hostile:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "method": text, "params": {"x": text}}) + "\n")
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": text, "method": text}) + "\n")
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": hostile[0]}}) + "\n")
    sys.stdout.write(hostile[0] + json.dumps({"jsonrpc": "2.0", "id": 99, "result": {}}) + "\n")
    sys.stdout.flush()
"""


def requests() -> bytes:
    sent = [*HOSTILE[:3], "tools/list"]
    return b"".join(
        orjson.dumps({"jsonrpc": "2.0", "id": i, "method": text, "params": {}}) + b"\n"
        for i, text in enumerate(sent)
    )


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    home = tmp_path_factory.mktemp("hostile")
    log = home.parent / f"{home.name}.log"
    done = subprocess.run(
        [
            *MCPSPY,
            "--home",
            str(home),
            "--log",
            str(log),
            "--name",
            "srv" + HOSTILE[0],
            "--",
            sys.executable,
            "-c",
            SERVER,
            orjson.dumps(HOSTILE).decode(),
            *HOSTILE[:2],
        ],
        input=requests(),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return home, log


def assert_clean(output: str, what: str) -> None:
    match = FORBIDDEN.search(output)
    assert match is None, (
        f"{what}: {match.group()!r} at {match.start()}: {output[max(0, match.start() - 60) : match.start() + 20]!r}"
    )


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MCPSPY, *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_report_shows_no_control_character(session: tuple[Path, Path], fmt: str) -> None:
    home, _ = session
    done = run("report", "--home", str(home), "--format", fmt)
    assert done.returncode == 1, done.stderr  # findings, not a crash
    assert_clean(done.stdout, f"report --format {fmt}")
    assert_clean(done.stderr, f"report --format {fmt} (stderr)")
    assert "\\x1b]0;PWNED\\x07" in done.stdout.replace("\\\\", "\\")  # shown, made visible
    assert "most expensive tools" in done.stdout or fmt == "markdown"
    assert "tools.schema-combinator" in done.stdout


def test_a_failed_start_quotes_hostile_stderr_safely(tmp_path: Path) -> None:
    """lifecycle.failed-to-connect quotes the server's last stderr lines: made visible, never raw."""
    dying = "import sys\nfor text in sys.argv[1:]: sys.stderr.write(text + '\\n')\nsys.exit(3)"
    done = subprocess.run(
        [*MCPSPY, "--home", str(tmp_path), "--", sys.executable, "-c", dying, *HOSTILE[:4]],
        input=requests(),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 3
    report = run("report", "--home", str(tmp_path))
    assert report.returncode == 1
    assert "lifecycle.failed-to-connect" in report.stdout
    assert "PWNED" in report.stdout
    assert_clean(report.stdout, "report of a failed start")


def test_report_json_stays_exact_json(session: tuple[Path, Path]) -> None:
    home, _ = session
    done = run("report", "--home", str(home), "--json")
    report = orjson.loads(done.stdout)
    assert any(HOSTILE[0] in f["message"] for f in report["findings"]) or any(
        e["method"] == HOSTILE[0] for e in report["exchanges"]
    )


def test_the_log_shows_no_control_character(session: tuple[Path, Path]) -> None:
    _, log = session
    text = log.read_text("utf-8")
    assert text.count("\n") > 20
    assert_clean(text, "--log")


def test_sessions_show_no_control_character(session: tuple[Path, Path]) -> None:
    home, _ = session
    done = run("sessions", "--home", str(home))
    assert done.returncode == 0 and "PWNED" in done.stdout
    assert_clean(done.stdout, "sessions")


def test_rules_quotes_a_hostile_id_safely() -> None:
    done = run("rules", HOSTILE[0])
    assert done.returncode == 2
    assert_clean(done.stderr, "rules")
