"""The entry point (`python -m mcpspy` and the `mcpspy` script): start-up signals are held first."""

import sys

from mcpspy import early_signals


def run() -> int:
    early_signals.hold()
    from mcpspy.cli import main

    return main()


if __name__ == "__main__":
    sys.exit(run())
