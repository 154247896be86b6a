"""Python SDK stdio client for --inject runs: CALLS requests, each bounded, whatever befalls them.

Usage: py_fault_client.py CALLS TOOL ARGS_JSON -- CMD ARGS...

Every third request lists the tools, the others call TOOL; each waits at most
TIMEOUT seconds. One JSON line per request says what became of it ("ok", or
the error's type); after three failures in a row (the connection is gone) it
stops. Exit 0 whatever happened: the capture tells the reaction, not this.
"""

from __future__ import annotations

import json
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

TIMEOUT = 3.0


async def main(calls: int, tool: str, arguments: dict[str, object], command: list[str]) -> None:
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        with anyio.fail_after(60):
            await session.initialize()
        failures = 0
        for i in range(calls):
            try:
                with anyio.fail_after(TIMEOUT * 2):
                    if i % 3 == 2:
                        await session.list_tools()
                    else:
                        await session.call_tool(tool, arguments, read_timeout_seconds=TIMEOUT)
                print(json.dumps({"call": i, "outcome": "ok"}), flush=True)
                failures = 0
            except Exception as exc:  # any failure is an outcome to report
                print(json.dumps({"call": i, "outcome": type(exc).__name__}), flush=True)
                failures += 1
                if failures >= 3:
                    return


def run() -> None:
    split = sys.argv.index("--")
    calls, tool, arguments = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
    try:
        anyio.run(main, calls, tool, arguments, sys.argv[split + 1 :])
    except BaseException as exc:  # the session ended under a fault: say so, exit 0
        print(json.dumps({"ended": type(exc).__name__}), flush=True)


if __name__ == "__main__":
    run()
