"""`check --format html` (the report card) and `--badge`: opened in headless Chromium, hostile names inert."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import orjson
import pytest

from tests.check.helpers import HERE, run_check
from tests.export.browser import chromium, dump_dom

needs_chromium = pytest.mark.skipif(chromium() is None, reason="chromium is not installed")


def hostile_server(tmp_path: Path) -> list[str]:
    """The faulty server, from a directory whose name is markup (it is shown as the command)."""
    folder = tmp_path / "<img src=x onerror=alert(1)>"
    folder.mkdir()
    shutil.copy(HERE / "servers" / "faulty_server.py", folder / "server.py")
    return [sys.executable, str(folder / "server.py"), "--fault", "control-banner", "--fault", "bad-schema"]


@needs_chromium
def test_the_report_card_shows_every_verdict_with_its_line_and_fix(tmp_path: Path) -> None:
    server = hostile_server(tmp_path)
    page, badge, data = tmp_path / "card.html", tmp_path / "badge.svg", tmp_path / "check.json"
    done = run_check(
        tmp_path / "home",
        server,
        "--out",
        str(page),
        "--also",
        f"json={data}",
        "--badge",
        str(badge),
        fmt="html",
    )
    assert done.returncode == 1, done.stderr
    html = page.read_text()
    assert "\x1b" not in html and "<img" not in html  # the banner's escapes and the folder's markup, inert
    assert "script-src 'none'" in html and "<script" not in html
    dom = dump_dom(page)
    report = orjson.loads(data.read_bytes())
    failing = [c for c in report["checks"] if c["status"] == "fail"]
    assert failing
    assert f"mcpspy check: {len(failing)} failing" in dom
    for check in report["checks"]:
        assert f">{check['id']}<" in dom, check["id"]
    for check in failing:
        assert check["fix"].split(" (")[0][:60].replace('"', "&quot;") in dom
    assert "\\x1b[31mready" in dom  # the stray line quoted, its escape made visible
    assert "&lt;img src=x onerror=alert(1)&gt;" in dom
    svg = badge.read_text()
    assert re.search(rf">{len(failing)} failing<", svg) and "<script" not in svg


def test_a_passing_server_gets_a_passing_badge(tmp_path: Path) -> None:
    badge = tmp_path / "badge.svg"
    done = run_check(
        tmp_path / "home", [sys.executable, str(HERE / "servers" / "faulty_server.py")], "--badge", str(badge)
    )
    assert done.returncode == 0, done.stderr
    assert ">passing<" in badge.read_text()
