"""The live OTLP sink inside the real proxy: the real SDK client and server, a real collector.

Runs once the proxy has its ``--otlp-endpoint`` option (the lead wires the sink into the proxy).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mcpspy.replay_policy import open_capture
from tests.conftest import MCPSPY
from tests.export.collector import closed_port, running_collector
from tests.export.test_otlp_live import PY_CLIENT, PY_SERVER

WIRED = "--otlp-endpoint" in subprocess.run([*MCPSPY, "--help"], capture_output=True, text=True).stdout
pytestmark = pytest.mark.skipif(not WIRED, reason="the proxy has no --otlp-endpoint yet (wired by the lead)")


def client_through_proxy(tmp_path: Path, endpoint: str) -> tuple[subprocess.CompletedProcess[bytes], Path]:
    capture = tmp_path / "live.jsonl"
    proxy = [sys.executable, "-m", "mcpspy", "--capture", str(capture), "--otlp-endpoint", endpoint, "--"]
    done = subprocess.run(
        [*PY_CLIENT, "add", '{"a": 2, "b": 3}', "--", *proxy, *PY_SERVER],
        capture_output=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    return done, capture


def test_the_proxy_sends_each_exchange_live(tmp_path: Path) -> None:
    with running_collector() as collector:
        done, capture = client_through_proxy(tmp_path, collector.url)
        spans = collector.received.span_dicts()
    assert done.returncode == 0, done.stderr
    analyzer = open_capture(capture).analyzer
    methods = sorted(
        s["attributes"]["mcp.method.name"] for s in spans if "mcp.method.name" in s["attributes"]
    )
    assert methods == sorted(ex.method for ex in analyzer.exchanges)
    assert any(s["name"] == "tools/call add" for s in spans)


def test_a_dead_collector_costs_the_client_nothing_but_one_line(tmp_path: Path) -> None:
    done, _ = client_through_proxy(tmp_path, f"http://127.0.0.1:{closed_port()}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == b'["add"]'  # the client got its answers
    ours = [line for line in done.stderr.decode().splitlines() if line.startswith("mcpspy:")]
    assert len(ours) == 1 and "spans not sent" in ours[0] and "Connection refused" in ours[0], ours
