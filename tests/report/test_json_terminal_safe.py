"""``--json`` of report and check printed to a terminal: no C1 control nor bidi override goes out raw."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import MCPSPY

CSI, RLO = "\u009b", "\u202e"  # a C1 escape sequence's start; right-to-left override


def raw_unsafe(out: bytes) -> bool:
    return CSI.encode() in out or RLO.encode() in out


def test_report_json_escapes_c1_and_bidi_controls_and_stays_the_same_json(tmp_path: Path) -> None:
    capture = tmp_path / "c.jsonl"
    header = {"format": "1.1", "session": "20261204T000000.000Z-x-1", "command": [f"x{CSI}[31m{RLO}"]}
    line = {"seq": 1, "t": 0.1, "stream": "s2c", "text": f"{CSI}2J{RLO}evil"}
    capture.write_text(json.dumps(header) + "\n" + json.dumps(line) + "\n")
    proc = subprocess.run([*MCPSPY, "report", str(capture), "--json"], capture_output=True, timeout=60)
    assert proc.returncode == 1 and not raw_unsafe(proc.stdout)
    assert json.loads(proc.stdout)["session"]["command"] == [f"x{CSI}[31m{RLO}"]  # exact, once parsed
    assert b"\\u009b" in proc.stdout and b"\\u202e" in proc.stdout


def test_check_json_escapes_them_too(tmp_path: Path) -> None:
    server = [sys.executable, "-c", "import sys", f"{CSI}[2J{RLO}"]
    proc = subprocess.run(
        [
            *MCPSPY,
            "check",
            "--era",
            "modern",
            "--timeout",
            "0.5",
            "--format",
            "json",
            "--home",
            str(tmp_path),
            "--",
            *server,
        ],
        capture_output=True,
        timeout=120,
    )
    assert proc.stdout and not raw_unsafe(proc.stdout), proc.stderr
    assert json.loads(proc.stdout)["command"][-1] == f"{CSI}[2J{RLO}"
