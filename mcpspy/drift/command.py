"""``mcpspy diff A B``, ``mcpspy diff --baseline FILE SESSION``, ``mcpspy diff --save-baseline FILE SESSION``.

Sessions are named as ``report`` names them: a capture's path, a session
id, a file name or a server name (the newest of that name), looked up in the
sessions directories. Exit 0 no drift, 1 drift, 2 could not read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

from mcpspy.capture.format import CaptureFormatError
from mcpspy.capture.private import write_private_atomic
from mcpspy.capture.sessions import SessionInfo, find_session, read_session_checked, search_dirs
from mcpspy.drift.compare import compare_surfaces
from mcpspy.drift.report import json_report, text_report
from mcpspy.drift.surface import Surface, extract_surface
from mcpspy.exit_codes import fail
from mcpspy.options import add_home_option
from mcpspy.replay_policy import open_capture
from mcpspy.terminal import visible_line

EPILOG = """\
drift kinds: added, removed, description, schema-tightened, schema-loosened,
schema-changed, schema-doc, annotation-risk (readOnlyHint/destructiveHint),
annotation, field, server-info, capability-added, capability-removed,
capability-changed

exit status: 0 no drift, 1 drift, 2 could not read
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "What two sessions say about the server, compared: tools, prompts, resources, resource "
        "templates, server info and capabilities."
    )
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "sessions", nargs="+", metavar="SESSION", help="A B, or with a baseline option one SESSION"
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--baseline", metavar="FILE", help="compare SESSION with this saved surface")
    which.add_argument("--save-baseline", metavar="FILE", help="write SESSION's surface to FILE (for CI)")
    parser.add_argument("--json", action="store_true", help="the versioned JSON report")
    add_home_option(parser)


class Unreadable(Exception):
    """A session or baseline that cannot be read: one line on stderr, exit 2."""


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except Unreadable as exc:
        return fail("mcpspy diff", str(exc))


def _run(args: argparse.Namespace) -> int:
    wanted = 1 if (args.baseline or args.save_baseline) else 2
    if len(args.sessions) != wanted:
        usage = "one SESSION with --baseline or --save-baseline" if wanted == 1 else "two sessions, A and B"
        raise Unreadable(f"give {usage}")
    if args.save_baseline:
        name, surface = load_session(args.sessions[0], args.home)
        write_baseline(Path(args.save_baseline), surface.to_json(name))
        held = ", ".join(f"{len(found)} {area}" for area, found in surface.items.items() if found is not None)
        print(
            visible_line(
                f"saved the surface of {name} ({held or 'server info only'}) to {args.save_baseline}"
            )
        )
        return 0
    if args.baseline:
        a_name, a = args.baseline, load_baseline(Path(args.baseline))
        b_name, b = load_session(args.sessions[0], args.home)
    else:
        a_name, a = load_session(args.sessions[0], args.home)
        b_name, b = load_session(args.sessions[1], args.home)
    result = compare_surfaces(a, b)
    if args.json:
        sys.stdout.buffer.write(json_report(result, a_name, b_name))
    else:
        sys.stdout.write(text_report(result, a_name, b_name))
    sys.stdout.flush()
    return 1 if result.drifts else 0


def load_session(ref: str, home: str | None) -> tuple[str, Surface]:
    if Path(ref).expanduser().is_file():  # a file that is there but no capture: say why, not "no such"
        checked = read_session_checked(Path(ref).expanduser())
        if isinstance(checked, str):
            raise Unreadable(checked)
        info: SessionInfo | None = checked
    else:
        info = find_session(ref, search_dirs(home))
    if info is None:
        raise Unreadable(f"no session or capture {ref!r}")
    try:
        analyzer = open_capture(info.path).analyzer
    except (OSError, CaptureFormatError) as exc:
        raise Unreadable(f"cannot read {info.path}: {exc}") from None
    surface = extract_surface(analyzer)
    if surface.empty:
        raise Unreadable(f"{info.path} shows no server surface (no initialize, discover or list reply)")
    return str(info.path), surface


def load_baseline(path: Path) -> Surface:
    try:
        return Surface.from_json(orjson.loads(path.read_bytes()))
    except OSError as exc:
        raise Unreadable(f"cannot read the baseline {path}: {exc.strerror}") from None
    except (orjson.JSONDecodeError, ValueError) as exc:
        raise Unreadable(f"{path} is not a baseline: {exc}") from None


def write_baseline(path: Path, content: dict[str, object]) -> None:
    """Written whole or not at all, never through a symlink (it may hold a server's secrets too)."""
    data = orjson.dumps(content, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"
    try:
        write_private_atomic(path, data)
    except OSError as exc:
        raise Unreadable(f"cannot write the baseline {path}: {exc.strerror}") from None
