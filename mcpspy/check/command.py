"""`mcpspy check [options] -- CMD ARGS...`: the options, and what the exit code means.

Exit codes: 0 nothing at or above --fail-on failed; 1 something did; 2 the
check could not run (the command is missing or cannot start, or the server
never answered anything) or not to its end (--max-time ran out), with one line
on stderr saying why. A server that floods its stdout fails robust.flood (1),
answered or not. Nothing goes
to stdout but the report, and nothing at all with --out.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from mcpspy.capture.private import write_output
from mcpspy.exit_codes import EXIT_FINDINGS, fail
from mcpspy.options import add_home_option
from mcpspy.render.lazy import imported

if TYPE_CHECKING:
    from mcpspy.check.model import CheckRun

PROG = "mcpspy check"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.usage = "mcpspy check [options] -- CMD [ARGS...]"
    parser.description = (
        "Run CMD behind the proxy, play a scripted client against it in each era, and judge the "
        "session: framing, error codes, _meta, notifications, robustness, shutdown. Each era's "
        "session is an ordinary capture that `mcpspy view` and `mcpspy report` open."
    )
    parser.add_argument(
        "--era",
        choices=("modern", "legacy", "both"),
        default="both",
        help="modern (2026-07-28), legacy (initialize) or both, one server process each (default: both); "
        "an era asked for alone must be spoken",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json", "junit", "sarif", "html", "conformance"),
        default="text",
        help="report format (default: text)",
    )
    parser.add_argument("--out", metavar="FILE", help="write the report to FILE instead of stdout")
    parser.add_argument(
        "--also",
        action="append",
        default=[],
        type=_also,
        metavar="FORMAT=FILE",
        help="also write the report in FORMAT to FILE, from the same run (repeatable: sarif=x.sarif)",
    )
    parser.add_argument("--badge", metavar="FILE", help="write an SVG badge: mcp check | passing / N failing")
    parser.add_argument(
        "--fail-on",
        choices=("error", "warning", "never"),
        default="error",
        help="exit 1 when a check fails at this level or worse (default: error)",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=3.0,
        metavar="S",
        help="seconds to wait for each reply (default: 3); the first reply and tool calls may take "
        "ten times as long, the exit after stdin closes twice as long",
    )
    parser.add_argument(
        "--max-time",
        type=_seconds,
        default=None,
        metavar="S",
        help="seconds for the whole check, the server's exit included (default: 40 times --timeout, "
        "plus 10 times --timeout for each --call: 120 s with the defaults); checks not run by then "
        "are skipped and the exit code is 2",
    )
    add_home_option(parser)  # where each era's capture goes
    parser.add_argument(
        "--call",
        action="append",
        default=[],
        type=_call,
        metavar="NAME=JSON",
        help="also call tool NAME with these arguments (a JSON object; repeatable). Tools are never "
        "called otherwise: they can have side effects",
    )
    parser.add_argument("server_command", nargs="*", metavar="CMD", help="the server command, after --")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value < 1e6:
        raise argparse.ArgumentTypeError(f"not a number of seconds from 0 to 1e6: {text!r}")
    return value


def _also(text: str) -> tuple[str, str]:
    name, sep, path = text.partition("=")
    if name not in FORMATS or not sep or not path:
        raise argparse.ArgumentTypeError(
            f"expected FORMAT=FILE with FORMAT one of {', '.join(FORMATS)}: {text!r}"
        )
    return name, path


def _call(text: str) -> tuple[str, Any]:
    name, sep, arguments = text.partition("=")
    if not name:
        raise argparse.ArgumentTypeError(f"no tool name in {text!r}; give NAME=JSON")
    try:
        value = orjson.loads(arguments) if sep else {}
    except orjson.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"the arguments of {name!r} are not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"the arguments of {name!r} must be a JSON object")
    return name, value


def run(args: argparse.Namespace) -> int:
    from mcpspy.analysis.model import Severity
    from mcpspy.capture.sessions import default_sessions_dir
    from mcpspy.check.model import Era, Status
    from mcpspy.check.runner import CheckError, Plan, run_check
    from mcpspy.check.script import Options

    command = list(args.server_command)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        return fail(PROG, "no server command: give it after --, as in `mcpspy check -- node server.js`")
    eras = (Era.MODERN, Era.LEGACY) if args.era == "both" else (Era(args.era),)
    home = Path(args.home).expanduser() if args.home else default_sessions_dir()
    options = Options(
        timeout=args.timeout, explicit=args.era != "both", calls=tuple(args.call), max_time=args.max_time
    )
    try:
        result = run_check(Plan(tuple(command), eras, options, home))
    except CheckError as exc:
        return fail(PROG, str(exc))
    except OSError as exc:
        return fail(PROG, f"{exc.filename or home}: {exc.strerror or exc}")
    outputs = [(args.format, args.out), *args.also]
    if args.badge is not None:
        outputs.append(("badge", args.badge))
    for name, out in outputs:
        try:
            _emit(FORMATS[name](result), out)
        except OSError as exc:
            return fail(PROG, f"cannot write {out}: {exc.strerror or exc}")
    if not any(era.answered or era.flooded for era in result.eras):  # a flood is a failure: exit 1
        eras_text = " or ".join(era.era.value for era in result.eras)
        return fail(
            PROG, f"the server never answered a request ({eras_text}); see the report and its captures"
        )
    late = [era for era in result.eras if era.timed_out]
    if late:
        skipped = sum(v.status is Status.SKIP for era in late for v in era.verdicts)
        eras_text = " and ".join(era.era.value for era in late)
        return fail(
            PROG,
            f"the check's time ran out (--max-time {result.max_time:g}) in the {eras_text} era: "
            f"{skipped} check(s) skipped; see the report",
        )
    threshold = {"error": Severity.ERROR, "warning": Severity.WARNING, "never": None}[args.fail_on]
    return EXIT_FINDINGS if result.failed(threshold) else 0


#: Each form of a check's report: a function from the run to the document, its module imported when used.
FORMATS: dict[str, Callable[[CheckRun], str]] = {
    "text": imported("mcpspy.check.text", "render_check_text"),
    "json": imported("mcpspy.check.json_", "render_check_json"),
    "junit": imported("mcpspy.check.junit", "render_check_junit"),
    "sarif": imported("mcpspy.check.sarif", "render_check_sarif"),
    "html": imported("mcpspy.check.html", "render_check_html"),
    "badge": imported("mcpspy.check.badge", "render_check_badge"),
    "conformance": imported("mcpspy.check.conformance", "render_check_conformance"),
}


def _emit(text: str, out: str | None) -> None:
    if out is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    write_output(Path(out).expanduser(), text.encode("utf-8"))  # 0600, never through a symlink
