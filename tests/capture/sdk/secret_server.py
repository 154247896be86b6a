"""A Python SDK stdio server whose tool takes an API key and answers with a token (redaction tests)."""

import os
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("mcpspy-secrets")


@server.tool()
def lookup(api_key: str, query: str, ctx: Context) -> dict[str, Any]:
    """Answer ``query`` if the API key and the _meta authorization are the expected ones."""
    meta: Any = ctx.request_context.meta or {}
    authorized = meta.get("authorization") == os.environ["EXPECT_AUTHORIZATION"]
    return {
        "answer": f"{query}: ok",
        "key_ok": api_key == os.environ["EXPECT_API_KEY"],
        "authorized": authorized,
        "access_token": os.environ["ISSUED_TOKEN"],
    }


if __name__ == "__main__":
    server.run()
