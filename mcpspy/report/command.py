"""`mcpspy report`: find the capture, replay it, print a view.

Exit codes of `report`: 0 clean, 1 a finding at or above --fail-on exists,
2 the capture could not be found, read, or is of a newer format.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from mcpspy.analysis.model import Severity
from mcpspy.capture.format import CaptureFormatError
from mcpspy.capture.locate import CaptureNotFound, locate_capture
from mcpspy.capture.private import write_output
from mcpspy.exit_codes import EXIT_FINDINGS, fail
from mcpspy.model.summary import Summary, build_summary
from mcpspy.options import add_home_option, seconds
from mcpspy.render.lazy import imported
from mcpspy.replay_policy import open_capture

PROG = "mcpspy report"
FAIL_ON: dict[str, Severity | None] = {"error": Severity.ERROR, "warning": Severity.WARNING, "never": None}


#: Each form of the report: a function from the summary to the document, its module imported when used.
FORMATS: dict[str, Callable[[Summary], str]] = {
    "text": imported("mcpspy.report.text", "render_text"),
    "json": imported("mcpspy.report.json_", "render_json"),
    "markdown": imported("mcpspy.report.markdown", "render_markdown"),
    "junit": imported("mcpspy.report.junit", "render_junit"),
    "sarif": imported("mcpspy.report.sarif", "render_sarif"),
    "html": imported("mcpspy.report.html", "render_html"),
    "har": imported("mcpspy.report.har", "render_har"),
    "otlp": imported("mcpspy.export.otlp", "render_otlp"),  # the OpenTelemetry SDK's own encoders
}
#: The forms written as they are made, a piece at a time: a big session's page is never whole in memory.
PIECES: dict[str, Callable[[Summary], Iterable[str]]] = {
    "html": imported("mcpspy.report.html", "html_pieces"),
    "har": imported("mcpspy.report.har", "har_pieces"),
}
WRITE_SIZE = 1 << 20  # pieces are gathered into writes of about this many bytes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", help="a capture file, session id or name (default: newest)")
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument(
        "--format", choices=tuple(FORMATS), default="text", help="the report's form (default: text)"
    )
    fmt.add_argument(
        "--json", dest="format", action="store_const", const="json", help="same as --format json"
    )
    fmt.add_argument(
        "--markdown", dest="format", action="store_const", const="markdown", help="same as --format markdown"
    )
    parser.add_argument("--out", metavar="FILE", help="write the report to FILE instead of stdout")
    parser.add_argument(
        "--otlp-endpoint",
        nargs="?",
        const="",
        metavar="URL",
        help="also send the session to an OTLP/HTTP collector (no URL: $OTEL_EXPORTER_OTLP_ENDPOINT)",
    )
    parser.add_argument(
        "--fail-on",
        choices=tuple(FAIL_ON),
        default="error",
        help="exit 1 when a finding this severe or worse exists (default: error)",
    )
    parser.add_argument(
        "--slow",
        type=seconds,
        default=30.0,
        metavar="SECONDS",
        help="a request pending longer than this is slow (default: 30)",
    )
    add_home_option(parser)


def run(args: argparse.Namespace) -> int:
    try:
        path = locate_capture(args.file, args.home)
        opened = open_capture(path, args.slow)
    except CaptureNotFound as exc:
        return fail(PROG, str(exc))
    except CaptureFormatError as exc:
        return fail(PROG, str(exc) if str(exc).startswith(str(path)) else f"{path}: {exc}")
    except OSError as exc:
        return fail(PROG, f"{exc.filename or args.file}: {exc.strerror or exc}")
    summary = build_summary(opened.capture, path, opened.analyzer)
    try:
        pieces = document(summary, args.format)
        if args.otlp_endpoint is not None and (problem := send_otlp(summary, args.otlp_endpoint)) is not None:
            return fail(PROG, problem)
    except ImportError as exc:  # an optional extra that is not installed (otel): its one line
        return fail(PROG, str(exc))
    if args.out is None:
        print_out(pieces)
    else:
        try:  # 0600, never via a symlink; a page cut short by an error is never left in its place
            write_output(Path(args.out).expanduser(), encoded(pieces))
        except OSError as exc:
            return fail(PROG, f"{args.out}: {exc.strerror or exc}")
    threshold = FAIL_ON[args.fail_on]
    worst = summary.worst
    return EXIT_FINDINGS if threshold is not None and worst is not None and worst >= threshold else 0


def document(summary: Summary, fmt: str) -> Iterable[str]:
    """The report in ``fmt``, in pieces (HTML and HAR made as they are written): what `report` prints
    and the TUI's export writes. An injected session's reactions learn of a restart first."""
    if summary.injected:
        from mcpspy.report.restarts import mark_restarts

        mark_restarts(summary)
    return PIECES[fmt](summary) if fmt in PIECES else [FORMATS[fmt](summary)]


def send_otlp(summary: Summary, endpoint: str) -> str | None:
    from mcpspy.export.otlp import send_report

    return send_report(summary, endpoint)


def encoded(pieces: Iterable[str]) -> Iterator[bytes]:
    """UTF-8, gathered into writes of about ``WRITE_SIZE``."""
    held: list[str] = []
    size = 0
    for piece in pieces:
        held.append(piece)
        size += len(piece)
        if size >= WRITE_SIZE:
            yield "".join(held).encode("utf-8")
            held, size = [], 0
    if held:
        yield "".join(held).encode("utf-8")


def print_out(pieces: Iterable[str]) -> None:
    for piece in pieces:
        sys.stdout.write(piece)
    sys.stdout.flush()  # a reader gone away (`| head`) raises here: cli.main ends quietly
