"""`mcpspy stats [SESSION|FILE...] [--since 7d] [--json]`: how each server's methods and tools fare over time.

Per server (its serverInfo name, else the session's name), per method and per
tool: calls, JSON-RPC error replies, tool errors (``isError``), unanswered
requests, p50/p95/p99 reply latency, and the flaky tools: those that failed
in some sessions and worked in all of others. Each capture is replayed once
and its figures cached (stats/cache.py) until it changes.

``--json`` prints ``{"stats_version": 1, "sessions": N, "since": ISO|null,
"servers": [{"server", "sessions", "methods": [{"method", "calls", "errors",
"tool_errors", "unanswered", "p50_ms", "p95_ms", "p99_ms", "sessions",
"failed_sessions"}], "tools": [{"tool", ...the same}], "flaky": [{"tool",
"sessions", "failed_sessions"}]}]}``. Exit 0, or 2 when a named capture
cannot be read.
"""

from __future__ import annotations

import argparse
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from mcpspy.capture.cache import CaptureCache
from mcpspy.capture.format import CaptureFormatError
from mcpspy.capture.sessions import SessionInfo, find_session, list_sessions, read_session, search_dirs
from mcpspy.exit_codes import fail
from mcpspy.model.exchanges import parse_started
from mcpspy.options import add_home_option
from mcpspy.stats.counts import FIGURES_VERSION, Row, ServerStats, by_server, capture_figures, valid_figures
from mcpspy.terminal import visible_line

STATS_VERSION = 1
UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def duration(text: str) -> timedelta:
    """An argparse type: ``30m``, ``12h``, ``7d``, ``2w``."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([mhdw])", text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (e.g. 30m, 12h, 7d, 2w)")
    return timedelta(seconds=float(match.group(1)) * UNITS[match.group(2)])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("captures", nargs="*", metavar="SESSION|FILE", help="default: every session")
    parser.add_argument(
        "--since", type=duration, metavar="AGE", help="only sessions started this recently (7d)"
    )
    parser.add_argument("--json", action="store_true", help="machine-readable figures")
    add_home_option(parser)


class StatsError(Exception):
    """A named capture that cannot be found; the message is the one line shown."""


def chosen(refs: list[str], home: str | None, since: datetime | None) -> list[tuple[Path, bool]]:
    """(path, live) of each capture to count: those named, or every session; started since ``since``."""
    dirs = search_dirs(home)
    infos: list[SessionInfo] = []
    for ref in refs:
        path = Path(ref).expanduser()
        info = read_session(path) if path.is_file() else find_session(ref, dirs)
        if info is None:
            raise StatsError(f"{ref}: not a capture, and no session by that id or name")
        infos.append(info)
    if not refs:
        infos = list_sessions(dirs)
    return [(s.path, s.live) for s in infos if since is None or parse_started(s.header.started) >= since]


def gather(captures: list[tuple[Path, bool]], home: str | None) -> list[dict[str, Any]]:
    sessions_dir = search_dirs(home)[0]
    figures = []
    with CaptureCache.open("stats", sessions_dir, FIGURES_VERSION) as cache:
        for path, live in captures:
            try:
                if live:  # still growing: counted as it stands, never concluded, never cached
                    figures.append(capture_figures(path))
                else:
                    figures.append(cache.get(path, capture_figures, valid_figures))
            except (OSError, CaptureFormatError):
                continue  # a capture that vanished or is not one: counted as nothing
    return figures


def stats_json(servers: list[ServerStats], sessions: int, since: datetime | None) -> dict[str, Any]:
    return {
        "stats_version": STATS_VERSION,
        "sessions": sessions,
        "since": None if since is None else since.isoformat(timespec="seconds").replace("+00:00", "Z"),
        "servers": [
            {
                "server": s.name,
                "sessions": s.sessions,
                "methods": [row.as_json("method") for _, row in sorted(s.methods.items())],
                "tools": [row.as_json("tool") for _, row in sorted(s.tools.items())],
                "flaky": [
                    {"tool": r.name, "sessions": r.sessions, "failed_sessions": r.failed_sessions}
                    for r in s.flaky
                ],
            }
            for s in servers
        ],
    }


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def table(rows: list[Row], label: str) -> list[str]:
    width = max([len(label), *(len(visible_line(r.name)) for r in rows)])
    lines = [
        f"  {label:<{width}}  {'calls':>7} {'errors':>6} {'tool err':>8} {'unanswered':>10}"
        f" {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}"
    ]
    for r in rows:
        lines.append(
            f"  {visible_line(r.name):<{width}}  {r.calls:>7} {r.errors:>6} {r.tool_errors:>8}"
            f" {r.unanswered:>10}"
            f" {ms(r.percentile_ms(0.5)):>8} {ms(r.percentile_ms(0.95)):>8} {ms(r.percentile_ms(0.99)):>8}"
        )
    return lines


def stats_text(servers: list[ServerStats], sessions: int) -> str:
    if not servers:
        return f"no sessions to count ({sessions} read)\n"
    out: list[str] = []
    for s in servers:
        out.append(f"{visible_line(s.name)}: {s.sessions} session{'s' if s.sessions != 1 else ''}")
        out += table([row for _, row in sorted(s.methods.items())], "method")
        if s.tools:
            out += table([row for _, row in sorted(s.tools.items())], "tool")
        for row in s.flaky:
            out.append(
                f"  flaky: {visible_line(row.name)} failed in {row.failed_sessions}"
                f" of {row.sessions} sessions"
            )
        out.append("")
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    since = datetime.now(UTC) - args.since if args.since is not None else None
    try:
        captures = chosen(args.captures, args.home, since)
    except StatsError as exc:
        return fail("mcpspy stats", str(exc))
    figures = gather(captures, args.home)
    servers = by_server(figures)
    if args.json:
        sys.stdout.write(
            orjson.dumps(stats_json(servers, len(figures), since), option=orjson.OPT_INDENT_2).decode()
        )
        sys.stdout.write("\n")
    else:
        sys.stdout.write(stats_text(servers, len(figures)))
    sys.stdout.flush()
    return 0
