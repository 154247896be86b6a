"""The stderr pane: the server's stderr lines, as plain text with their controls made visible."""

from __future__ import annotations

from collections.abc import Iterable

from textual.widgets import Log

from mcpspy.terminal import visible_line


class StderrPane(Log):
    """A ``Log`` (Line API, never markup) fed only lines made safe for the terminal."""

    def add(self, lines: Iterable[str]) -> None:
        self.write_lines([visible_line(line) for line in lines])
