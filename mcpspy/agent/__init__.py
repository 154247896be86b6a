"""``mcpspy mcp``: the sessions, findings and checks of mcpspy, served to an agent over MCP.

server.py wires the official SDK (the ``mcp`` extra); tools.py, resources.py
and waiting.py answer; views.py and untrusted.py shape what the agent reads,
captured data apart from mcpspy's own words; sessions.py finds and replays
captures. Imported only by ``mcpspy mcp``.
"""
