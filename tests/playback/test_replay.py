"""`mcpspy replay` as a real process against real servers through the real proxy."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import MCPSPY
from tests.playback.captures import request, result, write_capture

SCRIPTED = [sys.executable, str(Path(__file__).parent / "servers" / "scripted.py")]
INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
INIT_RESULT = {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "scripted", "version": "1"},
}
SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
TOOLS = {"tools": [{"name": "sum", "description": "Add numbers.", "inputSchema": SCHEMA}]}


def text(value: str) -> dict[str, object]:
    return {"content": [{"type": "text", "text": value}]}


def call(id_: object, a: int, b: int) -> str:
    return request(id_, "tools/call", {"name": "sum", "arguments": {"a": a, "b": b}})


def session(tmp_path: Path) -> Path:
    """initialize, tools/list, tools/call: each reply came before the next client line."""
    return write_capture(
        tmp_path / "recorded.jsonl",
        [
            (0.1, "c2s", request(0, "initialize", INIT)),
            (0.2, "s2c", result(0, INIT_RESULT)),
            (0.3, "c2s", request(1, "tools/list")),
            (0.4, "s2c", result(1, TOOLS)),
            (0.5, "c2s", call(2, 2, 3)),
            (0.6, "s2c", result(2, text("5"))),
        ],
    )


def replay(tmp_path: Path, capture: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MCPSPY, "replay", str(capture), "--home", str(tmp_path / "home"), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_same_server_replays_the_same(tmp_path: Path) -> None:
    done = replay(tmp_path, session(tmp_path), "--", *SCRIPTED)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("3 exchanges replayed: no differences")
    assert len(list((tmp_path / "home").glob("*replay-scripted*.jsonl"))) == 1  # the new capture


def test_a_changed_description_and_result_are_named_by_exchange_and_path(tmp_path: Path) -> None:
    done = replay(
        tmp_path, session(tmp_path), "--", *SCRIPTED, "--description", "Add two numbers.", "--off-by-one"
    )
    assert done.returncode == 1, done.stderr
    assert "3 exchanges replayed: 2 differ" in done.stdout
    assert "tools/list id 1 (recorded #4, replayed #" in done.stdout
    # An item of a named list is named by its name (issue 27), not by its index.
    assert '  $.result.tools[name=sum].description: "Add numbers." → "Add two numbers."' in done.stdout
    assert "tools/call id 2 (recorded #6, replayed #" in done.stdout
    assert '  $.result.content[0].text: "5" → "6"' in done.stdout


def test_json_format_and_options_either_side_of_the_capture(tmp_path: Path) -> None:
    capture = session(tmp_path)
    done = subprocess.run(
        [
            *MCPSPY,
            "replay",
            "--format",
            "json",
            str(capture),
            "--home",
            str(tmp_path),
            "--timeout",
            "5",
            "--",
            *SCRIPTED,
            "--off-by-one",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["replay_version"] == 1 and report["same"] is False and report["compared"] == 3
    (changed,) = report["exchanges"]
    assert (changed["method"], changed["id"], changed["recorded_seq"]) == ("tools/call", 2, 6)
    assert changed["differences"] == [
        {
            "path": "$.result.content[0].text",
            "named_path": "$.result.content[0].text",  # content items have no name
            "change": "changed",
            "old": "5",
            "new": "6",
        }
    ]


def test_ignored_paths_are_left_out(tmp_path: Path) -> None:
    server = [*SCRIPTED, "--description", "Add two numbers.", "--off-by-one"]
    ignores = ["--ignore", "$.result.tools[*].description", "--ignore", "$.result.content"]
    assert replay(tmp_path, session(tmp_path), *ignores, "--", *server).returncode == 0


def test_timestamps_in_meta_are_ignored_by_default_only(tmp_path: Path) -> None:
    capture = session(tmp_path)
    assert replay(tmp_path, capture, "--", *SCRIPTED, "--timestamp").returncode == 0
    strict = replay(tmp_path, capture, "--no-default-ignores", "--", *SCRIPTED, "--timestamp")
    assert strict.returncode == 1
    assert '$.result._meta: added {"timestamp":' in strict.stdout


def test_it_waits_for_the_replies_the_recording_waited_for(tmp_path: Path) -> None:
    """The server answers "overlapped" when a request comes before it has replied to the last."""
    capture = write_capture(
        tmp_path / "waited.jsonl",
        [
            (0.1, "c2s", call(1, 1, 1)),
            (0.5, "s2c", result(1, text("2"))),
            (0.6, "c2s", call(2, 2, 2)),
            (1.0, "s2c", result(2, text("4"))),
        ],
    )
    assert replay(tmp_path, capture, "--", *SCRIPTED, "--one-at-a-time").returncode == 0


def test_it_does_not_wait_where_the_recording_did_not(tmp_path: Path) -> None:
    capture = write_capture(
        tmp_path / "pipelined.jsonl",
        [
            (0.1, "c2s", call(1, 1, 1)),
            (0.1, "c2s", call(2, 2, 2)),
            (0.2, "s2c", result(1, text("overlapped"))),
            (0.5, "s2c", result(2, text("4"))),
        ],
    )
    done = replay(tmp_path, capture, "--", *SCRIPTED, "--one-at-a-time")
    assert done.returncode == 0, done.stdout


def test_a_client_answer_to_a_server_request_takes_the_new_request_id(tmp_path: Path) -> None:
    roots = {"roots": [{"uri": "file:///work"}]}
    capture = write_capture(
        tmp_path / "roots.jsonl",
        [
            (0.1, "c2s", request(5, "tools/call", {"name": "roots"})),
            (0.2, "s2c", request("roots-111", "roots/list")),
            (0.3, "c2s", result("roots-111", roots)),
            (0.4, "s2c", result(5, text(json.dumps(roots)))),
        ],
    )
    done = replay(tmp_path, capture, "--", *SCRIPTED, "--ask-roots")
    assert done.returncode == 0, done.stdout


def test_a_reply_that_never_comes_is_a_difference_after_the_timeout(tmp_path: Path) -> None:
    start = time.monotonic()
    done = replay(tmp_path, session(tmp_path), "--timeout", "1", "--", *SCRIPTED, "--silent")
    assert done.returncode == 1
    assert "tools/call id 2 (recorded #6, replayed #" in done.stdout
    assert "  no reply (the recording had one)" in done.stdout
    assert time.monotonic() - start < 30


def test_what_cannot_run_is_one_line_and_exit_2(tmp_path: Path) -> None:
    capture = session(tmp_path)
    taken = tmp_path / "taken.jsonl"
    taken.write_text("")
    cases = {
        "no command": [str(capture)],
        "no such server": [str(capture), "--", str(tmp_path / "no-such-server")],
        "no such capture": [str(tmp_path / "none.jsonl"), "--", *SCRIPTED],
        "not a capture": [str(taken), "--", *SCRIPTED],
        "capture path taken": [str(capture), "--capture", str(taken), "--", *SCRIPTED],
        "bad ignore": [str(capture), "--ignore", "result.x", "--", *SCRIPTED],
    }
    for name, args in cases.items():
        done = subprocess.run([*MCPSPY, "replay", *args], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, name
        assert done.stdout == "", name
        assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("mcpspy replay: "), (
            name,
            done.stderr,
        )


def test_a_capture_replayed_against_its_own_mock_is_the_same(tmp_path: Path) -> None:
    capture = session(tmp_path)
    done = replay(tmp_path, capture, "--", *MCPSPY, "mock", str(capture), "--strict")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_named_item_is_named_by_its_name_hostile_or_not() -> None:
    from mcpspy.jsonutil.paths import render_named_path

    old = {"result": {"tools": [{"name": "slow_count", "description": "a"}, {"name": "a b\x1b[2J"}]}}
    assert render_named_path(("result", "tools", 0, "description"), old) == (
        "$.result.tools[name=slow_count].description"
    )
    assert render_named_path(("result", "tools", 1), old) == '$.result.tools[name="a b\\u001b[2J"]'
    added = {"result": {"resources": [{"uri": "file:///a"}]}}  # only in the new reply
    assert render_named_path(("result", "resources", 0), {}, added) == '$.result.resources[uri="file:///a"]'
    assert render_named_path(("result", "content", 0, "text"), old) == "$.result.content[0].text"
