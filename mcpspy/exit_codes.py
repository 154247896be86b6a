"""The exit codes of mcpspy's views and checks: a contract CI scripts rely on.

0 clean; 1 findings at or above ``--fail-on``; 2 could not read or run; 70
(EX_SOFTWARE) a bug in mcpspy. A crash is never 1: a CI gate must not read
mcpspy's own failure as a finding in the server. The proxy itself exits with
the server's status.
"""

from __future__ import annotations

import sys

from mcpspy.terminal import visible_line

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_UNREADABLE = 2
EXIT_BUG = 70
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports it
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE


def fail(prog: str, message: str) -> int:
    """Bad input or a file that cannot be read: one line on stderr naming what is wrong, then exit 2."""
    print(f"{prog}: {visible_line(message)}", file=sys.stderr)
    return EXIT_UNREADABLE
