"""The benchmark suite runs end to end and produces every figure (never checks a timing)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "benchmarks"
OURS = ("direct", "bare", "mcpspy")
PEERS = ("mcphawk", "mcp-debugger", "socat")


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    out = tmp_path_factory.mktemp("bench") / "results.json"
    done = subprocess.run(
        [sys.executable, str(BENCH / "run.py"), "--quick", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text()), done.stdout


def test_latency_and_throughput_for_every_shim(quick: tuple[dict[str, Any], str]) -> None:
    results, _ = quick
    for name in OURS:
        assert is_number(results["latency"][name]["p50_us"]), results["latency"][name]
        assert is_number(results["latency"][name]["p99_us"])
        assert results["latency"][name]["p99_us"] >= results["latency"][name]["p50_us"]
        assert is_number(results["throughput"][name]["messages_per_s"]), results["throughput"][name]
        assert results["throughput"][name]["messages"] == results["sizes"]["throughput_messages"]


def test_peers_are_measured_or_skipped_with_a_reason(quick: tuple[dict[str, Any], str]) -> None:
    results, _ = quick
    for key, figure_key in (("latency", "p50_us"), ("throughput", "messages_per_s"), ("big_line", "seconds")):
        for name in PEERS:
            figure = results[key][name]
            assert is_number(figure.get(figure_key)) or figure.get("skipped") or figure.get("error"), figure


def test_big_line_went_through_cat_and_each_shim_whole(quick: tuple[dict[str, Any], str]) -> None:
    results, _ = quick
    for name in ("cat", "bare", "mcpspy"):
        figure = results["big_line"][name]
        assert figure["bytes"] == results["sizes"]["big_line_bytes"], figure
        assert is_number(figure["seconds"])


def test_memory_is_sampled_during_the_run(quick: tuple[dict[str, Any], str]) -> None:
    memory = quick[0]["memory"]
    assert memory["messages"] == quick[0]["sizes"]["memory_messages"], memory
    assert is_number(memory["rss_peak_mib"]) and memory["rss_samples"] >= 1
    assert memory["rss_peak_mib"] >= memory["rss_at_10pct_mib"] > 0
    assert isinstance(memory["flat"], bool)


def test_offline_figures_are_produced_or_skipped_until_their_code_lands(
    quick: tuple[dict[str, Any], str],
) -> None:
    results, _ = quick
    analysis, tui = results["analysis"], results["tui"]
    assert "error" not in analysis, analysis
    assert "error" not in tui, tui
    assert is_number(analysis.get("messages_per_s")) or "not landed" in analysis["skipped"]
    assert all(is_number(tui.get(key)) for key in ("seconds", "listed_seconds", "first_rows_seconds"))
    if "messages" in analysis:
        assert analysis["messages"] >= results["sizes"]["capture_messages"]


def test_ratios_targets_and_table(quick: tuple[dict[str, Any], str]) -> None:
    results, table = quick
    mine = results["ratios"]["mcpspy"]
    for key in ("latency_p50", "latency_p99", "throughput", "big_line_vs_cat"):
        assert is_number(mine[key]), (key, mine)
    assert results["ratios"]["bare"]["latency_p50"] == 1.0
    assert set(results["targets"]) == {
        "latency_p50 <= 1.5x bare",
        "latency_p99 <= 1.5x bare",
        "added_latency_p50 <= 1.5x bare",
        "added_latency_p99 <= 1.5x bare",
        "throughput >= 0.5x bare",
        "64 MiB line <= 3x cat",
        "64 MiB line <= 1.15x socat",
        "memory flat",
        "memory with --log <= 160 MiB",
        "memory with a live OTLP sink <= 160 MiB",
        *(
            f"{key} with a {shape} OTLP collector <= 1.2x no sink"
            for shape in ("live", "dead")
            for key in ("p50", "p99")
        ),
    }
    sinks = results["sinks"]["median"]  # benchmarks/sink_load.py's, --log and a live OTLP sink
    assert all(is_number(sinks[shape]["peak_total_mib"]) for shape in ("log", "otlp")), sinks
    assert any(line.startswith("memory of mcpspy and every process") for line in table.splitlines()), table
    otlp = results["otlp"]["median"]  # benchmarks/otlp_latency.py's figures, each shape measured
    assert all(is_number(otlp[shape]["p99_us"]) for shape in ("none", "live", "dead")), otlp
    assert results["machine"]["nproc"] >= 1 and results["machine"]["cpu"]
    for name in OURS:
        assert any(line.startswith(name) for line in table.splitlines()), table


def test_bare_forwarder_passes_bytes_exactly_and_the_exit_code() -> None:
    payload = b'{"jsonrpc":"2.0","id":1,"method":"x"}\n\xff\xfe raw\r\nno newline at the end'
    done = subprocess.run(
        [sys.executable, str(BENCH / "bare_forwarder.py"), "sh", "-c", "cat; exit 7"],
        input=payload,
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert done.stdout == payload
    assert done.returncode == 7


def test_echo_server_answers_requests_only() -> None:
    lines = [
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        b"not json",
        b'{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"n":3}}',
        b'{"jsonrpc":"2.0","method":"bench/echo","params":{"big":"x"}}',
    ]
    done = subprocess.run(
        [sys.executable, str(BENCH / "echo_server.py")],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        timeout=30,
        check=True,
    )
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r.get("id") for r in replies] == [1, "a", None]
    assert replies[0]["result"]["serverInfo"]["name"] == "bench-echo"
    [block] = replies[1]["result"]["content"]  # a valid tools/call result: clean traffic
    assert block["type"] == "text" and json.loads(block["text"]) == {"n": 3}
    assert replies[2]["params"] == {"big": "x"}
