"""The inspector: message list, detail pane, findings, in-flight requests, stderr.

The app reads a capture only. A thread worker polls the file (toolong-style,
~50 ms when idle) and posts new records; one Analyzer turns them into rows.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import ClassVar

from rich.markup import escape
from rich.syntax import Syntax
from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message as TextualMessage
from textual.widgets import DataTable, Footer, Input, Log, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.model import (
    ExchangeUpdated,
    FindingRaised,
    Kind,
    Message,
    MessageSeen,
    Severity,
)
from mcpspy.capture.format import CaptureFormatError
from mcpspy.capture.reader import CaptureReader
from mcpspy.capture.records import Record
from mcpspy.filters import Filter, FilterError, parse_filter
from mcpspy.tui.rows import MARK, message_cells, pretty_json, visible_raw
from mcpspy.tui.timeline import render_timeline

POLL_IDLE = 0.05
INFLIGHT_ROWS = 200  # rebuilt on every batch, so kept short
COLUMNS = ("time", "dir", "kind", "id", "method", "latency", "size", "!")


@dataclass
class RecordsArrived(TextualMessage):
    records: list[Record]


def _epoch(started: str) -> float | None:
    try:
        return datetime.fromisoformat(started.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


@dataclass
class CaptureEnded(TextualMessage):
    """A finished capture was read to its end: the analysis may conclude."""


@dataclass
class CaptureProblem(TextualMessage):
    text: str


class InspectorApp(App[None]):
    """`mcpspy watch` and `mcpspy view`: the same app, following or not."""

    TITLE = "mcpspy"
    CSS = """
    #header { height: 2; padding: 0 1; background: $panel; }
    #messages { width: 3fr; }
    #side { width: 2fr; }
    #detail { padding: 0 1; }
    DataTable { height: 1fr; }
    #filter { display: none; }
    #filter-error { display: none; color: $error; height: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("f", "toggle_follow", "Follow"),
        Binding("p", "pair", "Pair"),
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "top", "Top", show=False),
        Binding("G", "bottom", "Bottom", show=False),
        Binding("tab", "focus_next", "Next pane", show=False),
        Binding("slash", "open_filter", "Filter"),
        Binding("question_mark", "show_help_panel", "Keys"),
        Binding("escape", "close_filter", "Close filter", show=False),
    ]

    def __init__(self, path: Path, live: bool = True, slow_after: float = 30.0) -> None:
        super().__init__()
        self.path = path
        self.live = live
        self.follow = True
        self.analyzer = Analyzer(slow_after=slow_after)
        self.rows: list[Message] = []  # row index -> message
        self._row_of: dict[int, int] = {}  # seq -> row index
        self.problems: list[str] = []
        self.header_text = ""
        self.detail_text = ""  # what the detail pane shows, as plain text
        self.filter: Filter | None = None
        self.started_epoch: float | None = None  # the session's start, by the wall clock
        self._by_seq: dict[int, Message] = {}  # every message seen, filtered or not

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        with Horizontal():
            table: DataTable[str] = DataTable(id="messages", cursor_type="row", zebra_stripes=True)
            yield table
            with TabbedContent(id="side"):
                with TabPane("Detail", id="tab-detail"), VerticalScroll():
                    yield Static("select a message", id="detail")
                with TabPane("Findings", id="tab-findings"):
                    yield DataTable(id="findings", cursor_type="row")
                with TabPane("In flight", id="tab-inflight"):
                    yield DataTable(id="inflight", cursor_type="row")
                with TabPane("Stderr", id="tab-stderr"):
                    yield Log(id="stderr")
                with TabPane("Timeline", id="tab-timeline"), VerticalScroll():
                    yield Static(id="timeline")
        yield Input(placeholder="method:tools/* dir:s2c -kind:notification latency:>500ms", id="filter")
        yield Static(id="filter-error")
        yield Footer()

    def on_mount(self) -> None:
        messages = self.query_one("#messages", DataTable)
        for column in COLUMNS:
            messages.add_column(column, key=column)
        self.query_one("#findings", DataTable).add_columns("sev", "seq", "rule", "message")
        self.query_one("#inflight", DataTable).add_columns("id", "method", "age")
        messages.focus()  # not the hidden filter box
        self.follow_capture()
        self.set_interval(1.0, self.tick)
        self.refresh_header()

    # --- reading the capture

    @work(thread=True, exclusive=True)
    def follow_capture(self) -> None:
        worker = get_current_worker()
        try:
            reader = CaptureReader(self.path)
        except OSError as exc:
            self.post_message(CaptureProblem(f"cannot open {self.path}: {exc.strerror}"))
            return
        with reader:
            while not worker.is_cancelled:
                try:
                    records = reader.poll()
                except CaptureFormatError as exc:
                    self.post_message(CaptureProblem(str(exc)))
                    return
                if self.started_epoch is None and reader.header is not None:
                    self.started_epoch = _epoch(reader.header.started)
                if records:
                    self.post_message(RecordsArrived(records))
                elif not self.live:
                    if reader.held_bytes:
                        self.post_message(CaptureProblem(
                            f"the last line ({reader.held_bytes} bytes) is truncated"))
                    self.post_message(CaptureEnded())
                    return
                else:
                    time.sleep(POLL_IDLE)

    @on(CaptureProblem)
    def show_problem(self, event: CaptureProblem) -> None:
        self.problems.append(event.text)
        self.refresh_header()

    @on(CaptureEnded)
    def conclude(self, event: CaptureEnded) -> None:
        """Pending requests of a finished capture become unanswered, with their findings."""
        findings = self.query_one("#findings", DataTable)
        for ev in self.analyzer.finish():
            if isinstance(ev, FindingRaised):
                f = ev.finding
                findings.add_row(MARK[f.severity] + " " + f.severity.label, str(f.seq), f.id, f.message)
        self.refresh_header()
        self.refresh_inflight()
        self.refresh_timeline()

    @on(RecordsArrived)
    def add_records(self, event: RecordsArrived) -> None:
        table = self.query_one("#messages", DataTable)
        stderr = self.query_one("#stderr", Log)
        findings = self.query_one("#findings", DataTable)
        changed: set[int] = set()
        for record in event.records:
            for ev in self.analyzer.feed(record):
                if isinstance(ev, MessageSeen):
                    message = ev.message
                    self._by_seq[message.seq] = message
                    self._add_row(table, message)
                    if message.kind is Kind.STDERR:
                        stderr.write_line(message.raw.decode("utf-8", "replace"))
                elif isinstance(ev, ExchangeUpdated):
                    changed.update(s for s in (ev.exchange.request_seq, ev.exchange.reply_seq) if s)
                elif isinstance(ev, FindingRaised):
                    f = ev.finding
                    findings.add_row(MARK[f.severity] + " " + f.severity.label, str(f.seq), f.id, f.message)
                    changed.add(f.seq)
        for seq in changed:
            updated = self._by_seq.get(seq)
            if updated is not None and str(seq) in table.rows:
                for column, value in zip(COLUMNS, message_cells(updated), strict=True):
                    table.update_cell(str(seq), column, value)
        if self.follow and table.row_count:
            table.move_cursor(row=table.row_count - 1)
        self.refresh_header()
        self.refresh_inflight()
        self.refresh_timeline()

    def refresh_timeline(self) -> None:
        now = self.rows[-1].t if self.rows else 0.0
        for pane in self.query("#timeline").results(Static):
            pane.update(render_timeline(self.analyzer.exchanges, now, max(pane.size.width, 60)))

    def _add_row(self, table: DataTable[str], message: Message) -> None:
        if self.filter is not None and not self.filter(message):
            return
        self._row_of[message.seq] = len(self.rows)
        self.rows.append(message)
        table.add_row(*message_cells(message), key=str(message.seq))

    # --- filter bar

    def action_open_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.display = True
        box.focus()

    def action_close_filter(self) -> None:
        self.query_one("#filter", Input).display = False
        self.query_one("#filter-error", Static).display = False
        self.query_one("#messages", DataTable).focus()

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
        self.query_one("#messages", DataTable).focus()

    def apply_filter(self, text: str) -> None:
        """Show only the messages matching ``text``; raises FilterError, leaving the list as it was."""
        self.filter = parse_filter(text) if text.strip() else None
        table = self.query_one("#messages", DataTable)
        table.clear()
        self.rows = []
        self._row_of = {}
        for message in self.analyzer.messages:
            self._add_row(table, message)
        if table.row_count:
            table.move_cursor(row=table.row_count - 1 if self.follow else 0)

    # --- panes

    def session_now(self) -> float:
        """Seconds since the session started: by the wall clock while live, else the last line's time."""
        last_t = self.rows[-1].t if self.rows else 0.0
        if self.live and self.started_epoch is not None:
            return max(last_t, time.time() - self.started_epoch)
        return last_t

    def tick(self) -> None:
        """Ages of in-flight requests tick, and requests past the threshold are flagged slow."""
        if self.live:
            findings = self.query_one("#findings", DataTable)
            for ev in self.analyzer.check_pending(self.session_now()):
                if isinstance(ev, FindingRaised):
                    f = ev.finding
                    findings.add_row(MARK[f.severity] + " " + f.severity.label, str(f.seq), f.id, f.message)
            self.refresh_header()
        self.refresh_inflight()

    def refresh_inflight(self) -> None:
        table = self.query_one("#inflight", DataTable)
        table.clear()
        last_t = self.session_now()
        for exchange in self.analyzer.pending[:INFLIGHT_ROWS]:  # the oldest: the ones that matter
            age = last_t - exchange.sent_t
            style = "bold yellow" if age >= self.analyzer.slow_after else ""
            table.add_row(str(exchange.id), exchange.method, Text(f"{age:.1f}s", style=style))

    def refresh_header(self) -> None:
        a = self.analyzer
        by = {s: sum(1 for f in a.findings if f.severity is s) for s in Severity}
        era = a.era.value if a.protocol_version is None else f"{a.era.value} ({a.protocol_version})"
        text = (
            f"[b]{escape(self.path.name)}[/b]  era {era}  messages {len(a.messages)}  "
            f"pending {len(a.pending)}  [red]✖ {by[Severity.ERROR]}[/] [yellow]▲ {by[Severity.WARNING]}[/] "
            f"· {by[Severity.INFO]}  {'following' if self.follow else 'paused'}"
        )
        if self.problems:
            text += f"\n[red]{escape(self.problems[-1])}[/]"
        self.header_text = Text.from_markup(text).plain
        for header in self.query("#header").results(Static):
            header.update(text)

    @on(DataTable.RowHighlighted, "#messages")
    def show_detail(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row < 0 or event.cursor_row >= len(self.rows):
            return
        message = self.rows[event.cursor_row]
        parts: list[object] = [Text(f"seq {message.seq}  t {message.t:.6f}s  {message.kind.value}",
                                    style="bold")]
        if message.payload is not None:
            parts.append(Syntax(pretty_json(message.payload), "json", word_wrap=True))
        raw = Text("raw: ", style="dim")
        if message.glued_prefix:
            raw.append(message.glued_prefix.decode("utf-8", "replace"), style="reverse red")
            raw.append(visible_raw(message.raw[len(message.glued_prefix):], message.terminated))
        else:
            raw.append(visible_raw(message.raw, message.terminated))
        parts.append(raw)
        exchange = message.exchange
        if exchange is not None:
            pair = exchange.reply_seq if exchange.request_seq == message.seq else exchange.request_seq
            latency = f"{exchange.latency * 1000:.1f}ms" if exchange.latency is not None else "pending"
            parts.append(Text(f"exchange: {exchange.method} id {exchange.id!r} {exchange.state.value} "
                              f"{latency}; pair seq {pair} (p)"))
        for f in message.findings:
            parts.append(Text(f"{MARK[f.severity]} {f.id} ({f.severity.label}): {f.message}\n"
                              f"  {f.rule.summary}\n  source: {f.rule.source}"))
        from rich.console import Group

        self.detail_text = "\n".join(p.plain if isinstance(p, Text) else p.code for p in parts)  # type: ignore[attr-defined]
        for detail in self.query("#detail").results(Static):  # absent while the app shuts down
            detail.update(Group(*parts))  # type: ignore[arg-type]

    # --- actions

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow
        if self.follow:
            self.action_bottom()
        self.refresh_header()

    def action_pair(self) -> None:
        table = self.query_one("#messages", DataTable)
        if not self.rows:
            return
        message = self.rows[table.cursor_row]
        exchange = message.exchange
        if exchange is None:
            return
        target = exchange.reply_seq if exchange.request_seq == message.seq else exchange.request_seq
        if target is not None and target in self._row_of:
            self.follow = False
            table.move_cursor(row=self._row_of[target])
            self.refresh_header()

    def action_cursor_down(self) -> None:
        self.query_one("#messages", DataTable).action_cursor_down()

    def action_cursor_up(self) -> None:
        self.follow = False
        self.query_one("#messages", DataTable).action_cursor_up()
        self.refresh_header()

    def action_top(self) -> None:
        self.follow = False
        self.query_one("#messages", DataTable).move_cursor(row=0)
        self.refresh_header()

    def action_bottom(self) -> None:
        table = self.query_one("#messages", DataTable)
        if table.row_count:
            table.move_cursor(row=table.row_count - 1)

    @on(DataTable.RowSelected, "#findings")
    def jump_to_finding(self, event: DataTable.RowSelected) -> None:
        row = self.query_one("#findings", DataTable).get_row_at(event.cursor_row)
        seq = int(row[1])
        if seq in self._row_of:
            self.follow = False
            self.query_one("#messages", DataTable).move_cursor(row=self._row_of[seq])
            self.query_one("#side", TabbedContent).active = "tab-detail"
