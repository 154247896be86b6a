"""One session, one id: the same form whether the capture went to --capture FILE or the sessions dir."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import MCPSPY

REQUEST = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}\n'
ECHO = [sys.executable, "-c", "import sys; [print(l, end='', flush=True) for l in sys.stdin]"]


def run(*args: str) -> Any:
    done = subprocess.run([*MCPSPY, *args], capture_output=True, timeout=60)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout) if done.stdout.startswith((b"{", b"[")) else done.stdout


def shown(ref: str, home: Path) -> set[str]:
    """Every place `sessions` and `report` show the session's id."""
    listed = run("sessions", "--home", str(home), "--json")
    return {s["session"] for s in listed} | {
        run("report", ref, "--home", str(home), "--json")["session"]["id"]
    }


def test_the_id_is_the_same_whichever_way_the_capture_went(tmp_path: Path) -> None:
    home, elsewhere = tmp_path / "sessions", tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    subprocess.run([*MCPSPY, "--home", str(home), "--name", "tiny", "--", *ECHO], input=REQUEST, timeout=60)
    subprocess.run(
        [*MCPSPY, "--capture", str(elsewhere / "mine.jsonl"), "--name", "tiny", "--", *ECHO],
        input=REQUEST,
        timeout=60,
    )
    (in_dir,) = home.glob("*.jsonl")
    ids = {in_dir: shown(in_dir.stem, home), elsewhere / "mine.jsonl": shown("mine", elsewhere)}
    for path, seen in ids.items():
        header = json.loads(path.read_bytes().split(b"\n", 1)[0])
        assert seen == {header["session"]}, (path, seen)  # one id wherever it is shown
        assert re.fullmatch(rf"\d{{8}}T\d{{6}}\.\d{{3}}Z-tiny-{header['pid']}", header["session"]), header
    assert in_dir.stem == json.loads(in_dir.read_bytes().split(b"\n", 1)[0])["session"]
    by_id = run("report", ids[elsewhere / "mine.jsonl"].pop(), "--home", str(elsewhere), "--json")
    assert by_id["session"]["file"] == str(elsewhere / "mine.jsonl")  # found by its id as well as by name
