"""``mcpspy mock CAPTURE``: a stdio MCP server made from a capture.

The I/O shell around ``MockServer``: one thread, ``select`` on stdin with the
next line's due time as the timeout, blocking writes to stdout and stderr. Its
stdout carries only what the recorded server wrote and the replies built
from it; its own words (a ``--strict`` stop, an unreadable capture) go to
stderr as one line.
"""

from __future__ import annotations

import argparse
import os
import select
import time
from collections.abc import Callable

from mcpspy.capture.format import CaptureFormatError
from mcpspy.capture.records import Stream
from mcpspy.exit_codes import fail
from mcpspy.playback.mock import MockServer, Timing
from mcpspy.playback.script import build_script
from mcpspy.replay_policy import open_capture
from mcpspy.terminal import visible_line

READ_SIZE = 1 << 16

HELP = """\
Answer as the recorded server did. Each request is matched to a recorded one
(same method and params, the id and params._meta aside; initialize,
server/discover and ping match on the method alone; among several, the first
not yet used, then the last again) and gets its recorded reply with the id
rewritten in the recorded bytes. What the server wrote besides replies
(notifications, stray lines, stderr) follows the client line it followed.
An unmatched request gets a -32601 error, or with --strict ends the mock
(exit 1). Run it behind mcpspy to inspect it:  mcpspy -- mcpspy mock CAPTURE
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = HELP
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("capture", metavar="CAPTURE", help="the capture file to answer from")
    parser.add_argument(
        "--timing",
        choices=[t.value for t in Timing],
        default=Timing.RECORDED.value,
        help="recorded: keep the recorded delays, so out-of-order replies stay out of order; "
        "fast: answer at once, in recorded order (default: recorded)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="end the mock (exit 1, one line on stderr) at the first request no recording matches",
    )


def run(args: argparse.Namespace) -> int:
    try:
        opened = open_capture(args.capture)
    except (OSError, CaptureFormatError) as exc:
        return fail("mcpspy mock", f"cannot read {args.capture}: {exc}")
    server = MockServer(build_script(opened.capture, opened.analyzer), Timing(args.timing), args.strict)
    try:
        return serve(server)
    except BrokenPipeError:
        return 0  # the client has gone: nobody is left to answer


def _say(text: str) -> None:
    os.write(2, (visible_line(text) + "\n").encode())


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _write_due(due: list[tuple[Stream, bytes]], fds: dict[Stream, int]) -> None:
    """Runs of lines for the same stream go out in one write: one syscall per read, not per line."""
    start = 0
    for i in range(1, len(due) + 1):
        if i == len(due) or due[i][0] is not due[start][0]:
            _write_all(fds[due[start][0]], b"".join(data for _, data in due[start:i]))
            start = i


def serve(
    server: MockServer,
    stdin: int = 0,
    stdout: int = 1,
    stderr: int = 2,
    clock: Callable[[], float] = time.monotonic,
) -> int:
    """Run until stdin closes and every owed reply is out: 0, or 1 on a ``--strict`` stop."""
    fds = {Stream.S2C: stdout, Stream.ERR: stderr}
    held: list[bytes] = []  # pieces of a line whose newline has not come yet
    server.start(clock())
    while True:
        _write_due(server.due(clock()), fds)
        if server.done:
            return 0
        due = server.next_due()
        timeout = None if due is None else max(0.0, due - clock())
        if server.input_closed:
            time.sleep(timeout or 0.0)
            continue
        if not select.select([stdin], [], [], timeout)[0]:
            continue
        chunk = os.read(stdin, READ_SIZE)
        if chunk and b"\n" not in chunk:
            held.append(chunk)
            continue
        lines = b"".join([*held, chunk]).split(b"\n")
        held = [lines.pop()] if chunk else []
        now = clock()
        for line in lines:
            unexpected = server.receive(line, now)
            if unexpected is not None:
                _say(f"mcpspy mock: {unexpected.reason}")
                return 1
        if not chunk:
            server.close_input()
