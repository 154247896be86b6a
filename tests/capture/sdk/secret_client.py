"""A Python SDK stdio client: call `lookup` with an API key and a _meta authorization, print the result.

Usage: secret_client.py API_KEY AUTHORIZATION -- CMD ARGS...
"""

from __future__ import annotations

import json
import os
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(api_key: str, authorization: str, command: list[str]) -> None:
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool(
            "lookup", {"api_key": api_key, "query": "weather"}, meta={"authorization": authorization}
        )
        print(json.dumps(result.structured_content, sort_keys=True))


if __name__ == "__main__":
    split = sys.argv.index("--")
    anyio.run(main, sys.argv[1], sys.argv[2], sys.argv[split + 1 :])
