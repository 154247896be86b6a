"""``mcpspy mcp``: a stdio MCP server over the sessions directory, for coding agents.

Needs the official MCP SDK, the optional extra ``mcpspy[mcp]``; without it the
command says so in one line and exits 2.
"""

from __future__ import annotations

import argparse
import sys

from mcpspy.exit_codes import EXIT_UNREADABLE
from mcpspy.options import add_home_option

MISSING_EXTRA = "mcpspy mcp: needs the MCP SDK: pip install 'mcpspy[mcp]'"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Serve mcpspy's sessions, findings, messages and checks to an agent over MCP (stdio). "
        "Setup: claude mcp add mcpspy -- mcpspy mcp"
    )
    add_home_option(parser)


def run(args: argparse.Namespace) -> int:
    try:
        from mcpspy.agent.server import serve
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in ("mcp", "mcp_types"):
            raise
        print(MISSING_EXTRA, file=sys.stderr)
        return EXIT_UNREADABLE
    return serve(args.home)
