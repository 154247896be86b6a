"""The stats and sessions caches are checked entry by entry, must be the user's own, and forget pruned captures."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import MCPSPY

HEADER = {"format": "1.1", "session": "20261204T000000.000Z-good-1", "started": "2026-12-04T00:00:00.000Z"}
RECORDS = [
    {"seq": 1, "t": 0.1, "stream": "c2s", "text": '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'},
    {"seq": 2, "t": 0.2, "stream": "s2c", "text": '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'},
    {"seq": 3, "t": 0.3, "event": "proxy-stopped", "code": 0},
]


def sessions_dir(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    for name in ("good", "other"):
        header = {**HEADER, "session": f"20261204T000000.000Z-{name}-1", "name": name, "command": [name]}
        path = home / f"20261204T000000.000Z-{name}-1.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in [header, *RECORDS]))
        path.chmod(0o600)
    return home


def mcpspy(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*MCPSPY, *args], capture_output=True, timeout=120, stdin=subprocess.DEVNULL)


def spoil(cache: Path, value: object) -> None:
    data = json.loads(cache.read_bytes())
    for entry in data["entries"].values():
        entry["value"] = value
    cache.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("command", "bad"),
    [
        ("stats", {"server": 5}),
        (
            "stats",
            {"server": "s", "session": "x", "messages": 1, "findings": {}, "methods": {"m": {"calls": "x"}}},
        ),
        ("sessions", {"messages": "many", "findings": {}}),
        ("sessions", {"messages": 1, "findings": {"error": None}}),
        ("sessions", [1]),
    ],
)
def test_a_malformed_entry_is_computed_again(tmp_path: Path, command: str, bad: object) -> None:
    home = sessions_dir(tmp_path)
    first = mcpspy(command, "--home", str(home))
    assert first.returncode == 0, first.stderr
    spoil(home / ".cache" / f"{command}.json", bad)
    again = mcpspy(command, "--home", str(home))
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user takes root")
def test_a_cache_that_is_not_the_users_own_is_not_read(tmp_path: Path) -> None:
    home = sessions_dir(tmp_path)
    first = mcpspy("stats", "--home", str(home))
    cache = home / ".cache" / "stats.json"
    data = json.loads(cache.read_bytes())
    for entry in data["entries"].values():
        entry["value"]["server"] = "planted"
    cache.write_text(json.dumps(data))
    os.chown(cache, 4242, 4242)
    again = mcpspy("stats", "--home", str(home))
    assert again.returncode == 0 and b"planted" not in again.stdout and again.stdout == first.stdout


def test_entries_of_captures_that_are_gone_are_dropped(tmp_path: Path) -> None:
    home = sessions_dir(tmp_path)
    for command in ("stats", "sessions"):
        assert mcpspy(command, "--home", str(home)).returncode == 0
    (home / "20261204T000000.000Z-other-1.jsonl").unlink()
    for command in ("stats", "sessions"):
        assert mcpspy(command, "--home", str(home)).returncode == 0
        entries = json.loads((home / ".cache" / f"{command}.json").read_bytes())["entries"]
        assert [Path(name).name for name in entries] == ["20261204T000000.000Z-good-1.jsonl"]
