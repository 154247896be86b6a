"""``mcpspy replay CAPTURE -- CMD ARGS...``: the recorded client, played against a server.

The server runs behind the proxy (the real ``mcpspy`` executable), so the
replay is a capture like any other; the comparison is made between the two
captures once the server has exited, by the replay policy's pairing. This
module is the I/O shell: one ``select`` loop over the proxy's three pipes.
"""

from __future__ import annotations

import argparse
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from mcpspy.capture.format import CaptureFormatError
from mcpspy.capture.records import Event, LifecycleRecord, Record
from mcpspy.capture.sessions import default_sessions_dir, ensure_private_dir, server_name, session_file_name
from mcpspy.exit_codes import fail
from mcpspy.jsonutil.paths import PatternError
from mcpspy.options import seconds
from mcpspy.playback.compare import DEFAULT_IGNORED, compare_replies, ignored_paths
from mcpspy.playback.plan import ServerWatch, Step, plan_steps
from mcpspy.playback.replay_report import json_report, text_report
from mcpspy.replay_policy import open_capture

READ_SIZE = 1 << 16
EXIT_WAIT = 30.0  # after stdin closes: the proxy's own grace (5 s) and its kill, with room to spare

IGNORED_HELP = "\n".join(f"  {path:52} {why}" for path, why in DEFAULT_IGNORED)
EPILOG = f"""\
Ignored always: $.id (the JSON-RPC id). Ignored by default (--no-default-ignores to compare them):
{IGNORED_HELP}

--ignore takes a path in this JSONPath subset, from the reply's root:
  $.result.content[0].text   $.result.*   $.result.tools[*].description
  $..timestamp (at any depth)   $._meta["io.example/key"]

exit status: 0 same replies, 1 differences, 2 could not run
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Play a capture's client side against a server (through the proxy, so a new capture is "
        "written), wait for each reply the recording waited for, and compare every reply with "
        "the recorded one."
    )
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("capture", metavar="CAPTURE", help="the recorded session to play")
    parser.add_argument("server", nargs=argparse.REMAINDER, metavar="-- CMD ARGS", help="the server to run")
    _add_options(parser)


def _add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="JSONPATH",
        help="leave this place out of the comparison (repeatable)",
    )
    parser.add_argument(
        "--no-default-ignores", action="store_true", help="compare the fields ignored by default too"
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="the report (default: text)"
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=10.0,
        metavar="S",
        help="how long to wait for each reply the recording waited for (default: 10)",
    )
    parser.add_argument("--capture", dest="new_capture", metavar="PATH", help="write the new capture here")
    parser.add_argument("--home", metavar="DIR", help="the sessions directory for the new capture")


def server_command(args: argparse.Namespace) -> list[str]:
    """The command after ``--``, parsing the options argparse left with it.

    argparse hands everything after CAPTURE to the REMAINDER positional, options
    included when they come before ``--`` (``replay CAP --format json -- CMD``).
    """
    rest = list(args.server)
    if rest[:1] == ["--"]:
        return rest[1:]
    if not rest or not rest[0].startswith("-"):
        return rest  # argparse took the ``--`` away: all of it is the command
    split = rest.index("--") if "--" in rest else len(rest)
    options = argparse.ArgumentParser(prog="mcpspy replay CAPTURE")
    _add_options(options)
    options.parse_args(rest[:split], namespace=args)
    return rest[split + 1 :]


class CouldNotRun(Exception):
    """The replay cannot be made or judged: one line for stderr, exit 2."""


def run(args: argparse.Namespace) -> int:
    command = server_command(args)
    try:
        if not command:
            raise CouldNotRun(
                "no server command: give it after --, as in `mcpspy replay CAPTURE -- node s.js`"
            )
        ignored = ignored_paths(args.ignore, defaults=not args.no_default_ignores)
        try:
            old_opened = open_capture(args.capture)
            old_capture, old = old_opened.capture, old_opened.analyzer
        except (OSError, CaptureFormatError) as exc:
            raise CouldNotRun(f"cannot read {args.capture}: {exc}") from None
        new_path = _new_capture_path(args.new_capture, args.home, command)
        steps = plan_steps(old_capture, old)
        play(
            steps, [sys.executable, "-m", "mcpspy", "--capture", str(new_path), "--", *command], args.timeout
        )
        try:
            new_opened = open_capture(new_path)
            new_capture, new = new_opened.capture, new_opened.analyzer
        except (OSError, CaptureFormatError) as exc:
            raise CouldNotRun(f"the replay wrote no readable capture: {exc}") from None
        for record in new_capture.records:
            if isinstance(record, LifecycleRecord) and record.event is Event.SERVER_STARTED:
                break
        else:
            raise CouldNotRun(f"could not start {command[0]}: {_start_error(new_capture.records)}")
    except (CouldNotRun, PatternError) as exc:
        return fail("mcpspy replay", str(exc))
    result = compare_replies(old, new, ignored)
    if args.format == "json":
        sys.stdout.buffer.write(json_report(result, str(args.capture), str(new_path)))
    else:
        sys.stdout.write(text_report(result, str(args.capture), str(new_path)))
    sys.stdout.flush()
    return 0 if result.same else 1


def _start_error(records: list[Record]) -> object:
    errors = (r.details.get("error") for r in records if isinstance(r, LifecycleRecord))
    return next((e for e in errors if e), "the server never started")


def _new_capture_path(explicit: str | None, home: str | None, command: list[str]) -> Path:
    if explicit:
        path = Path(explicit)
        if path.exists():
            raise CouldNotRun(f"{explicit} exists already: the new capture needs a new path")
        return path
    directory = Path(home).expanduser() if home else default_sessions_dir()
    try:
        ensure_private_dir(directory)
    except OSError as exc:
        raise CouldNotRun(f"cannot make the sessions directory {directory}: {exc}") from None
    name = f"replay-{server_name(command)}"
    return directory / session_file_name(datetime.now(UTC), name, os.getpid())


class Proxy:
    """The proxy and its server, on pipes we pump without ever blocking."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None and self.proc.stderr is not None
        self.stdin: int | None = self.proc.stdin.fileno()
        # each open output pipe, with the pieces of a line whose newline has not come yet
        self.readers: dict[int, list[bytes]] = {self.proc.stdout.fileno(): [], self.proc.stderr.fileno(): []}
        self.stdout = self.proc.stdout.fileno()
        os.set_blocking(self.stdin, False)
        self.outgoing = bytearray()
        self.closed_stdin = False

    def pump(self, watch: ServerWatch, done: Callable[[], bool], timeout: float) -> bool:
        """Move bytes until ``done()`` or ``timeout`` seconds pass or both output pipes close."""
        deadline = time.monotonic() + timeout
        while not done():
            left = deadline - time.monotonic()
            if left <= 0 or (not self.readers and self.stdin is None):
                return False
            writers = [self.stdin] if self.stdin is not None and self.outgoing else []
            readable, writable, _ = select.select(list(self.readers), writers, [], left)
            if writable:
                self._write()
            for fd in readable:
                self._read(fd, watch)
            if not self.readers:  # the proxy has exited: nothing more will be read or written
                self.outgoing.clear()
                self._close_stdin()
        return True

    def _write(self) -> None:
        assert self.stdin is not None
        try:
            written = os.write(self.stdin, self.outgoing)
        except BlockingIOError:
            return
        except BrokenPipeError:
            self.outgoing.clear()
            self._close_stdin()
            return
        del self.outgoing[:written]
        if not self.outgoing and self.closed_stdin:
            self._close_stdin()

    def _read(self, fd: int, watch: ServerWatch) -> None:
        chunk = os.read(fd, READ_SIZE)
        if not chunk:
            del self.readers[fd]
            return
        if fd != self.stdout:
            return  # the server's stderr: in the new capture already
        held = self.readers[fd]
        if b"\n" not in chunk:
            held.append(chunk)
            return
        *lines, tail = b"".join([*held, chunk]).split(b"\n")
        self.readers[fd] = [tail]
        for line in lines:
            watch.feed(line)

    def send(self, data: bytes) -> None:
        self.outgoing += data

    def close_stdin(self) -> None:
        self.closed_stdin = True
        if not self.outgoing:
            self._close_stdin()

    def _close_stdin(self) -> None:
        if self.stdin is not None and self.proc.stdin is not None:
            self.proc.stdin.close()
            self.stdin = None


def settled(proxy: Proxy, watch: ServerWatch, awaits: bytes | None) -> bool:
    """Everything is written and the awaited reply (``None``: every reply owed) has come."""
    if proxy.outgoing:
        return False
    return watch.all_answered if awaits is None else watch.answered(awaits)


def play(steps: list[Step], argv: list[str], timeout: float) -> None:
    """Send the steps through a proxy, with the waits the recording had; then close and let it exit."""
    proxy = Proxy(argv)
    watch = ServerWatch()
    try:
        for step in steps:
            data = step.data
            if step.answers is not None and proxy.pump(
                watch, partial(watch.has_request, step.answers), timeout
            ):
                data = step.with_id(watch.take_request(step.answers))
            proxy.send(data)
            watch.sent(step)
            if step.wait:
                proxy.pump(watch, partial(settled, proxy, watch, step.awaits), timeout)
            if proxy.stdin is None:
                break  # the server is gone
        proxy.pump(watch, partial(settled, proxy, watch, None), timeout)
        proxy.close_stdin()
        proxy.pump(watch, lambda: False, EXIT_WAIT)
    finally:
        if proxy.proc.poll() is None:
            proxy.proc.terminate()  # the proxy passes it on to the server, then exits
        proxy.proc.wait()
        for pipe in (proxy.proc.stdout, proxy.proc.stderr):
            if pipe is not None:
                pipe.close()
