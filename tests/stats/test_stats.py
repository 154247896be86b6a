"""`mcpspy stats` over sessions recorded by the real proxy, with errors planted where we know them."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import orjson

from mcpspy.capture.cache import CaptureCache, cache_dir, cached
from tests.conftest import MCPSPY, python_server
from tests.export.synthetic import META, write_calls

#: A server whose tools fail as told: "broken" answers a JSON-RPC error, "flaky" fails when the
#: session's argv says so, "slow" is never answered; everything else works.
SERVER = r"""
import json, sys
flaky_fails = "--flaky-fails" in sys.argv
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    name = msg.get("params", {}).get("name")
    if name == "slow":
        continue
    if name == "broken":
        reply = {"error": {"code": -32603, "message": "backend down"}}
    else:
        failed = name == "flaky" and flaky_fails
        content = [{"type": "text", "text": "no" if failed else "ok"}]
        reply = {"result": {"resultType": "complete", "content": content, "isError": failed}}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], **reply}) + "\n")
    sys.stdout.flush()
"""


def calls(*tools: str) -> bytes:
    lines = [
        {
            "jsonrpc": "2.0",
            "id": i,
            "method": "tools/call",
            "params": {"name": t, "arguments": {}, "_meta": META},
        }
        for i, t in enumerate(tools, start=1)
    ]
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


def record(home: Path, index: int, stdin: bytes, flaky_fails: bool) -> None:
    capture = home / f"2026120{index}T100000.000Z-planted-{index}.jsonl"
    args = [*python_server(SERVER), *(["--flaky-fails"] if flaky_fails else [])]
    done = subprocess.run(
        [*MCPSPY, "--capture", str(capture), "--name", "planted", "--", *args],
        input=stdin,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def stats(home: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [*MCPSPY, "stats", "--home", str(home), "--json", *args], capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_three_recorded_sessions_give_the_exact_counts(tmp_path: Path) -> None:
    home = tmp_path / "sessions"
    home.mkdir()
    record(home, 1, calls("fine", "flaky", "broken", "fine"), flaky_fails=True)
    record(home, 2, calls("fine", "flaky", "flaky", "slow"), flaky_fails=False)
    record(home, 3, calls("flaky", "broken", "fine"), flaky_fails=True)
    result = stats(home)
    assert result["stats_version"] == 1 and result["sessions"] == 3
    [server] = result["servers"]
    assert (server["server"], server["sessions"]) == ("planted", 3)
    [method] = server["methods"]
    assert {k: method[k] for k in ("method", "calls", "errors", "tool_errors", "unanswered")} == {
        "method": "tools/call",
        "calls": 11,
        "errors": 2,
        "tool_errors": 2,
        "unanswered": 1,
    }
    tools = {t["tool"]: t for t in server["tools"]}
    expected = {  # calls, JSON-RPC errors, tool errors, unanswered, sessions, sessions with a failure
        "fine": (4, 0, 0, 0, 3, 0),
        "flaky": (4, 0, 2, 0, 3, 2),
        "broken": (2, 2, 0, 0, 2, 2),
        "slow": (1, 0, 0, 1, 1, 0),
    }
    keys = ("calls", "errors", "tool_errors", "unanswered", "sessions", "failed_sessions")
    assert {name: tuple(t[k] for k in keys) for name, t in tools.items()} == expected
    assert server["flaky"] == [{"tool": "flaky", "sessions": 3, "failed_sessions": 2}]  # broken always fails
    for row in [method, *tools.values()]:
        assert (row["p50_ms"] is None) == (row.get("tool") == "slow")  # never answered: no latency
        if row["p50_ms"] is not None:
            assert 0 < row["p50_ms"] <= row["p95_ms"] <= row["p99_ms"]
    text = subprocess.run([*MCPSPY, "stats", "--home", str(home)], capture_output=True, text=True, timeout=60)
    assert "planted: 3 sessions" in text.stdout and "flaky: flaky failed in 2 of 3 sessions" in text.stdout


def test_since_and_named_captures(tmp_path: Path) -> None:
    home = tmp_path / "sessions"
    home.mkdir()
    old = write_calls(home / "old.jsonl", "old", [("search", "ok")])
    old.write_text(old.read_text().replace("2026-12-01T10:00:00.000Z", "2020-01-01T00:00:00.000Z", 1))
    recent = write_calls(tmp_path / "recent.jsonl", "recent", [("search", "tool"), ("search", "ok")])
    text = recent.read_text().replace("2026-12-01T10:00:00.000Z", "2099-01-01T00:00:00.000Z", 1)
    recent.write_text(text)
    assert stats(home)["sessions"] == 1
    assert stats(home, "--since", "1d")["sessions"] == 0
    result = stats(home, str(recent), "--since", "1d")  # a capture named by path, started "now"
    assert result["sessions"] == 1
    assert result["servers"][0]["tools"][0]["tool_errors"] == 1
    bad = subprocess.run([*MCPSPY, "stats", "--home", str(home), "nosuch"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("mcpspy stats: nosuch")


def test_the_cache_is_used_until_the_capture_changes(tmp_path: Path) -> None:
    home = tmp_path / "sessions"
    home.mkdir()
    capture = write_calls(home / "a.jsonl", "a", [("search", "ok")])
    computed: list[Path] = []

    def compute(path: Path) -> dict[str, int]:
        computed.append(path)
        return {"lines": len(path.read_bytes().splitlines())}

    assert cached(capture, compute, "test", home) == {"lines": 7}
    assert cached(capture, compute, "test", home) == {"lines": 7}
    assert len(computed) == 1
    with capture.open("ab") as f:  # the capture grows: its figures are computed again
        f.write(b'{"seq":99,"t":1.0,"event":"proxy-stopped","code":0}\n')
    assert cached(capture, compute, "test", home) == {"lines": 8}
    assert len(computed) == 2
    cache_file = cache_dir(home) / "test.json"
    assert cache_file.stat().st_mode & 0o777 == 0o600
    assert cache_dir(home).stat().st_mode & 0o777 == 0o700


def test_the_cache_never_follows_a_symlink(tmp_path: Path) -> None:
    home = tmp_path / "sessions"
    home.mkdir()
    capture = write_calls(home / "a.jsonl", "a", [("search", "ok")])
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    cache_dir(home).mkdir(mode=0o700)
    os.symlink(victim, cache_dir(home) / "test.json")
    with CaptureCache.open("test", home) as cache:
        assert cache.entries == {}  # not read through the link
        assert cache.get(capture, lambda p: 1) == 1
    assert victim.read_text() == "keep me"  # not written through it either
    assert not (cache_dir(home) / "test.json").is_symlink()  # replaced by a file of our own


def test_stats_are_cached_between_runs(tmp_path: Path) -> None:
    home = tmp_path / "sessions"
    home.mkdir()
    for i in range(3):
        write_calls(home / f"s{i}.jsonl", f"s{i}", [("search", "ok")] * 3)
    first = stats(home)
    cache_file = cache_dir(home) / "stats.json"
    entries = orjson.loads(cache_file.read_bytes())["entries"]
    assert len(entries) == 3
    # a forged entry stands for its capture while the capture is unchanged: proof the cache is read
    for entry in entries.values():
        entry["value"]["methods"]["tools/call"]["calls"] = 100
    cache_file.write_bytes(orjson.dumps({"format": [1, 1], "entries": entries}))
    second = stats(home)
    assert first["servers"][0]["methods"][0]["calls"] == 9
    assert second["servers"][0]["methods"][0]["calls"] == 300
