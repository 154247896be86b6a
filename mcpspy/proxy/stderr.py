"""fd 2, shared: the server's stderr passes through it, and mcpspy's own few lines.

The server's bytes go out the moment they are read. A line of mcpspy's that
comes while the server is in the middle of a line (``print`` writes in
pieces) waits for the end of that line, so it never splits one; at the end of
the session, one still waiting goes out after a newline.

mcpspy says nothing of its own by default (some clients treat any stderr text
as a failure): warnings always, the rest only with ``--verbose``.
"""

from __future__ import annotations

import threading

from mcpspy.proxy.fdio import write_all, write_quietly

STDERR = 2


class SharedStderr:
    """Thread-safe: the err pump forwards through it; any thread speaks through it."""

    def __init__(self, verbose: bool = False) -> None:
        self.verbose = verbose
        self._lock = threading.Lock()
        self._server_midline = False  # the server's last bytes did not end a line
        self._waiting: list[bytes] = []  # our lines, until the server's line ends

    def forward(self, data: bytes) -> None:
        """The server's stderr bytes, as they were read; raises OSError when fd 2 is gone."""
        with self._lock:
            write_all(STDERR, data)
            self._server_midline = not data.endswith(b"\n")
            if not self._server_midline and self._waiting:
                waiting, self._waiting = self._waiting, []
                write_all(STDERR, b"".join(waiting))

    def write_own(self, data: bytes) -> None:
        """mcpspy's own bytes, at a line boundary of the server's; raises OSError when fd 2 is gone."""
        with self._lock:
            if self._server_midline:
                self._waiting.append(data)
            else:
                write_all(STDERR, data)

    def warn(self, message: str) -> None:
        """One line of mcpspy's, always; never raises."""
        try:
            self.write_own(message.encode("utf-8", "replace") + b"\n")
        except OSError:
            pass

    def say(self, message: str) -> None:
        """One line of mcpspy's, with ``--verbose`` only."""
        if self.verbose:
            self.warn(f"mcpspy: {message}")

    def close(self) -> None:
        """The end: a line of ours still waiting goes out, after a newline that ends the server's."""
        with self._lock:
            if self._waiting:
                waiting, self._waiting = self._waiting, []
                write_quietly(STDERR, b"\n" + b"".join(waiting))
            self._server_midline = False
