"""A tiny Python SDK stdio server with one tool, for the real-client tests."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("mcpspy-test")


@server.tool()
def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)


if __name__ == "__main__":
    server.run()
