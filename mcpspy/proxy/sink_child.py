"""The sink process: ``--log`` and the live OTLP export, in a child of the proxy (``proxy.sink_process``).

    python -m mcpspy.proxy.sink_child [--log-fd FD | --log-voice] [--otlp-endpoint URL [--otlp-join]]
        [--verbose]

Its stdin is the proxy's feed: the capture's bytes as the proxy stored them,
header first, read as a live view reads a capture (``CaptureReader``), with a
``capture-gap`` record carrying ``sink_skipped`` where the proxy dropped
records it could not hand over. Its stdout (and stderr) is its voice: the
proxy writes what it says to its own stderr, a whole line at a time.

The main thread only reads and decodes, so the feed never fills while a sink
works; each sink takes the records on a thread of its own, bounded, and says
itself what it skipped (``SinkThread``; the OTLP sink has its own queue). At
the feed's end (the proxy's finish, or its death) the sinks get ``EXIT_WAIT``
together; SIGTERM (the proxy's wait ran out) makes them say what they leave
and stop; and ``HARD_EXIT`` after the feed's end the process is gone whatever
a sink is stuck in. A Ctrl-C at the terminal is not for this process (it has
its own session, and ignores SIGINT and SIGHUP besides). Nothing here is
ever printed as a traceback: one line says why the process stopped. It runs
at a lower priority (``NICENESS``): on busy CPUs its analysis waits, never
the forwarding.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING

from mcpspy.capture.format import CaptureFormatError
from mcpspy.capture.reader import CaptureReader
from mcpspy.capture.records import Event, Header, LifecycleRecord, Record
from mcpspy.clients import add_clients_option, choose_from
from mcpspy.proxy.fdio import write_quietly
from mcpspy.proxy.sink_thread import SinkThread

if TYPE_CHECKING:
    from mcpspy.export.otlp_live import OtlpSink

FEED = 0
VOICE = 1
READ_SIZE = 1 << 20
SLICE = 256  # records handed to a sink at once (a 1 MiB read holds thousands)
EXIT_WAIT = 5.0  # after the feed's end, how long the sinks have to finish, together
LEAVE_WAIT = 0.5  # past their time, how long they have to say what they leave
HARD_EXIT = EXIT_WAIT + 2.0  # after the feed's end, the process is gone by then whatever happens
#: Background work: where the CPUs are busy, the proxy and the server come first (the kernel gives a
#: nice-10 process about a tenth of a nice-0 one's share); falling behind costs records, counted.
NICENESS = 10


class Leave(Exception):
    """SIGTERM: the proxy stops waiting for us."""


def _leave(signum: int, frame: FrameType | None) -> None:
    raise Leave


def say(line: str) -> None:
    """One line to the proxy's stderr (never raises: a proxy gone, or not read, loses it)."""
    write_quietly(VOICE, line.encode("utf-8", "backslashreplace") + b"\n")


@dataclass
class Sink:
    """One sink as the reading loop sees it: feed records, tell a gap, finish."""

    name: str
    feed: Callable[[list[Record]], None]
    skipped: Callable[[int], None]
    finish: Callable[[float], None]  # within the seconds given


def log_sink(fd: int, to_voice: bool) -> Sink:
    from mcpspy.proxy.fdio import write_all
    from mcpspy.proxy.log import LogSink

    log = LogSink(lambda data: write_all(fd, data), say, show_stderr=not to_voice)
    thread = SinkThread(log, log.skipped)
    return Sink("--log", thread, thread.skip, lambda timeout: thread.close(timeout))


def otlp_sink(endpoint: str, header: Header, verbose: bool, join: bool = False) -> Sink | None:
    from mcpspy.export.otlp_live import open_otlp_sink

    otlp = open_otlp_sink(endpoint, header, say, join)
    if otlp is None:
        return None

    def finish(timeout: float) -> None:
        figures = otlp.close(timeout)
        if verbose:
            say(f"mcpspy: otlp: {figures}")

    sink: OtlpSink = otlp
    return Sink("otlp", sink, sink.skipped, finish)


def warm_up_sdk() -> None:
    """Import the SDK now, while the server starts, not when the first records wait."""
    try:
        from mcpspy.export.otel import require_sdk

        require_sdk()
        import mcpspy.export.spans  # noqa: F401
    except ImportError:
        pass  # open_otlp_sink says so


def sink_gap(record: Record) -> int | None:
    """Records the proxy dropped before us, when ``record`` is its note of them."""
    if isinstance(record, LifecycleRecord) and record.event is Event.CAPTURE_GAP:
        count = record.details.get("sink_skipped")
        return count if isinstance(count, int) else None
    return None


class Feeder:
    """The main thread's work: the feed's bytes to records, the records to every sink, in order."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.reader = CaptureReader("the proxy's feed", fd=FEED)
        self.sinks: list[Sink] = []
        if args.log_fd is not None or args.log_voice:
            self.sinks.append(log_sink(VOICE if args.log_voice else args.log_fd, args.log_voice))
        if args.otlp_endpoint is not None:
            warm_up_sdk()

    def take(self, chunk: bytes) -> None:
        had_header = self.reader.header is not None
        records = self.reader.feed(chunk)
        header, endpoint = self.reader.header, self.args.otlp_endpoint
        if not had_header and header is not None and endpoint is not None:
            otlp = otlp_sink(endpoint, header, self.args.verbose, self.args.otlp_join)
            self.sinks += [otlp] if otlp is not None else []
        run: list[Record] = []
        for record in records:
            if (gap := sink_gap(record)) is None:
                run.append(record)
                continue
            self._hand(run)
            run = []
            for sink in self.sinks:
                sink.skipped(gap)
        self._hand(run)

    def _hand(self, records: list[Record]) -> None:
        """In slices, as the proxy wrote them: a sink shows progress (and writes) a slice at a time."""
        for start in range(0, len(records), SLICE):
            piece = records[start : start + SLICE]
            for sink in self.sinks:
                sink.feed(piece)

    def finish(self, timeout: float) -> None:
        """Every sink finishes at once, each within ``timeout``."""
        threads = [
            threading.Thread(target=sink.finish, args=(timeout,), name=f"finish {sink.name}", daemon=True)
            for sink in self.sinks
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout + LEAVE_WAIT)


def run(args: argparse.Namespace) -> None:
    signal.signal(signal.SIGTERM, _leave)
    feeder = Feeder(args)
    timeout = EXIT_WAIT
    try:
        while chunk := os.read(FEED, READ_SIZE):
            feeder.take(chunk)
    except Leave:
        timeout = 0.0  # say what is left, and go
    except CaptureFormatError as exc:
        say(f"mcpspy: the --log/OTLP process stopped reading: {exc}")
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # from here on, a SIGTERM ends us at once
    hard_exit = threading.Timer(HARD_EXIT, os._exit, args=(1,))
    hard_exit.daemon = True
    hard_exit.start()
    feeder.finish(timeout)


def main(argv: list[str] | None = None) -> None:
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    parser = argparse.ArgumentParser(prog="mcpspy sink process")
    parser.add_argument("--log-fd", type=int)
    parser.add_argument("--log-voice", action="store_true")
    parser.add_argument("--otlp-endpoint")
    parser.add_argument("--otlp-join", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    add_clients_option(parser)
    args = parser.parse_args(argv)
    choose_from(args)
    try:
        run(args)
    except Exception as exc:  # one line, never a traceback on the client's stderr
        say(f"mcpspy: the --log/OTLP process stopped: {type(exc).__name__}: {exc}")
    os._exit(0)  # no interpreter teardown: a sink thread stuck in a write must not hold the exit


if __name__ == "__main__":
    main()
