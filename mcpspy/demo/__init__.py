"""The planted-bug demo: a helpdesk MCP server, a scripted client, `mcpspy demo`."""
