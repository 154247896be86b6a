"""Command-line options that several commands share: the sessions directory, a number of seconds."""

from __future__ import annotations

import argparse


def seconds(text: str) -> float:
    """An argparse type: a non-negative number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("seconds must be 0 or more")
    return value


def add_home_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--home",
        metavar="DIR",
        help="the sessions directory (default: $MCPSPY_HOME, else "
        "$XDG_STATE_HOME/mcpspy/sessions, else ~/.local/state/mcpspy/sessions)",
    )
