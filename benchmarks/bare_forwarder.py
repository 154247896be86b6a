"""The benchmarks' baseline shim: forward stdio to a child and back, record nothing.

    python bare_forwarder.py CMD ARGS...

Two threads copy bytes with plain os.read/os.write (stdin -> child's stdin,
child's stdout -> stdout); the child's stderr is inherited. It is what any
stdio proxy must at least do, so every shim is compared with it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

READ_SIZE = 1 << 16


def pump(source: int, sink: int, close_sink: bool) -> None:
    """Copy until EOF on source (or a broken sink), then close the sink if asked."""
    try:
        while True:
            chunk = os.read(source, READ_SIZE)
            if not chunk:
                break
            view = memoryview(chunk)
            while view:
                view = view[os.write(sink, view) :]
    except OSError:
        pass
    finally:
        if close_sink:
            os.close(sink)


def main(command: list[str]) -> int:
    if not command:
        print("usage: bare_forwarder.py CMD [ARGS...]", file=sys.stderr)
        return 2
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert child.stdin is not None and child.stdout is not None
    child_in = os.dup(child.stdin.fileno())
    child.stdin.close()
    upstream = threading.Thread(target=pump, args=(0, child_in, True), daemon=True)
    downstream = threading.Thread(target=pump, args=(child.stdout.fileno(), 1, False))
    upstream.start()
    downstream.start()
    downstream.join()
    return child.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
