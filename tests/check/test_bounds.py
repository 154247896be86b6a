"""A hostile server cannot make `check` run forever or hold what it writes: the bounds of issue 30.

The real `mcpspy check` runs against real servers (tests/check/servers/hostile_server.py) that flood
stdout with notifications, with `{` lines, with one line that never ends, or that never answer.
Each check ends within its --max-time (plus the few seconds it takes to end the server and read
the capture back: the slack below is wide, for a loaded host), with the exit code of the docs,
and a flood is named as a failure of its own: robust.flood.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpspy.check.client import LineAssembler
from tests.check.helpers import HERE, check_command, run_check

HOSTILE = [sys.executable, str(HERE / "servers" / "hostile_server.py")]
MAX_TIME = 20.0
SLACK = 40.0  # ending the proxy, judging a capture of a flood's size, two eras at once, a loaded host
BOUNDED = ("--timeout", "1", "--max-time", f"{MAX_TIME:g}")


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("flood", "lines"),  # notifications/message as fast as the pipe takes them, forever
        ("braces", "lines"),  # `{` lines forever: each could start a pretty-printed message
        ("endless-line", "one line of"),  # a line with no newline, growing forever
    ],
)
def test_a_flood_ends_the_check_and_is_named(tmp_path: Path, mode: str, said: str) -> None:
    started = time.monotonic()
    result = run_check(tmp_path, [*HOSTILE, mode], *BOUNDED, timeout=MAX_TIME + 2 * SLACK)
    assert time.monotonic() - started < MAX_TIME + SLACK
    assert result.returncode == 1, result.stderr  # a failure of the server's, though it answered nothing
    assert result.stderr == ""
    for era in ("modern", "legacy"):
        flood = result.check("robust.flood", era)
        assert flood["status"] == "fail"
        assert flood["message"].startswith("the server flooded its stdout: ") and said in flood["message"]
        later = result.check("robust.long-line", era)
        assert later["status"] == "skip" and "flooded" in later["message"]
        assert result.check("eof.exit", era)["status"] == "skip"


def test_a_flood_in_the_middle_of_a_check_names_the_step_it_came_in(tmp_path: Path) -> None:
    result = run_check(tmp_path, [*HOSTILE, "flood-after-discover"], *BOUNDED, "--era", "modern")
    assert result.returncode == 1, result.stderr
    assert result.status("discover.result", "modern") == "pass"
    flood = result.check("robust.flood", "modern")
    assert flood["status"] == "fail" and "during meta.client-info-optional" in flood["message"]
    assert flood["problems"][0]["line"] is not None  # it points at the capture


@pytest.mark.parametrize("fmt", ["text", "junit", "sarif", "conformance", "html"])
def test_every_format_says_the_server_flooded(tmp_path: Path, fmt: str) -> None:
    result = run_check(tmp_path, [*HOSTILE, "flood"], *BOUNDED, "--era", "legacy", fmt=fmt)
    assert result.returncode == 1, result.stderr
    assert "robust.flood" in result.stdout or "mcpspy-robust.flood" in result.stdout
    assert "the server flooded its stdout" in result.stdout


def test_a_server_that_never_answers_ends_within_the_bound(tmp_path: Path) -> None:
    started = time.monotonic()
    result = run_check(tmp_path, [*HOSTILE, "silent"], *BOUNDED, timeout=MAX_TIME + 2 * SLACK)
    assert time.monotonic() - started < MAX_TIME + SLACK
    assert result.returncode == 2
    assert "never answered" in result.stderr


def test_when_the_time_runs_out_the_rest_is_skipped_and_the_exit_code_is_2(tmp_path: Path) -> None:
    max_time = 4.0
    started = time.monotonic()
    result = run_check(
        tmp_path,
        [*HOSTILE, "answers-once"],
        "--timeout",
        "1",
        "--max-time",
        f"{max_time:g}",
        "--era",
        "modern",
    )
    assert time.monotonic() - started < max_time + SLACK
    assert result.returncode == 2
    assert result.stderr.startswith("mcpspy check: the check's time ran out (--max-time 4) in the modern era")
    assert result.status("discover.result", "modern") == "pass"
    skipped = [c for c in result.report["checks"] if "time ran out" in c["message"]]
    assert skipped and all(c["status"] == "skip" for c in skipped)
    assert result.report["max_time_s"] == max_time


def test_max_time_must_be_seconds(tmp_path: Path) -> None:
    for bad in ("0", "-1", "nan", "soon"):
        result = run_check(tmp_path, [*HOSTILE, "silent"], "--max-time", bad)
        assert result.returncode == 2 and "--max-time" in result.stderr


@given(
    st.lists(
        st.sampled_from([b"{", b"}", b"[", b'"a": 1,', b'{"id":1,"result":{}}', b"x", b"", b"\xff"]),
        max_size=60,
    )
)
def test_the_assembler_accounts_for_every_line_once(lines: list[bytes]) -> None:
    """Whatever the lines, each is given back exactly once: in a message, or as a stray line."""
    assembler = LineAssembler()
    out = [item for n, line in enumerate(lines) for item in assembler.line(n, line)] + assembler.close()
    covered: list[int] = []
    for ordinal, payload, raw in out:
        covered += range(ordinal, ordinal + raw.count(b"\n") + 1) if payload is not None else [ordinal]
    assert sorted(covered) == list(range(len(lines)))


def _processes_naming(text: str) -> list[int]:
    """The live processes whose command line holds ``text`` (here: a test's own sessions dir)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text.encode() in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def test_a_check_ended_by_sigterm_mid_flood_leaves_no_process_behind(tmp_path: Path) -> None:
    argv = check_command(tmp_path, [*HOSTILE, "flood"], *BOUNDED)
    check = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + SLACK
        while len(_processes_naming(str(tmp_path))) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)  # check, its proxy, the proxy's server: the flood is under way
        assert check.poll() is None, "the check ended before the flood began"
        time.sleep(1.0)
        check.send_signal(signal.SIGTERM)
        check.wait(timeout=SLACK)
        deadline = time.monotonic() + SLACK
        while (left := _processes_naming(str(tmp_path))) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert left == [], "survived the check: " + ", ".join(
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:160]
            for pid in left
        )
    finally:
        check.kill()
        for pid in _processes_naming(str(tmp_path)):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
