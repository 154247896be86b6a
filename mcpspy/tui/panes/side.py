"""The side pane: the tabs beside (or under) the list, and the keys that act on them.

Detail, findings, in flight, stderr, timeline (keys 1-5, `[` `]`), and the
cursor on the detail's JSON lines (`l` / `L`, `c` copies the path under it).
"""

from __future__ import annotations

from functools import cached_property

from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

from mcpspy.terminal import visible_line
from mcpspy.tui.clipboard import send_to_clipboard
from mcpspy.tui.json_cursor import JsonCursor
from mcpspy.tui.panes.detail import DetailPane
from mcpspy.tui.panes.findings import FindingsPane
from mcpspy.tui.panes.inflight import InFlightPane
from mcpspy.tui.panes.stderr import StderrPane
from mcpspy.tui.panes.timeline import TimelinePane

# The side tabs, in the order of their keys (1-5): id, label, the pane inside.
SIDE_TABS: tuple[tuple[str, str, type[Widget]], ...] = (
    ("tab-detail", "Detail", DetailPane),
    ("tab-findings", "Findings", FindingsPane),
    ("tab-inflight", "In flight", InFlightPane),
    ("tab-stderr", "Stderr", StderrPane),
    ("tab-timeline", "Timeline", TimelinePane),
)
TABS = tuple(tab for tab, _, _ in SIDE_TABS)
PANE_OF_TAB = {tab: pane for tab, _, pane in SIDE_TABS}


def compose_side(id: str) -> ComposeResult:
    """The side pane with its tabs (a TabbedContent takes its panes as composed children)."""
    with SidePane(id=id):
        for tab, label, pane in SIDE_TABS:
            with TabPane(label, id=tab):
                yield pane(id=tab.removeprefix("tab-"))


class SidePane(TabbedContent):
    """The tabs; its keys do nothing while a screen is over the inspector."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.app.screen is self.screen

    @property
    def pane(self) -> Widget:
        """The content of the tab shown."""
        return self.query_one(PANE_OF_TAB[self.active])

    def action_show_tab(self, number: int) -> None:
        self.active = TABS[number - 1]

    def action_next_tab(self, step: int) -> None:
        self.action_show_tab((TABS.index(self.active) + step) % len(TABS) + 1)

    @cached_property
    def json_cursor(self) -> JsonCursor:
        """The cursor on the detail's JSON lines (`l` / `L` / `c`)."""
        return JsonCursor()

    def action_json_line(self, step: int) -> None:
        """`l` / `L`: the detail's cursor to the next / previous line of the JSON (`c` copies its path)."""
        detail = self.query_one(DetailPane)
        if not self.json_cursor.move(detail, detail.message, step):
            self.notify("no JSON in the selected message", severity="warning", markup=False)

    def action_copy_path(self) -> None:
        """`c`: the JSON path of the line under the detail's cursor to the clipboard."""
        detail = self.query_one(DetailPane)
        path = self.json_cursor.path(detail, detail.message)
        if path is None:
            self.notify("put the cursor on a JSON line first (l / L)", severity="warning", markup=False)
            return
        done = send_to_clipboard(self.app.copy_to_clipboard, path)
        self.notify(f"JSON path {visible_line(path)} {done}", markup=False)  # a key may hold a bidi override
