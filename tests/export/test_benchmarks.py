"""The export and stats benchmarks run end to end on small inputs and give every figure (no timing checked)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.conftest import REPO
from tests.export.browser import chromium


def bench(script: str, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_otlp_overhead() -> None:
    result = bench("otlp_overhead.py", "--records", "2000")
    assert result["no_sink"]["us_per_record"] > 0
    assert result["live_collector"]["spans_received"] == result["live_collector"]["sent"] > 0
    assert result["dead_collector"]["sent"] == 0 and result["dead_collector"]["warnings"] == 1


def test_stats_speed() -> None:
    result = bench("stats_speed.py", "--sessions", "5", "--exchanges", "3")
    assert result["sessions"] == 5
    assert all(result[k] > 0 for k in ("stats_cold_s", "stats_cached_s", "sessions_s"))


def test_html_open() -> None:
    result = bench("html_open.py", "--messages", "200", "--runs", "1")
    if chromium() is None:
        assert "skipped" in result
    else:
        assert result["open_ms_median"] > 0 and result["html_bytes"] > 0


def test_otlp_latency() -> None:
    result = bench("otlp_latency.py", "--rounds", "2", "--requests", "50")
    assert set(result["p50_p99_by_round"]) == {"none", "live", "dead"}
    assert all(len(rounds) == 2 for rounds in result["p50_p99_by_round"].values())
    assert result["median"]["live"]["x_none"]["p99_us"] > 0 and result["spans"] > 0


def test_sink_load() -> None:
    result = bench("sink_load.py", "--requests", "3000", "--shapes", "plain,log,otlp")
    for shape in ("plain", "log", "otlp"):
        [run] = result["runs"][shape]
        assert run["exit_code"] == 0 and run["samples"] >= 1 and run["peak_total_mib"] > 0, run
        roles = set(run["peak_by_process_mib"])  # sampled together with mcpspy: its sink process, if any
        sinks = [role for role in roles if role.startswith("sink process")]
        assert len(sinks) == (0 if shape == "plain" else 1), run
        # besides a short-lived helper a library may run (trio runs `ldconfig -p` as it is imported)
        assert {"mcpspy", "watchdog", "server (cat)"} <= roles, run
        assert run["records_skipped"] == 0, run  # 6,000 records at once: within every sink's bounds
    assert result["runs"]["log"][0]["log_lines"] >= 6000
