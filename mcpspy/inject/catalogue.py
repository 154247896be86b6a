"""The injectable faults, as data: one row a fault, listed by ``mcpspy faults``. Pure.

A fault is one ``Action`` of the engine (``engine.py``) applied on one
direction: ``s2c`` faults alter what the server wrote before the client reads
it (they test the client), ``c2s`` faults alter what the client wrote before
the server reads it (they test the server). A fault's id names the finding it
provokes where one exists (``stdout.not-json`` makes exactly what the rule of
that id flags), and ``finding`` says so for the others.

Where a fault strikes (``anchor``): before or at the server's reply to a
client request (``reply``), or at a client request itself (``request``: the
server is killed after it reads it; a c2s fault alters the request).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Action(enum.Enum):
    """What the engine does at the fault's anchor line."""

    INSERT = "insert"  # write extra bytes before the line (the line goes on untouched)
    REPLACE = "replace"  # write other bytes in the line's place
    SPLIT = "split"  # the line in N writes with a pause between them
    DRIP = "drip"  # the line a byte at a time
    DELAY = "delay"  # the stream paused before the line
    REORDER = "reorder"  # the line held until the next reply has gone
    COALESCE = "coalesce"  # the line held and written with the next N-1 lines in one write
    AFTER_CANCEL = "after-cancel"  # the line held until the client cancels its request
    CUT = "cut"  # half the line written, then the client's stdout closed
    KILL = "kill"  # the server killed as the request reaches it (before it can answer)
    STDERR = "stderr"  # bytes on the server's stderr


class Unit(enum.Enum):
    """How a parameter's value is written: ``250ms``/``2s``, ``64KiB``/``4MiB``, a count, text."""

    MS = "ms"
    BYTES = "bytes"
    COUNT = "count"
    TEXT = "text"


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    unit: Unit
    default: int | str
    help: str
    choices: tuple[str, ...] = ()  # a TEXT parameter limited to these


@dataclass(frozen=True, slots=True)
class Fault:
    id: str
    direction: str  # "s2c" (tests the client) or "c2s" (tests the server)
    action: Action
    imitates: str  # what a real program does that this is
    finding: str | None  # the rule id it provokes, when one exists
    example: str  # a SPEC using it
    anchor: str = "reply"  # "reply": a reply to a client request; "request": a client request
    params: tuple[Param, ...] = ()
    ends_session: bool = False  # what follows it is the injection's doing (findings included)
    make: str = ""  # for INSERT/REPLACE: which transform of ``transforms.py``

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


MS = Unit.MS
BYTES = Unit.BYTES
COUNT = Unit.COUNT
TEXT = Unit.TEXT
KiB = 1024
MiB = 1024 * KiB

_TEXT = Param("text", TEXT, "ready", "the stray text (a line of its own)")
_PREFIX = Param("text", TEXT, "ready ", "the text glued before the message")
_WRITES = Param("writes", COUNT, 3, "how many writes the line is split into")
_GAP = Param("gap", MS, 50, "the pause between two writes")


def _framing(direction: str, stream: str) -> list[Fault]:
    """The line faults, the same on both pipes: ``stdout.*`` to the client, ``stdin.*`` to the server."""
    who = "a server" if direction == "s2c" else "a client"
    anchor = "reply" if direction == "s2c" else "request"
    target = "reply" if direction == "s2c" else "request"
    example_at = "@tools/call" if direction == "s2c" else "@tools/list"
    return [
        Fault(
            f"{stream}.not-json",
            direction,
            Action.INSERT,
            f"{who} printing a banner or log line on {stream} ('ready', 'Listening...') before its {target}",
            f"{stream}.not-json",
            f"{stream}.not-json{example_at}:text=ready",
            anchor,
            (_TEXT,),
            make="stray-line",
        ),
        Fault(
            f"{stream}.glued-prefix",
            direction,
            Action.REPLACE,
            f"{who} printing text with no newline, so that it is glued to the front of its {target}",
            f"{stream}.glued-prefix",
            f"{stream}.glued-prefix{example_at}",
            anchor,
            (_PREFIX,),
            make="glued-prefix",
        ),
        Fault(
            f"{stream}.multiline-json",
            direction,
            Action.REPLACE,
            f"{who} pretty-printing its {target} over several lines (json.dumps(indent=2))",
            f"{stream}.multiline-json",
            f"{stream}.multiline-json{example_at}",
            anchor,
            make="pretty",
        ),
        Fault(
            f"{stream}.content-length",
            direction,
            Action.INSERT,
            f"{who} framing its {target} as LSP does, a Content-Length header and a blank line before it",
            f"{stream}.content-length",
            f"{stream}.content-length{example_at}",
            anchor,
            make="content-length",
        ),
        Fault(
            f"{stream}.crlf",
            direction,
            Action.REPLACE,
            f"{who} on Windows (or a text-mode stream) ending its {target} with \\r\\n",
            f"{stream}.crlf",
            f"{stream}.crlf{example_at}#every",
            anchor,
            make="crlf",
        ),
        Fault(
            f"{stream}.invalid-utf8",
            direction,
            Action.REPLACE,
            f"{who} writing a string in Latin-1 or cutting a UTF-8 character in half (\\xff in a string)",
            f"{stream}.invalid-utf8",
            f"{stream}.invalid-utf8{example_at}",
            anchor,
            make="invalid-utf8",
        ),
        Fault(
            f"{stream}.blank-line",
            direction,
            Action.INSERT,
            f"{who} printing an empty line (print() with nothing) before its {target}",
            f"{stream}.blank-line",
            f"{stream}.blank-line{example_at}",
            anchor,
            make="blank-line",
        ),
        Fault(
            f"{stream}.split",
            direction,
            Action.SPLIT,
            f"{who} whose {target} leaves in several writes (a buffered writer flushing mid-message)",
            None,
            f"{stream}.split{example_at}:writes=4,gap=100ms",
            anchor,
            (_WRITES, _GAP),
        ),
        Fault(
            f"{stream}.coalesced",
            direction,
            Action.COALESCE,
            f"{who} whose {target} and the messages after it leave in one write",
            None,
            f"{stream}.coalesced:count=3",
            anchor,
            (
                Param("count", COUNT, 2, "how many messages share the write"),
                Param("wait", MS, 1000, "the longest the first one is held for the others"),
            ),
        ),
        Fault(
            f"{stream}.drip",
            direction,
            Action.DRIP,
            f"{who} on a slow pipe: its {target} arrives one byte at a time",
            None,
            f"{stream}.drip{example_at}:gap=2ms",
            anchor,
            (Param("gap", MS, 1, "the pause between two bytes"),),
        ),
    ]


FAULT_LIST: tuple[Fault, ...] = (
    *_framing("s2c", "stdout"),
    Fault(
        "stdout.oversized-line",
        "s2c",
        Action.REPLACE,
        "a server returning a big result (a file, a screenshot, a long listing) on one line",
        "stdout.oversized-line",
        "stdout.oversized-line@tools/call:size=8MiB",
        params=(Param("size", BYTES, 4 * MiB, "the padding added to the result"),),
        make="oversized",
    ),
    Fault(
        "stdout.unterminated",
        "s2c",
        Action.CUT,
        "a server that dies mid-write: the client's stdout closes in the middle of a reply",
        "stdout.unterminated",
        "stdout.unterminated@tools/call",
        ends_session=True,
    ),
    Fault(
        "reply.delay",
        "s2c",
        Action.DELAY,
        "a slow server: nothing comes out for a while before the reply",
        None,
        "reply.delay@tools/call:ms=5s",
        params=(Param("ms", MS, 2000, "how long the reply (and all behind it) waits"),),
    ),
    Fault(
        "pairing.out-of-order",
        "s2c",
        Action.REORDER,
        "a concurrent server answering a later request first",
        "pairing.out-of-order",
        "pairing.out-of-order#2",
        params=(Param("wait", MS, 1000, "the longest the reply is held for another one to pass it"),),
    ),
    Fault(
        "pairing.duplicate-response",
        "s2c",
        Action.REPLACE,
        "a server answering the same request twice (a retry loop, two handlers)",
        "pairing.duplicate-response",
        "pairing.duplicate-response@tools/list",
        make="duplicate",
    ),
    Fault(
        "pairing.unanswered",
        "s2c",
        Action.REPLACE,
        "a server that never answers a request (a swallowed exception, a lost promise)",
        "pairing.unanswered",
        "pairing.unanswered@tools/call",
        make="drop",
    ),
    Fault(
        "pairing.unknown-id",
        "s2c",
        Action.INSERT,
        "a server answering a request nobody sent (a stale id, another session's reply)",
        "pairing.unknown-id",
        "pairing.unknown-id@tools/list",
        make="unknown-id",
    ),
    Fault(
        "pairing.reply-after-cancel",
        "s2c",
        Action.AFTER_CANCEL,
        "a server that answers after the client has cancelled (or timed out) the request",
        "pairing.reply-after-cancel",
        "pairing.reply-after-cancel@tools/call:wait=60s",
        params=(Param("wait", MS, 30000, "the longest the reply is held waiting for the cancel"),),
    ),
    Fault(
        "reply.wrong-id-type",
        "s2c",
        Action.REPLACE,
        'a server echoing the id as another type (1 as "1", "7" as 7)',
        "pairing.unknown-id",
        "reply.wrong-id-type@tools/list",
        make="wrong-id-type",
    ),
    *(
        Fault(
            f"server.{name}",
            "s2c",
            Action.INSERT,
            f"a server asking the client {method} before its reply",
            None,
            f"server.{name}@tools/call",
            make=f"request:{method}",
        )
        for name, method in (
            ("roots-list", "roots/list"),
            ("sampling", "sampling/createMessage"),
            ("elicitation", "elicitation/create"),
            ("ping", "ping"),
        )
    ),
    Fault(
        "server.notification-flood",
        "s2c",
        Action.INSERT,
        "a server flooding the client with notifications before its reply",
        None,
        "server.notification-flood@tools/call:kind=progress,count=1000",
        params=(
            Param("count", COUNT, 100, "how many notifications"),
            Param("kind", TEXT, "log", "which", ("log", "progress", "list-changed")),
        ),
        make="flood",
    ),
    Fault(
        "lifecycle.crash-in-flight",
        "s2c",
        Action.KILL,
        "a server that crashes while working on a request (SIGKILL as the request reaches it)",
        "lifecycle.crash-in-flight",
        "lifecycle.crash-in-flight@tools/call",
        anchor="request",
        ends_session=True,
    ),
    Fault(
        "stderr.flood",
        "s2c",
        Action.STDERR,
        "a server logging a lot on stderr (a stack trace loop, debug output) before its reply",
        None,
        "stderr.flood:size=1MiB",
        params=(Param("size", BYTES, 256 * KiB, "how much text goes to stderr"),),
    ),
    *_framing("c2s", "stdin"),
    Fault(
        "request.duplicate",
        "c2s",
        Action.REPLACE,
        "a client sending the same request twice (a retry that does not wait)",
        "pairing.duplicate-id",
        "request.duplicate@tools/call",
        anchor="request",
        make="duplicate",
    ),
    Fault(
        "request.delay",
        "c2s",
        Action.DELAY,
        "a client (or the pipe to the server) that holds a request a while",
        None,
        "request.delay@tools/call:ms=500ms",
        anchor="request",
        params=(Param("ms", MS, 2000, "how long the request (and all behind it) waits"),),
    ),
)

FAULTS: dict[str, Fault] = {fault.id: fault for fault in FAULT_LIST}
