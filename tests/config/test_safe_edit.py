"""wrap/unwrap under pressure: at once, through symlinks, on bad configs, in unwritable places."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.config.test_wrap import PROJECT_MCP, PROXY, backup_of, environment, mcpspy, servers_of

ENTRIES = {f"s{i}": {"command": "node", "args": [f"s{i}.js"]} for i in range(3)}


def start(project: Path, home: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "mcpspy", *args],
        cwd=project,
        env=environment(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize("round_", range(10))
def test_three_wraps_at_once_keep_every_update(dirs: tuple[Path, Path], round_: int) -> None:
    project, home = dirs
    path = project / ".mcp.json"
    original = json.dumps({"mcpServers": ENTRIES, "keep": round_}, indent=2)
    path.write_text(original)
    runs = [start(project, home, "wrap", name) for name in ENTRIES]
    for run in runs:
        _, err = run.communicate(timeout=60)
        assert run.returncode == 0, err
    after = servers_of(path)
    assert all(after[name]["command"] == PROXY for name in ENTRIES), after
    assert json.loads(path.read_text())["keep"] == round_
    assert backup_of(path, home).read_text() == original  # made once, by the first
    assert sorted(p.name for p in project.iterdir()) == [".mcp.json"]
    runs = [start(project, home, "unwrap", name) for name in ENTRIES]
    for run in runs:
        _, err = run.communicate(timeout=60)
        assert run.returncode == 0, err
    assert path.read_text() == original and sorted(p.name for p in project.iterdir()) == [".mcp.json"]
    assert not backup_of(path, home).exists()


def test_a_wrap_waits_for_the_edit_lock_and_leaves_no_lock_file(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".mcp.json"
    path.write_text(PROJECT_MCP)
    lock = project / ".mcp.json.mcpspy-lock"
    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as another mcpspy editing the file would
        run = start(project, home, "wrap", "helpdesk")
        time.sleep(1.5)
        assert run.poll() is None and path.read_text() == PROJECT_MCP
        lock.unlink()  # the holder's protocol: remove, then let go
    _, err = run.communicate(timeout=60)
    assert run.returncode == 0, err
    assert servers_of(path)["helpdesk"]["command"] == PROXY and not lock.exists()


def test_a_symlinked_config_is_edited_at_its_target(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    dotfiles = home / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "mcp.json"
    target.write_text(PROJECT_MCP)
    target.chmod(0o640)
    link = project / ".mcp.json"
    link.symlink_to(target)
    done = mcpspy(project, home, "wrap", "helpdesk")
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert servers_of(target)["helpdesk"]["command"] == PROXY
    assert (target.stat().st_mode & 0o777) == 0o640
    assert backup_of(target, home).read_text() == PROJECT_MCP and backup_of(link, home) == backup_of(
        target, home
    )
    assert mcpspy(project, home, "unwrap", "helpdesk").returncode == 0
    assert link.is_symlink() and target.read_text() == PROJECT_MCP
    assert sorted(p.name for p in dotfiles.iterdir()) == ["mcp.json"]


def test_the_backup_is_never_overwritten_by_a_later_wrap(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".mcp.json"
    path.write_text(PROJECT_MCP)
    backup = backup_of(path, home)
    backup.parent.mkdir(parents=True, mode=0o700)
    backup.write_text("the user's older backup\n")
    done = mcpspy(project, home, "wrap", "helpdesk")
    assert done.returncode == 0 and "kept from an earlier wrap" in done.stdout
    assert backup.read_text() == "the user's older backup\n"
    assert mcpspy(project, home, "unwrap", "helpdesk").returncode == 0
    # The backup does not hold the entry: it is restored from the config itself (same values).
    assert json.loads(path.read_text()) == json.loads(PROJECT_MCP)


def test_a_symlink_where_the_backup_goes_is_not_followed(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    (project / ".mcp.json").write_text(PROJECT_MCP)
    victim = home / "victim"
    victim.write_text("untouched\n")
    backup = backup_of(project / ".mcp.json", home)
    backup.parent.mkdir(parents=True, mode=0o700)
    backup.symlink_to(victim)
    assert mcpspy(project, home, "wrap", "helpdesk").returncode == 0
    assert victim.read_text() == "untouched\n"
    assert mcpspy(project, home, "unwrap", "helpdesk").returncode == 0
    assert victim.read_text() == "untouched\n" and backup.is_symlink()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"mcpServers": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ('{"mcpServers": {"a": ' + '{"b":' * 50_000 + "1" + "}" * 50_000 + "}}", "nested too deeply"),
        ("[1, 2, 3]", "not an object"),
        ('"mcpServers"', "not an object"),
        ('{"mcpServers": [1]}', 'no "mcpServers" or "servers" object'),
        ('{"mcpServers": {"a": 1}}', "not an object"),
        ('{"mcpServers": {"a": {"command": 1}}}', "no command"),
        ('{"mcpServers": {"a": {"command": "x", "args": "y"}}}', "args"),
        ("{", "not valid JSON"),
        ("\ufeff{}", "not valid JSON"),
    ],
    # Short ids: pytest puts the id in PYTEST_CURRENT_TEST, and a 300 kB variable is too big to exec with.
    ids=[
        "deep-array",
        "deep-in-servers",
        "deep-objects",
        "array",
        "string",
        "servers-list",
        "entry-int",
        "command-int",
        "args-string",
        "truncated",
        "bom",
    ],
)
def test_every_bad_config_is_one_line_and_exit_2(dirs: tuple[Path, Path], text: str, says: str) -> None:
    project, home = dirs
    path = project / "c.json"
    path.write_text(text)
    for verb in ("wrap", "unwrap"):
        done = mcpspy(project, home, verb, "a", "--config", str(path))
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert says in done.stderr or verb == "unwrap"
        assert path.read_text() == text
    path.write_bytes(b"\xff\xfe{}")
    assert mcpspy(project, home, "wrap", "a", "--config", str(path)).stderr.count("\n") == 1
    for missing in (project / "nope.json", project):
        done = mcpspy(project, home, "wrap", "a", "--config", str(missing))
        assert done.returncode == 2 and done.stderr.count("\n") == 1


@pytest.fixture
def unwritable(tmp_path: Path) -> Iterator[Path]:
    """A directory no file can be created in, even by root (then it is made immutable)."""
    directory = tmp_path / "locked"
    directory.mkdir()
    (directory / ".mcp.json").write_text(PROJECT_MCP)
    directory.chmod(0o500)
    immutable = False
    if os.geteuid() == 0:
        chattr = shutil.which("chattr")
        immutable = chattr is not None and subprocess.run([chattr, "+i", str(directory)]).returncode == 0
        if not immutable:
            pytest.skip("root writes anywhere and chattr +i is not available here")
    yield directory
    if immutable:
        subprocess.run(["chattr", "-i", str(directory)], check=True)
    directory.chmod(0o700)


def test_a_config_in_an_unwritable_directory_is_one_line_and_exit_2(unwritable: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    config = unwritable / ".mcp.json"
    for verb in ("wrap", "unwrap"):
        done = mcpspy(unwritable, home, verb, "helpdesk", "--config", str(config))
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert "cannot write" in done.stderr or verb == "unwrap"
    assert config.read_text() == PROJECT_MCP and sorted(p.name for p in unwritable.iterdir()) == [".mcp.json"]
