"""Capture headers are checked field by field; one bad file never hides the others."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest

from mcpspy.capture.format import CaptureFormatError, decode_header, encode_header
from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import Header
from mcpspy.capture.sessions import list_sessions
from tests.conftest import MCPSPY

GOOD: dict[str, Any] = orjson.loads(
    encode_header(Header("1.0", "s1", "2026-12-02T19:30:00.000Z", ("cat",), "cat", "/", "0.1.0", 42))
)
WRONG = [
    ("session", 7),
    ("session", None),
    ("started", ["2026"]),
    ("command", "cat -n"),
    ("command", ["cat", 1]),
    ("name", {"x": 1}),
    ("cwd", False),
    ("mcpspy", 0.1),
    ("pid", "42"),
    ("pid", -1),
    ("pid", 2**63),
    ("pid", 4.2),
    ("pid", True),
    ("redaction", "on"),
    ("redaction", {"enabled": "yes", "keys": []}),
    ("redaction", {"enabled": True, "keys": "token"}),
]


@pytest.mark.parametrize(("field", "value"), WRONG)
def test_a_field_of_the_wrong_type_is_named_in_one_line(field: str, value: object) -> None:
    line = orjson.dumps({**GOOD, field: value})
    with pytest.raises(CaptureFormatError) as caught:
        decode_header(line)
    assert f'"{field}"' in str(caught.value) and "\n" not in str(caught.value)


def test_a_good_header_and_one_with_a_policy_read_back() -> None:
    assert decode_header(orjson.dumps(GOOD)).pid == 42
    policy = {"enabled": True, "keys": ["token"]}
    assert decode_header(orjson.dumps({**GOOD, "redaction": policy, "future": [1]})).session == "s1"


def write_session(home: Path, name: str, header: dict[str, Any]) -> Path:
    path = home / f"{name}.jsonl"
    path.write_bytes(orjson.dumps(header) + b"\n")
    return path


def test_sessions_notes_each_bad_file_in_one_line_and_lists_the_others(tmp_path: Path) -> None:
    home = tmp_path / "sessions"
    home.mkdir(mode=0o700)
    write_session(home, "a-good", {**GOOD, "session": "good-one", "name": "good-one"})
    for i, (field, value) in enumerate(WRONG):
        write_session(home, f"bad-{i:02d}", {**GOOD, field: value})
    (home / "empty.jsonl").write_bytes(b"")
    (home / "garbage.jsonl").write_bytes(b"\xff\xfe not json\n")
    (home / "dir.jsonl").mkdir()
    write_session(home, "z-good", {**GOOD, "session": "other-good", "name": "other-good"})
    done = subprocess.run(
        [*MCPSPY, "sessions", "--home", str(home)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr
    listed = done.stdout.splitlines()
    assert len(listed) == 2 and "good-one" in listed[0] and "other-good" in listed[1]
    notes = done.stderr.splitlines()
    assert len(notes) == len(WRONG) + 3 and all(n.startswith("mcpspy sessions: skipped ") for n in notes)
    assert all(str(home) in n for n in notes)
    problems: list[str] = []
    assert len(list_sessions([home], problems)) == 2 and len(problems) == len(WRONG) + 3


def test_report_and_view_say_what_is_wrong_in_one_line(tmp_path: Path) -> None:
    path = write_session(tmp_path, "bad", {**GOOD, "pid": "x"})
    with pytest.raises(CaptureFormatError, match='"pid"'):
        read_capture(path)
    for command in (["report", str(path)], ["view", str(path)]):
        done = subprocess.run([*MCPSPY, *command], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and '"pid"' in done.stderr
