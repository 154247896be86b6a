"""The inspector: message list, detail pane, findings, in-flight requests, stderr, timeline.

The app reads a capture only. A thread worker follows the file (toolong-style,
polling every 25 ms when idle), feeds the records to the Analyzer it alone
owns, and posts ``Analysed`` batches. The app composes the panes (tui/panes/),
hands each batch to them, and routes what they say to each other: the list's
cursor to the detail pane, a chosen finding to the list, the filter bar's
filter to the list, and any change to the header.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.message import Message as TextualMessage
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, HelpPanel, TabbedContent, TabPane
from textual.worker import get_current_worker

from mcpspy.analysis.model import Message
from mcpspy.capture.format import CaptureFormatError
from mcpspy.replay_policy import collector_paused
from mcpspy.tui.loader import Batch, CaptureFeed, Snapshot
from mcpspy.tui.panes.detail import DetailPane
from mcpspy.tui.panes.filter_bar import FilterBar
from mcpspy.tui.panes.findings import FindingsPane
from mcpspy.tui.panes.header import HeaderBar, HeaderState
from mcpspy.tui.panes.inflight import InFlightPane
from mcpspy.tui.panes.message_list import MessageList
from mcpspy.tui.panes.stderr import StderrPane
from mcpspy.tui.panes.timeline import TimelinePane
from mcpspy.tui.whole_message import WholeMessage

POLL_IDLE = 0.025
WIDE = 120  # from this many columns the side pane sits beside the list, else under it
BATCH_EVERY = 1.0  # seconds: while reading a backlog, post what was analysed this often
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


@dataclass
class Analysed(TextualMessage):
    batch: Batch


@dataclass
class CaptureProblem(TextualMessage):
    text: str


class InspectorApp(App[None]):
    """`mcpspy watch` and `mcpspy view`: the same app, following or not.

    ``clock`` gives the wall-clock time in seconds since the epoch; in-flight ages
    tick by it while live (a test passes a fixed one).
    """

    TITLE = "mcpspy"
    CSS = """
    #main { layout: vertical; height: 1fr; }
    #main.wide { layout: horizontal; }
    #side { height: 1fr; }
    #main.wide #messages { width: 1fr; min-width: 70; }
    #main.wide #side { width: 1fr; min-width: 49; margin-left: 1; }
    #side TabPane { padding: 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("slash", "open_filter", "Filter"),
        Binding("f", "toggle_follow", "Follow"),
        Binding("p", "pair", "Pair"),
        Binding("v", "whole", "Full"),
        Binding("tab", "switch_pane", "Pane", priority=True),
        Binding("right_square_bracket", "next_tab(1)", "Tab"),
        Binding("left_square_bracket", "next_tab(-1)", "Prev tab", show=False),
        *(
            Binding(str(n), f"show_tab({n})", label, show=False)
            for n, (_, label, _) in enumerate(SIDE_TABS, 1)
        ),
        Binding("question_mark", "toggle_help", "Keys"),
        Binding("escape", "close_filter", "Close filter", show=False),
    ]
    INSPECTOR_ACTIONS = frozenset(
        {
            "open_filter",
            "toggle_follow",
            "pair",
            "whole",
            "switch_pane",
            "next_tab",
            "show_tab",
            "close_filter",
        }
    )

    def __init__(
        self, path: Path, live: bool = True, slow_after: float = 30.0, clock: Callable[[], float] = time.time
    ) -> None:
        super().__init__()
        self.path = path
        self.live = live
        self.slow_after = slow_after
        self.clock = clock
        self.snapshot = Snapshot(slow_after=slow_after)  # the analysis's state after the last batch
        self.problems: list[str] = []
        self.loaded = False  # the capture was read to its end (or its proxy stopped) and concluded
        self.unanalysed = 0  # messages listed whose analysis is still to come
        self.reading = False  # a backlog is still being listed
        self._message_list: MessageList | None = None  # kept: scripts read its rows after the app exits

    def compose(self) -> ComposeResult:
        yield HeaderBar(id="header")
        with Horizontal(id="main"):
            message_list = self._message_list = MessageList(id="messages")
            yield message_list
            with TabbedContent(id="side"):
                for tab, label, pane in SIDE_TABS:
                    with TabPane(label, id=tab):
                        yield pane(id=tab.removeprefix("tab-"))
        yield FilterBar()
        yield Footer()

    def on_mount(self) -> None:
        self.message_list.focus()
        self.follow_capture()
        self.set_interval(1.0, self.tick)
        self.refresh_header()

    def on_resize(self, event: events.Resize) -> None:
        self.query_one("#main").set_class(event.size.width >= WIDE, "wide")

    @property
    def message_list(self) -> MessageList:
        if self._message_list is None:
            raise NoMatches("the message list is not composed yet")
        return self._message_list

    @property
    def rows(self) -> Sequence[Message]:
        """The messages the list shows (those that pass the filter)."""
        return self.message_list.rows

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The inspector's keys do nothing over another screen (the whole-message view)."""
        return action not in self.INSPECTOR_ACTIONS or self.screen is self._inspector_screen

    @property
    def _inspector_screen(self) -> Screen[object]:
        return self.screen_stack[0]

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if screen is not self._inspector_screen:
            return
        yield SystemCommand("Follow", "Follow the newest message (f)", self.action_toggle_follow)
        yield SystemCommand("Filter", "Show only matching messages (/)", self.action_open_filter)
        yield SystemCommand("Pair", "Jump between a request and its reply (p)", self.action_pair)
        yield SystemCommand("Whole message", "The selected message in full (v)", self.action_whole)
        for n, (_, label, _) in enumerate(SIDE_TABS, 1):
            yield SystemCommand(
                f"Show {label.lower()}", f"The {label.lower()} tab ({n})", lambda n=n: self.action_show_tab(n)
            )

    # --- reading the capture (worker thread)

    @work(thread=True, exclusive=True)
    def follow_capture(self) -> None:
        worker = get_current_worker()
        try:
            feed = CaptureFeed(self.path, self.live, self.slow_after)
        except OSError as exc:
            self.post_message(CaptureProblem(f"cannot open {self.path}: {exc.strerror}"))
            return
        held = Batch()  # analysed, not yet posted: a big capture goes up in a few big batches
        posted_at = 0.0
        with closing(feed), collector_paused() as resume_collector:
            while not worker.is_cancelled and not feed.done:
                try:
                    batch = feed.step()
                except CaptureFormatError as exc:
                    self.post_message(CaptureProblem(str(exc)))
                    return
                held.merge(batch)
                now = time.monotonic()
                if feed.caught_up:
                    resume_collector(len(feed.analyzer.messages))
                # Live traffic is shown at once; a backlog every BATCH_EVERY, and as soon as it is listed.
                listed = feed.reader.at_end and batch.messages
                if held and (feed.caught_up or listed or feed.done or now - posted_at >= BATCH_EVERY):
                    self.post_message(Analysed(held))
                    held, posted_at = Batch(), now
                if not batch:
                    time.sleep(POLL_IDLE)

    # --- routing: the worker's batches and the panes' messages

    @on(CaptureProblem)
    def show_problem(self, event: CaptureProblem) -> None:
        self.problems.append(event.text)
        self.refresh_header()

    @on(Analysed)
    def take_batch(self, event: Analysed) -> None:
        batch = event.batch
        try:
            messages, detail = self.message_list, self.query_one(DetailPane)
        except NoMatches:  # the app is closing
            return
        self.snapshot = batch.snapshot
        analysis_caught_up = self.unanalysed and not batch.unanalysed
        self.unanalysed, self.reading = batch.unanalysed, batch.reading
        self.problems.extend(batch.problems)
        messages.add(batch.messages, batch.changed)
        if batch.findings:
            self.query_one(FindingsPane).add(batch.findings)
        if batch.stderr:
            self.query_one(StderrPane).add(batch.stderr)
        detail.changed(batch.changed)
        detail.show(messages.current)  # now, so that it is drawn in the same frame as the list
        if batch.ended:
            self.loaded = True
            self.live = False  # nothing more will come: ages stop ticking
        if analysis_caught_up and messages.filter is not None:
            messages.set_filter(messages.filter)  # the list was filtered before the analysis had its say
        self.refresh_header()
        self.refresh_side()

    @on(MessageList.Shown)
    def message_shown(self, event: MessageList.Shown) -> None:
        for detail in self.query(DetailPane):  # none while the app closes
            detail.show(event.message)

    @on(MessageList.Changed)
    def list_changed(self, event: MessageList.Changed) -> None:
        self.refresh_header()

    @on(FilterBar.Applied)
    def filter_applied(self, event: FilterBar.Applied) -> None:
        self.message_list.set_filter(event.filter)
        self.message_list.focus()

    @on(FindingsPane.JumpTo)
    def jump_to_finding(self, event: FindingsPane.JumpTo) -> None:
        if self.message_list.jump_to(event.seq):
            self.query_one(TabbedContent).active = "tab-detail"
            self.message_list.focus()
        elif self.message_list.filter is not None:
            self.notify(f"line {event.seq} is hidden by the filter", severity="warning", markup=False)
        else:
            self.notify(f"line {event.seq} is a process event, not a message", markup=False)

    @on(TabbedContent.TabActivated, "#side")
    def tab_shown(self, event: TabbedContent.TabActivated) -> None:
        self.refresh_side()

    def refresh_header(self) -> None:
        try:
            messages, header = self.message_list, self.query_one(HeaderBar)
        except NoMatches:  # the app is closing
            return
        state = HeaderState(
            self.path.name,
            self.snapshot,
            self.query_one(FindingsPane).by_severity,
            len(messages.rows),
            len(messages.all_messages),
            self.reading,
            self.unanalysed,
            messages.follow,
            self.loaded,
            messages.filter.text if messages.filter else None,
            self.problems[-1] if self.problems else None,
        )
        header.show(state)

    def refresh_side(self) -> None:
        """The in-flight and timeline tabs, when shown (a hidden one is refreshed as it is shown)."""
        try:
            active = self.query_one(TabbedContent).active
        except NoMatches:  # the app is closing
            return
        if active == "tab-inflight":
            self.query_one(InFlightPane).show(self.snapshot, self.session_now())
        elif active == "tab-timeline":
            self.query_one(TimelinePane).show(self.snapshot.exchanges, self.session_now())

    def session_now(self) -> float:
        """Seconds since the session started: by the clock while live, else the last line's time."""
        messages = self.message_list.all_messages
        last_t = messages[-1].t if messages else 0.0
        if self.live and self.snapshot.started_epoch is not None:
            return max(last_t, self.clock() - self.snapshot.started_epoch)
        return last_t

    def tick(self) -> None:
        """Ages of in-flight requests tick by the clock (slow ones are flagged by the worker)."""
        if self.live:
            self.refresh_side()

    # --- actions

    def action_open_filter(self) -> None:
        self.query_one(FilterBar).open()

    def action_close_filter(self) -> None:
        self.query_one(FilterBar).close()
        self.message_list.focus()

    def action_toggle_follow(self) -> None:
        self.message_list.set_follow(not self.message_list.follow)

    def action_pair(self) -> None:
        self.message_list.jump_to_pair()

    def action_whole(self) -> None:
        message = self.message_list.current
        if message is not None:
            self.push_screen(WholeMessage(message))

    def action_switch_pane(self) -> None:
        """`tab`: from the message list to the side pane's content and back."""
        side = self.query_one(TabbedContent)
        pane = side.query_one(PANE_OF_TAB[side.active])
        target: Widget = self.message_list if pane.has_focus_within or pane.has_focus else pane
        if self.focused is self.query_one(FilterBar).input:
            target = self.message_list
        target.focus()

    def action_toggle_help(self) -> None:
        """`?`: every key of the focused pane and the app, or hide them again."""
        if self.screen.query(HelpPanel):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def action_show_tab(self, number: int) -> None:
        self.query_one(TabbedContent).active = TABS[number - 1]

    def action_next_tab(self, step: int) -> None:
        side = self.query_one(TabbedContent)
        self.action_show_tab((TABS.index(side.active) + step) % len(TABS) + 1)
