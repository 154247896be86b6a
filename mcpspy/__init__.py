"""mcpspy: a stdio debugging proxy and traffic inspector for MCP servers."""

__version__ = "0.1.0"
