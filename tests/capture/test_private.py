"""Where captures may be written, tried as an attacker would, through the real proxy."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpspy.capture.sessions import safe_name
from tests.conftest import MCPSPY

LINE = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'


def proxy(
    tmp_path: Path, *options: str, env: dict[str, str] | None = None, umask: int = -1
) -> tuple[subprocess.CompletedProcess[bytes], Path]:
    """The proxy in front of a server that leaves a mark when it starts, then echoes."""
    started = tmp_path / "server-started"
    started.unlink(missing_ok=True)
    server = ["sh", "-c", f"touch {started}; exec cat"]
    done = subprocess.run(
        [*MCPSPY, *options, "--", *server], input=LINE, capture_output=True, timeout=60, env=env, umask=umask
    )
    return done, started


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def assert_refused(done: subprocess.CompletedProcess[bytes], started: Path, says: str) -> None:
    """Exit 2, one line on stderr saying why, nothing on stdout, and the server never started."""
    assert done.returncode == 2
    assert done.stderr.count(b"\n") == 1 and says.encode() in done.stderr, done.stderr
    assert done.stdout == b"" and not started.exists()


def test_a_capture_path_that_is_a_symlink_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    target = tmp_path / "victim"
    target.write_bytes(b"precious\n")
    target.chmod(0o644)
    link = tmp_path / "c.jsonl"
    link.symlink_to(target)
    for options in ([], ["--capture-overwrite"]):
        done, started = proxy(tmp_path, "--capture", str(link), *options)
        assert_refused(done, started, "is a symlink")
        assert target.read_bytes() == b"precious\n" and mode(target) == 0o644
    dangling = tmp_path / "d.jsonl"
    dangling.symlink_to(tmp_path / "not-yet")
    assert_refused(*proxy(tmp_path, "--capture", str(dangling)), "is a symlink")
    assert not (tmp_path / "not-yet").exists()


def test_an_existing_file_is_refused_unless_overwrite_and_then_it_ends_0600(tmp_path: Path) -> None:
    capture = tmp_path / "c.jsonl"
    capture.write_bytes(b"old\n")
    capture.chmod(0o666)
    done, started = proxy(tmp_path, "--capture", str(capture))
    assert_refused(done, started, "already exists")
    assert capture.read_bytes() == b"old\n" and mode(capture) == 0o666
    done, started = proxy(tmp_path, "--capture", str(capture), "--capture-overwrite")
    assert done.returncode == 0 and done.stdout == LINE and started.exists()
    assert mode(capture) == 0o600 and b"old" not in capture.read_bytes()
    assert capture.read_bytes().startswith(b'{"format":')


def test_overwrite_replaces_only_a_regular_file_of_ones_own(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo, 0o644)
    os.chmod(fifo, 0o644)  # whatever the umask: a FIFO others may open is never written to
    assert_refused(*proxy(tmp_path, "--capture", str(fifo), "--capture-overwrite"), "others may open")
    device = tmp_path / "not-regular"
    os.mkdir(device)
    assert_refused(*proxy(tmp_path, "--capture", str(device), "--capture-overwrite"), "not a regular file")
    linked = tmp_path / "linked.jsonl"
    linked.write_bytes(b"x")
    os.link(linked, tmp_path / "other-name")
    assert_refused(*proxy(tmp_path, "--capture", str(linked), "--capture-overwrite"), "hard links")
    if os.geteuid() == 0:  # only root can make a file someone else's
        theirs = tmp_path / "theirs.jsonl"
        theirs.write_bytes(b"x")
        os.chown(theirs, 65534, 65534)
        assert_refused(*proxy(tmp_path, "--capture", str(theirs), "--capture-overwrite"), "not to you")


def test_a_symlinked_sessions_dir_is_refused_and_its_target_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o755)
    target.chmod(0o755)
    home = tmp_path / "sessions"
    home.symlink_to(target)
    done, started = proxy(tmp_path, "--home", str(home))
    assert_refused(done, started, "is a symlink")
    assert mode(target) == 0o755 and list(target.iterdir()) == []


@pytest.mark.parametrize("lax", [0o770, 0o777, 0o707, 0o1777])
def test_a_group_or_world_writable_sessions_dir_is_refused_never_chmodded(tmp_path: Path, lax: int) -> None:
    home = tmp_path / "sessions"
    home.mkdir()
    home.chmod(lax)
    done, started = proxy(tmp_path, "--home", str(home))
    assert_refused(done, started, "writable by others")
    assert mode(home) == lax and list(home.iterdir()) == []


def test_a_sessions_dir_of_someone_else_is_refused(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root can give a directory away")
    home = tmp_path / "sessions"
    home.mkdir(mode=0o700)
    os.chown(home, 65534, 65534)
    assert_refused(*proxy(tmp_path, "--home", str(home)), "belongs to uid 65534")


@pytest.mark.parametrize(
    "name", ["../../../../escaped/x", "..", "a/../../b", "/etc/passwd", "x\ny\tz", "..\\..\\w"]
)
def test_name_is_a_name_not_a_path(tmp_path: Path, name: str) -> None:
    home = tmp_path / "a" / "b" / "sessions"
    done, _ = proxy(tmp_path, "--home", str(home), "--name", name)
    assert done.returncode == 0 and done.stdout == LINE
    (capture,) = home.iterdir()
    assert capture.suffix == ".jsonl" and ".." not in capture.name
    assert {p.name for p in (tmp_path / "a").rglob("*")} == {"b", "sessions", capture.name}  # nothing else


@settings(deadline=None)
@given(st.text())
def test_safe_name_never_leaves_the_directory(name: str) -> None:
    safe = safe_name(name)
    assert safe and "/" not in safe and "\\" not in safe and "\x00" not in safe
    assert ".." not in safe and not safe.startswith(".") and len(safe) <= 64


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o277])
def test_every_directory_is_0700_and_the_capture_0600_whatever_the_umask(tmp_path: Path, umask: int) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if k not in ("MCPSPY_HOME", "XDG_STATE_HOME")}
    done, _ = proxy(tmp_path, env={**env, "HOME": str(home)}, umask=umask)
    assert done.returncode == 0 and done.stdout == LINE
    made = [
        home / ".local",
        home / ".local/state",
        home / ".local/state/mcpspy",
        home / ".local/state/mcpspy/sessions",
    ]
    assert [mode(d) for d in made] == [0o700] * 4
    (capture,) = made[-1].iterdir()
    assert mode(capture) == 0o600
    explicit = tmp_path / f"explicit-{umask:o}.jsonl"
    done, _ = proxy(tmp_path, "--capture", str(explicit), env=env, umask=umask)
    assert done.returncode == 0 and mode(explicit) == 0o600


def test_an_existing_private_dir_with_a_lax_parent_is_used_as_it_is(tmp_path: Path) -> None:
    """Only the sessions directory itself is judged (and /tmp-like parents are common)."""
    parent = tmp_path / "shared"
    parent.mkdir()
    parent.chmod(0o1777)
    home = parent / "mine"
    done, _ = proxy(tmp_path, "--home", str(home))
    assert done.returncode == 0 and mode(home) == 0o700 and mode(parent) == 0o1777
