"""The inspector: message list, detail pane, findings, in-flight requests, stderr, timeline.

The app reads a capture only. A thread worker follows the file (toolong-style,
polling every 25 ms when idle), feeds the records to the Analyzer it alone
owns, and posts ``Analysed`` batches; the UI thread only appends them to its
lists, which ``RowList``s draw a screenful at a time.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.css.query import NoMatches
from textual.message import Message as TextualMessage
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, HelpPanel, Input, Log, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from mcpspy.analysis.model import Finding, Message, Severity
from mcpspy.capture.format import CaptureFormatError
from mcpspy.filters import Filter, FilterError, parse_filter
from mcpspy.replay_policy import collector_paused
from mcpspy.tui.detail import detail_lines, pair_of
from mcpspy.tui.header import HeaderState, header_markup
from mcpspy.tui.loader import Batch, CaptureFeed, Snapshot
from mcpspy.tui.rowlist import RowList
from mcpspy.tui.rows import (
    FINDING_COLUMNS,
    MESSAGE_COLUMNS,
    PENDING_COLUMNS,
    PendingRow,
    finding_cells,
    message_cells,
    pending_cells,
)
from mcpspy.tui.textview import TextView, WholeMessage
from mcpspy.tui.timeline import render_timeline

POLL_IDLE = 0.025
WIDE = 120  # from this many columns the side pane sits beside the list, else under it
BATCH_EVERY = 1.0  # seconds: while reading a backlog, post what was analysed this often
TABS = ("tab-detail", "tab-findings", "tab-inflight", "tab-stderr", "tab-timeline")
TAB_LABELS = ("Detail", "Findings", "In flight", "Stderr", "Timeline")
PANE_OF_TAB = {
    "tab-detail": "#detail",
    "tab-findings": "#findings",
    "tab-inflight": "#inflight",
    "tab-stderr": "#stderr",
    "tab-timeline": "#timeline-scroll",
}


@dataclass
class Analysed(TextualMessage):
    batch: Batch


@dataclass
class CaptureProblem(TextualMessage):
    text: str


class InspectorApp(App[None]):
    """`mcpspy watch` and `mcpspy view`: the same app, following or not."""

    TITLE = "mcpspy"
    CSS = """
    #header { height: 1; padding: 0 1; background: $panel; }
    #main { layout: vertical; height: 1fr; }
    #main.wide { layout: horizontal; }
    #messages { height: 1fr; }
    #side { height: 1fr; }
    #main.wide #messages { width: 1fr; min-width: 70; }
    #main.wide #side { width: 1fr; min-width: 49; margin-left: 1; }
    #side TabPane { padding: 0; }
    #detail { padding: 0 1; height: 1fr; }
    #filter { display: none; }
    #filter-error { display: none; color: $error; height: 1; }
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
        *(Binding(str(n), f"show_tab({n})", label, show=False) for n, label in enumerate(TAB_LABELS, 1)),
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

    def __init__(self, path: Path, live: bool = True, slow_after: float = 30.0) -> None:
        super().__init__()
        self.path = path
        self.live = live
        self.slow_after = slow_after
        self.follow = True
        self.all_messages: list[Message] = []  # everything the worker has posted, in order
        self.rows: list[Message] = []  # what the list shows: the messages that pass the filter
        self._row_of: dict[int, int] = {}  # seq -> row index
        self.findings: list[Finding] = []
        self.by_severity: Counter[Severity] = Counter()
        self.snapshot = Snapshot(slow_after=slow_after)
        self.pending_rows: list[PendingRow] = []
        self.problems: list[str] = []
        self.loaded = False  # the capture was read to its end (or its proxy stopped) and concluded
        self.unanalysed = 0  # messages listed whose analysis is still to come
        self.reading = False  # a backlog is still being listed
        self.header_text = ""
        self.detail_text = ""  # what the detail pane shows, as plain text
        self._detail_seq: int | None = None
        self.filter: Filter | None = None

    @property
    def started_epoch(self) -> float | None:
        return self.snapshot.started_epoch

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        with Horizontal(id="main"):
            yield RowList[Message](MESSAGE_COLUMNS, message_cells, id="messages", empty="no messages yet")
            with TabbedContent(id="side"):
                with TabPane(TAB_LABELS[0], id=TABS[0]):
                    yield TextView("select a message", id="detail")
                with TabPane(TAB_LABELS[1], id=TABS[1]):
                    yield RowList[Finding](FINDING_COLUMNS, finding_cells, id="findings", empty="no findings")
                with TabPane(TAB_LABELS[2], id=TABS[2]):
                    yield RowList[PendingRow](
                        PENDING_COLUMNS, pending_cells, id="inflight", empty="nothing in flight"
                    )
                with TabPane(TAB_LABELS[3], id=TABS[3]):
                    yield Log(id="stderr")
                with TabPane(TAB_LABELS[4], id=TABS[4]), VerticalScroll(id="timeline-scroll"):
                    yield Static(id="timeline")
        yield Input(placeholder="method:tools/* dir:s2c -kind:notification latency:>500ms", id="filter")
        yield Static(id="filter-error")
        yield Footer()

    def on_mount(self) -> None:
        self.message_list.set_rows(self.rows)
        self.query_one("#findings", RowList).set_rows(self.findings)
        self.query_one("#inflight", RowList).set_rows(self.pending_rows)
        self.message_list.focus()
        self.follow_capture()
        self.set_interval(1.0, self.tick)
        self.refresh_header()

    def on_resize(self, event: events.Resize) -> None:
        self.query_one("#main").set_class(event.size.width >= WIDE, "wide")
        self.refresh_header()

    @property
    def message_list(self) -> RowList[Message]:
        return self.query_one("#messages", RowList)

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
        for n, label in enumerate(TAB_LABELS, 1):
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

    @on(CaptureProblem)
    def show_problem(self, event: CaptureProblem) -> None:
        self.problems.append(event.text)
        self.refresh_header()

    @on(Analysed)
    def take_batch(self, event: Analysed) -> None:
        batch = event.batch
        try:
            messages = self.message_list
        except NoMatches:  # the app is closing
            return
        self.snapshot = batch.snapshot
        analysis_caught_up = self.unanalysed and not batch.unanalysed
        self.unanalysed, self.reading = batch.unanalysed, batch.reading
        self.problems.extend(batch.problems)
        self.all_messages.extend(batch.messages)
        for message in batch.messages:
            self._add_row(message)
        messages.rows_added()
        if batch.findings:
            self.findings.extend(batch.findings)
            self.by_severity.update(f.severity for f in batch.findings)
            self.query_one("#findings", RowList).rows_added()
        if batch.stderr:
            self.query_one("#stderr", Log).write_lines(batch.stderr)
        row_of = self._row_of
        messages.refresh_rows(row_of[seq] for seq in batch.changed if seq in row_of)
        if self._detail_seq in batch.changed:
            self._detail_seq = None
        if self.follow and self.rows:
            messages.move_to(len(self.rows) - 1)
        self.show_detail(messages.current)  # now, so that it is drawn in the same frame as the list
        if batch.ended:
            self.loaded = True
            self.live = False  # nothing more will come: ages stop ticking
        if analysis_caught_up and self.filter is not None:
            self.apply_filter(self.filter.text)  # the list was filtered before the analysis had its say
        self.refresh_header()
        self.refresh_side()

    def refresh_side(self) -> None:
        """The in-flight and timeline tabs, when shown (a hidden one is refreshed as it is shown)."""
        active = self.query_one("#side", TabbedContent).active
        if active == "tab-inflight":
            self.refresh_inflight()
        elif active == "tab-timeline":
            self.refresh_timeline()

    def _add_row(self, message: Message) -> None:
        if self.filter is not None and not self.filter(message):
            return
        self._row_of[message.seq] = len(self.rows)
        self.rows.append(message)

    # --- filter bar

    def action_open_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.display = True
        box.focus()

    def action_close_filter(self) -> None:
        self.query_one("#filter", Input).display = False
        self.query_one("#filter-error", Static).display = False
        self.message_list.focus()

    @on(Input.Submitted, "#filter")
    def filter_submitted(self, event: Input.Submitted) -> None:
        error = self.query_one("#filter-error", Static)
        try:
            self.apply_filter(event.value)
        except FilterError as exc:
            error.update(f"invalid filter: {exc}")
            error.display = True
            return
        error.display = False
        self.query_one("#filter", Input).display = False  # the header says which filter is on
        self.message_list.focus()

    def apply_filter(self, text: str) -> None:
        """Show only the messages matching ``text``; raises FilterError, leaving the list as it was."""
        self.filter = parse_filter(text) if text.strip() else None
        self.rows = []
        self._row_of = {}
        for message in self.all_messages:
            self._add_row(message)
        self.message_list.set_rows(self.rows, cursor=len(self.rows) - 1 if self.follow else 0)
        self.refresh_header()

    # --- panes

    def session_now(self) -> float:
        """Seconds since the session started: by the wall clock while live, else the last line's time."""
        last_t = self.all_messages[-1].t if self.all_messages else 0.0
        if self.live and self.started_epoch is not None:
            return max(last_t, time.time() - self.started_epoch)
        return last_t

    def tick(self) -> None:
        """Ages of in-flight requests tick by the wall clock (slow ones are flagged by the worker)."""
        if self.live:
            self.refresh_side()

    def refresh_inflight(self) -> None:
        now = self.session_now()
        slow_after = self.snapshot.slow_after
        self.pending_rows[:] = [
            PendingRow(x, now - x.sent_t, now - x.sent_t >= slow_after) for x in self.snapshot.pending
        ]
        inflight = self.query_one("#inflight", RowList)
        inflight.set_rows(self.pending_rows)

    def refresh_timeline(self) -> None:
        pane = self.query_one("#timeline", Static)
        width = max(self.query_one("#side").size.width - 2, 40)
        pane.update(render_timeline(self.snapshot.exchanges, self.session_now(), width))

    @on(TabbedContent.TabActivated, "#side")
    def tab_shown(self, event: TabbedContent.TabActivated) -> None:
        self.refresh_side()

    def refresh_header(self) -> None:
        state = HeaderState(
            self.path.name,
            self.snapshot,
            self.by_severity,
            len(self.rows),
            len(self.all_messages),
            self.reading,
            self.unanalysed,
            self.follow,
            self.loaded,
            self.filter.text if self.filter else None,
            self.problems[-1] if self.problems else None,
        )
        text = header_markup(state, self.size.width)
        self.header_text = Text.from_markup(text).plain
        for header in self.query("#header").results(Static):
            height = 1 + text.count("\n")
            if header.styles.height is None or header.styles.height.value != height:
                header.styles.height = height
            header.update(text, layout=False)  # its height is set: no need to lay the screen out

    @on(RowList.Highlighted, "#messages")
    def message_highlighted(self, event: RowList.Highlighted) -> None:
        if event.upward and self.follow:
            self.follow = False
            self.refresh_header()
        elif not event.upward and not self.follow and event.index == len(self.rows) - 1:
            self.follow = True  # back at the end: follow again
            self.refresh_header()
        self.show_detail(event.row_list.current)  # type: ignore[arg-type]

    def show_detail(self, message: Message | None) -> None:
        if message is None or message.seq == self._detail_seq:
            return
        self._detail_seq = message.seq
        lines = detail_lines(message)
        self.detail_text = "\n".join(line.plain for line in lines)
        for detail in self.query("#detail").results(TextView):  # absent while the app closes
            detail.set_lines(lines)

    # --- actions

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow
        if self.follow and self.rows:
            self.message_list.move_to(len(self.rows) - 1)
        self.refresh_header()

    def _jump_to(self, seq: int | None) -> bool:
        if seq is None or seq not in self._row_of:
            return False
        self.follow = False
        self.message_list.move_to(self._row_of[seq], upward=True)
        self.refresh_header()
        return True

    def action_pair(self) -> None:
        message = self.message_list.current
        if message is not None:
            self._jump_to(pair_of(message))

    def action_whole(self) -> None:
        message = self.message_list.current
        if message is not None:
            self.push_screen(WholeMessage(message))

    def action_switch_pane(self) -> None:
        """`tab`: from the message list to the side pane's content and back."""
        side = self.query_one("#side", TabbedContent)
        pane = self.query_one(PANE_OF_TAB[side.active])
        target: Widget = self.message_list if pane.has_focus_within or pane.has_focus else pane
        if self.focused is self.query_one("#filter"):
            target = self.message_list
        target.focus()

    def action_toggle_help(self) -> None:
        """`?`: every key of the focused pane and the app, or hide them again."""
        if self.screen.query(HelpPanel):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def action_show_tab(self, number: int) -> None:
        self.query_one("#side", TabbedContent).active = TABS[number - 1]

    def action_next_tab(self, step: int) -> None:
        side = self.query_one("#side", TabbedContent)
        self.action_show_tab((TABS.index(side.active) + step) % len(TABS) + 1)

    @on(RowList.Selected, "#findings")
    def jump_to_finding(self, event: RowList.Selected) -> None:
        seq = self.findings[event.index].seq
        if self._jump_to(seq):
            self.query_one("#side", TabbedContent).active = "tab-detail"
            self.message_list.focus()
        elif self.filter is not None:
            self.notify(f"line {seq} is hidden by the filter", severity="warning")
        else:
            self.notify(f"line {seq} is a process event, not a message")
