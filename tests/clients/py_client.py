"""Python SDK stdio client: list tools, call one, print both as JSON lines.

Usage: py_client.py TOOL ARGS_JSON -- CMD ARGS...
"""

from __future__ import annotations

import json
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(tool: str, arguments: dict[str, object], command: list[str]) -> None:
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        print(json.dumps(sorted(t.name for t in tools.tools)))
        result = await session.call_tool(tool, arguments)
        print(json.dumps([c.model_dump(mode="json") for c in result.content], sort_keys=True))


if __name__ == "__main__":
    split = sys.argv.index("--")
    anyio.run(main, sys.argv[1], json.loads(sys.argv[2]), sys.argv[split + 1 :])
