"""Retention: old captures are pruned, on demand and at the proxy's start; live ones never."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcpspy.capture.format import encode_header, encode_lifecycle, encode_line
from mcpspy.capture.records import Event, Header, LifecycleRecord, Stream
from mcpspy.capture.retention import DAY, DEFAULT, FOREVER, RetentionPolicy, parse_policy, prune
from tests.conftest import MCPSPY

DEAD_PID = 2**22 + 12345  # above Linux's pid_max: no process has it


@pytest.fixture
def live_pid() -> Iterator[int]:
    """A process that stays alive for the test: a proxy still running."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    yield sleeper.pid
    sleeper.kill()
    sleeper.wait()


def make_capture(
    home: Path, name: str, age_days: float, pid: int = DEAD_PID, stopped: bool = True, pad: int = 0
) -> Path:
    """A capture written ``age_days`` ago; ``stopped`` ends it with proxy-stopped."""
    header = Header("1.0", name, "2026-01-01T00:00:00.000Z", ("cat",), name, "/", "0.1.0", pid)
    body = encode_header(header) + encode_line(1, 0.1, Stream.C2S, b"x" * pad)
    if stopped:
        body += encode_lifecycle(LifecycleRecord(2, 0.2, Event.PROXY_STOPPED, {"code": 0}))
    path = home / f"{name}.jsonl"
    path.write_bytes(body)
    then = time.time() - age_days * DAY
    os.utime(path, (then, then))
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "sessions"
    path.mkdir(mode=0o700)
    return path


def names(home: Path) -> set[str]:
    return {p.name for p in home.iterdir()}


def sessions(home: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MCPSPY, "sessions", "--home", str(home), "--prune", *options],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_prune_older_than_deletes_old_finished_captures_and_says_how_much(home: Path, live_pid: int) -> None:
    old = make_capture(home, "old", 40, pad=1000)
    killed = make_capture(home, "killed", 35, stopped=False, pad=500)  # its proxy died without a word
    make_capture(home, "old-live", 60, pid=live_pid, stopped=False)
    make_capture(home, "recent", 1)
    freed = old.stat().st_size + killed.stat().st_size
    done = sessions(home, "--older-than", "30d")
    assert done.returncode == 0, done.stderr
    assert names(home) == {"old-live.jsonl", "recent.jsonl"}
    assert done.stdout == f"deleted 2 captures ({freed / 1024:.1f} KiB) in {home}; kept 2, 1 of them live\n"


def test_prune_keep_n_keeps_the_newest(home: Path, live_pid: int) -> None:
    for i in range(5):
        make_capture(home, f"s{i}", 10 - i)  # s4 is the newest
    make_capture(home, "live", 20, pid=live_pid, stopped=False)
    done = sessions(home, "--keep", "2")
    assert done.returncode == 0 and done.stdout.startswith("deleted 3 captures")
    assert names(home) == {"s3.jsonl", "s4.jsonl", "live.jsonl"}
    assert sessions(home, "--keep", "0").stdout.startswith("deleted 2 captures")
    assert names(home) == {"live.jsonl"}


def test_only_captures_of_ours_are_ever_deleted(home: Path, tmp_path: Path) -> None:
    (home / "notes.jsonl").write_text("not a capture\n")
    outside = make_capture(tmp_path, "outside", 90)
    (home / "link.jsonl").symlink_to(outside)
    (home / "other.txt").write_text("x")
    for path in home.iterdir():
        os.utime(path, (0, 0), follow_symlinks=False)
    done = sessions(home, "--older-than", "1d")
    assert done.returncode == 0 and done.stdout.startswith("deleted 0 captures")
    assert names(home) == {"notes.jsonl", "link.jsonl", "other.txt"} and outside.exists()


def test_a_lax_sessions_dir_is_not_pruned(home: Path) -> None:
    make_capture(home, "old", 90)
    home.chmod(0o777)
    done = sessions(home, "--older-than", "1d")
    assert done.returncode == 2 and "writable by others" in done.stderr and names(home) == {"old.jsonl"}


def test_the_proxy_prunes_at_start_by_default_and_retain_forever_turns_it_off(
    home: Path, live_pid: int, tmp_path: Path
) -> None:
    make_capture(home, "ancient", 31)
    make_capture(home, "ancient-live", 31, pid=live_pid, stopped=False)
    make_capture(home, "fresh", 29)

    def run(*options: str, env: dict[str, str] | None = None) -> None:
        done = subprocess.run(
            [*MCPSPY, "--home", str(home), *options, "--", "cat"], input=b"x\n", capture_output=True, env=env
        )
        assert done.returncode == 0 and done.stdout == b"x\n" and done.stderr == b""

    run("--retain", "forever")
    assert {"ancient.jsonl", "ancient-live.jsonl", "fresh.jsonl"} <= names(home) and len(names(home)) == 4
    run()
    assert "ancient.jsonl" not in names(home) and {"ancient-live.jsonl", "fresh.jsonl"} <= names(home)
    assert len(names(home)) == 4  # and both of the proxy's own captures
    run(env={**os.environ, "MCPSPY_RETAIN": "1d"})
    assert "fresh.jsonl" not in names(home) and "ancient-live.jsonl" in names(home)


def test_a_total_size_keeps_the_newest_that_fit(home: Path) -> None:
    for i in range(4):
        make_capture(home, f"s{i}", 4 - i, pad=4000)  # s3 is the newest
    result = prune(home, parse_policy("10KiB"))
    assert (result.deleted, result.kept) == (2, 2) and names(home) == {"s2.jsonl", "s3.jsonl"}
    assert result.freed > 8000


@pytest.mark.parametrize(
    ("text", "policy"),
    [
        ("forever", FOREVER),
        ("30d,2GiB", DEFAULT),
        ("14d", RetentionPolicy(max_age=14 * DAY)),
        ("500MiB", RetentionPolicy(max_total=500 << 20)),
        ("12h, 1.5G", RetentionPolicy(max_age=12 * 3600, max_total=int(1.5 * (1 << 30)))),
        ("2w", RetentionPolicy(max_age=14 * DAY)),
    ],
)
def test_retention_policies_are_read_as_written(text: str, policy: RetentionPolicy) -> None:
    assert parse_policy(text) == policy


def test_a_bad_policy_is_refused_with_exit_2_before_the_server_starts() -> None:
    for bad in (["--retain", "soon"], ["--retain", ""]):
        done = subprocess.run([*MCPSPY, *bad, "--", "cat"], capture_output=True, text=True, input="")
        assert done.returncode == 2 and "retention policy" in done.stderr and done.stdout == ""
    env = {**os.environ, "MCPSPY_RETAIN": "lots"}
    done = subprocess.run([*MCPSPY, "--", "cat"], capture_output=True, text=True, input="", env=env)
    assert done.returncode == 2 and "MCPSPY_RETAIN" in done.stderr
