"""How soon `wait_for_message` of `mcpspy mcp` sees a message that lands in a live session.

    .venv/bin/python benchmarks/agent_wait.py [--runs N]

The demo server runs behind mcpspy's proxy (a live session); the Python SDK's
client calls wait_for_message on `mcpspy mcp`, and once the wait has begun
(its first progress notification) a tools/list request is written to the
proxy. Measured: from that write to the tool's result reaching the client
(the proxy forwards, the server answers, the capture is flushed, the wait
polls it every 50 ms, the reply goes back over stdio). The load average is
printed beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

MCPSPY = [sys.executable, "-m", "mcpspy"]
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


async def one_wait(client: Client, proxy: subprocess.Popen[bytes], request_id: int) -> float:
    """Seconds from writing a request to the proxy to wait_for_message returning its reply."""
    begun = anyio.Event()
    sent_at = 0.0

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        begun.set()

    async def send_when_waiting() -> None:
        nonlocal sent_at
        await begun.wait()
        assert proxy.stdin is not None
        line = {"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": {"_meta": META}}
        sent_at = time.perf_counter()
        proxy.stdin.write(json.dumps(line).encode() + b"\n")
        proxy.stdin.flush()

    async with anyio.create_task_group() as group:
        group.start_soon(send_when_waiting)
        result = await client.call_tool(
            "wait_for_message",
            {"filter": f"dir:s2c id:{request_id}", "timeout": 60},
            progress_callback=on_progress,
        )
    took = time.perf_counter() - sent_at
    assert result.structured_content and result.structured_content["matched"], result.content
    return took


async def measure(runs: int) -> list[float]:
    with tempfile.TemporaryDirectory() as home:
        proxy = subprocess.Popen(
            [*MCPSPY, "--home", home, "--", sys.executable, "-m", "mcpspy.demo.server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            while not list(Path(home).glob("*.jsonl")):
                await anyio.sleep(0.05)
            command = [*MCPSPY, "mcp", "--home", home]
            async with Client(StdioServerParameters(command=command[0], args=command[1:])) as client:
                return [await one_wait(client, proxy, 100 + i) for i in range(runs)]
        finally:
            assert proxy.stdin is not None
            proxy.stdin.close()
            proxy.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    times = sorted(anyio.run(measure, args.runs))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"wait_for_message, message written to result: median {statistics.median(times) * 1000:.0f} ms, "
        f"max {times[-1] * 1000:.0f} ms over {len(times)} runs (load average {load})"
    )


if __name__ == "__main__":
    main()
