"""A Python SDK (mcp) stdio server for the check's conformance scenarios, both eras.

    python sdk_scenarios.py [--broken]

Tools: ``count`` reports progress (1, 2, 3) and logs at debug and error;
``weather`` has an outputSchema and returns structuredContent; ``roots_count``
asks for the client's roots (2026-07-28: an input_required result, answered
on the retry). With ``--broken`` each does it wrong: progress goes down,
the structured content misses a required field and has the wrong type, and
``roots_count`` asks again whatever the answer.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, Literal, TypedDict

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, InputRequiredResult, ListRootsRequest, TextContent

BROKEN = "--broken" in sys.argv
server = MCPServer("mcpspy-check-scenarios")


@server.tool()
async def count(ctx: Context) -> str:
    """Count to three, with progress and a log line at debug and one at error."""
    for step in (1, 3, 2) if BROKEN else (1, 2, 3):
        await ctx.report_progress(step, 3)
    await ctx.log("debug", "counting")  # below the check's level ("warning"): the SDK holds it back
    await ctx.log("error", "counted")
    return "3"


class Weather(TypedDict):
    temperature: float
    conditions: Literal["sunny", "rain"]


@server.tool()
def weather() -> Annotated[CallToolResult, Weather]:
    """Today's weather, as structured content (its outputSchema comes from Weather)."""
    data: dict[str, Any] = {"temperature": "warm"} if BROKEN else {"temperature": 21.5, "conditions": "sunny"}
    return CallToolResult(content=[TextContent(type="text", text=str(data))], structured_content=data)


@server.tool()
async def roots_count(ctx: Context) -> InputRequiredResult | str:
    """How many roots the client has: asked of it (MRTR in 2026-07-28)."""
    answers = ctx.input_responses or {}
    if "roots" in answers and not BROKEN:
        return f"{len(getattr(answers['roots'], 'roots', []))} roots"
    return InputRequiredResult(input_requests={"roots": ListRootsRequest(method="roots/list")})


if __name__ == "__main__":
    server.run()
