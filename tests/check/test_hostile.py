"""A hostile server cannot reach the terminal through the check's reports either.

The server of tests/test_hostile_text.py (escape sequences, C1, bidi overrides,
markup, a 10,000-character method, in its lines, ids, methods, errors and even
its command line) is checked; the text, JUnit and SARIF reports are read byte
by byte. The JSON report carries the data as data, as `report --json` does.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import orjson
import pytest

from tests.check.helpers import run_check
from tests.test_hostile_text import HOSTILE, SERVER, assert_clean

COMMAND = [sys.executable, "-c", SERVER, orjson.dumps(HOSTILE).decode(), *HOSTILE[:2]]


@pytest.mark.parametrize("fmt", ["text", "junit", "sarif"])
def test_the_reports_of_a_hostile_server_show_no_control_character(tmp_path: Path, fmt: str) -> None:
    result = run_check(tmp_path, COMMAND, "--timeout", "1", fmt=fmt)
    assert result.returncode == 1, result.stderr[-2000:]
    assert_clean(result.stdout, f"check --format {fmt}")
    assert_clean(result.stderr, f"check --format {fmt} (stderr)")
    shown = result.stdout
    if fmt == "junit":
        ET.fromstring(shown)
    if fmt == "sarif":
        shown = " ".join(r["message"]["text"] for run in orjson.loads(shown)["runs"] for r in run["results"])
    assert "\\x1b]0;PWNED\\x07" in shown  # the server's text is there, made visible
