"""The HTML report opened with a malformed ``#`` hash: its script still starts (it threw, and never did)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import MCPSPY
from tests.export.browser import chromium, dump_dom


@pytest.mark.skipif(chromium() is None, reason="needs chromium")
@pytest.mark.parametrize("fragment", ["#%E0%A4%A", "#q=%", "#%"])
def test_a_malformed_hash_leaves_the_page_working(tmp_path: Path, fragment: str) -> None:
    capture = tmp_path / "c.jsonl"
    header = {"format": "1.1", "session": "20261204T000000.000Z-x-1", "command": ["x"]}
    line = {"seq": 1, "t": 0.1, "stream": "c2s", "text": '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'}
    capture.write_text(json.dumps(header) + "\n" + json.dumps(line) + "\n")
    page = tmp_path / "report.html"
    subprocess.run([*MCPSPY, "report", str(capture), "--format", "html", "--out", str(page)], timeout=60)
    dom = dump_dom(page, fragment=fragment)
    assert 'data-ready="' in dom and " of 1 shown" in dom  # the script ran to its end
