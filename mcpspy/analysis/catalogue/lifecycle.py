"""The catalogue rows of rules/lifecycle.py (lifecycle.*: the server process's life)."""

from __future__ import annotations

from mcpspy.analysis.catalogue.spec import LIFECYCLE, STDIO, E, W
from mcpspy.analysis.model import Rule
from mcpspy.analysis.rule_ids import RuleId

# A table, one rule a paragraph: id and severity; summary; spec source; bad, good, fix.
# fmt: off
ROWS: list[Rule] = [
    Rule(RuleId.LIFECYCLE_NO_EXIT_ON_EOF, W,
         "The server was still running after its stdin closed; it should exit promptly.",
         f"{STDIO} \u00a7Shutdown",
         bad="a server that ignores EOF on stdin", good="exit when stdin reaches end of file",
         fix="Exit when stdin reaches end of file: end the read loop, finish or fail what is in flight, "
         "and exit."),
    Rule(RuleId.LIFECYCLE_CRASH_IN_FLIGHT, E,
         "The server exited with requests in flight: their replies are lost.",
         f"{STDIO} \u00a7Shutdown, \u00a7Unexpected Termination",
         bad="exit while a tools/call is pending", good="answer, then exit",
         fix="Answer (or fail) every request in flight before exiting, and exit only when stdin closes."),
    Rule(RuleId.LIFECYCLE_FAILED_TO_CONNECT, E,
         "The server exited, or never started, before its first reply: the client can only say "
         "\"Failed to connect\". The finding gives the exit code, the command and the last stderr lines.",
         f"{STDIO} \u00a7Unexpected Termination; {LIFECYCLE} \u00a7Initialization",
         bad="a command not on PATH, or a server that crashes at start-up", good="a server that answers "
         "its first request",
         fix="Run the command by hand and fix what its stderr names: the path, the interpreter, a "
         "missing dependency or setting."),
]
# fmt: on
