"""The Textual app: a message list, a detail pane and a header over one capture.

A thread worker polls a CaptureReader (so a growing capture is followed) and
posts new records; the app feeds them, on its own thread, to one Analyzer.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, ClassVar

import orjson
from rich.syntax import Syntax
from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message as TMessage
from textual.widgets import DataTable, Footer, Input, Static
from textual.worker import get_current_worker

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.model import Kind, Message, Severity
from mcpspy.capture.reader import CaptureReader
from mcpspy.capture.records import Record
from mcpspy.filters import Filter, FilterError, parse_filter

IDLE_POLL = 0.05
SEVERITY_MARK = {Severity.ERROR: "✖", Severity.WARNING: "▲", Severity.INFO: "·"}


def show_invisibles(raw: bytes, terminated: bool) -> str:
    """The raw line with \\r, \\t, NUL and other control bytes made visible."""
    text = raw.decode("utf-8", errors="backslashreplace")
    out = []
    for ch in text:
        if ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\0":
            out.append("\\0")
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out) + ("" if terminated else "  ⟨no final newline⟩")


class NewRecords(TMessage):
    """Records the reader thread found."""

    def __init__(self, records: list[Record], held: int) -> None:
        self.records = records
        self.held = held
        super().__init__()


class SpyApp(App[None]):
    """Inspect one capture, live or finished."""

    CSS = """
    #header { height: 2; background: $boost; padding: 0 1; }
    #body { height: 1fr; }
    #messages { width: 3fr; }
    #detail-scroll { width: 2fr; border-left: solid $primary; }
    #filter { display: none; }
    #filter-error { display: none; color: $error; height: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("f", "follow", "Follow"),
        Binding("p", "pair", "Pair"),
        Binding("slash", "filter", "Filter"),
        Binding("escape", "close_filter", "Close filter", show=False),
        Binding("j", "down", "Down", show=False),
        Binding("k", "up", "Up", show=False),
        Binding("g", "top", "Top", show=False),
        Binding("G", "bottom", "Bottom", show=False),
    ]

    def __init__(self, path: str | Path, live: bool = False) -> None:
        super().__init__()
        self.path = Path(path)
        self.live = live
        self.analyzer = Analyzer()
        self.reader = CaptureReader(self.path)
        self.follow = True
        self.held = 0
        self.error: str | None = None
        self._shown = 0
        self.filter: Filter | None = None
        self.shown_messages: list[Message] = []

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        with Horizontal(id="body"):
            yield DataTable(id="messages", cursor_type="row", zebra_stripes=False)
            with VerticalScroll(id="detail-scroll"):
                yield Static(id="detail")
        yield Input(placeholder="method:tools/* dir:s2c -kind:notification latency:>500ms", id="filter")
        yield Static(id="filter-error")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#messages", DataTable)
        table.add_columns("t", "dir", "kind", "id", "method", "latency", "size", "!")
        table.focus()
        self.poll_capture()

    @work(thread=True, exclusive=True)
    def poll_capture(self) -> None:
        """Read the capture; keep following it while the app runs, when live."""
        worker = get_current_worker()
        while not worker.is_cancelled:
            try:
                records = self.reader.poll()
            except Exception as exc:  # a bad header: say it, stop reading
                self.call_from_thread(self._fail, str(exc))
                return
            if records or self.held != self.reader.held_bytes:
                self.post_message(NewRecords(records, self.reader.held_bytes))
            if not records:
                if not self.live:
                    self.call_from_thread(self._finish)
                    return
                time.sleep(IDLE_POLL)

    def _fail(self, text: str) -> None:
        self.error = text
        self.query_one("#header", Static).update(Text(f"cannot read {self.path}: {text}", style="bold red"))

    def _finish(self) -> None:
        self.analyzer.finish()
        self._refresh_rows()

    def on_new_records(self, event: NewRecords) -> None:
        for record in event.records:
            self.analyzer.feed(record)
        self.held = event.held
        self._refresh_rows()

    def _row(self, m: Message) -> tuple[Any, ...]:
        ex = m.exchange
        latency = ex.latency if ex is not None else None
        lat = "" if latency is None or m.kind == Kind.REQUEST else f"{latency * 1000:.0f}ms"
        sev = m.severity
        mark = Text(SEVERITY_MARK[sev], style="red" if sev == Severity.ERROR else "yellow") if sev else ""
        return (f"{m.t:8.3f}", m.stream.arrow, m.kind.value, "" if m.id is None else str(m.id),
                m.method or "", lat, str(m.size), mark)

    def _refresh_rows(self) -> None:
        table = self.query_one("#messages", DataTable)
        messages = self.analyzer.messages
        for m in messages[self._shown:]:
            if self.filter is None or self.filter(m):
                self.shown_messages.append(m)
                table.add_row(*self._row(m), key=str(m.seq))
        self._shown = len(messages)
        if self.follow and table.row_count:
            table.move_cursor(row=table.row_count - 1)
        self._update_header()

    def _update_header(self) -> None:
        a = self.analyzer
        h = self.reader.header
        command = " ".join(h.command) if h else "?"
        by_sev = {s: 0 for s in Severity}
        for f in a.findings:
            by_sev[f.severity] += 1
        counts = "  ".join(f"{s.label}:{by_sev[s]}" for s in reversed(Severity))
        version = a.protocol_version or "?"
        follow = "following" if self.follow else "paused (f: follow)"
        torn = f"  torn last line ({self.held} bytes)" if self.held and not self.live else ""
        self.query_one("#header", Static).update(
            f"{command}\nera {a.era.value}  protocol {version}  messages {len(a.messages)}  "
            f"pending {len(a.pending)}  findings {counts}  {follow}{torn}"
        )

    def selected(self) -> Message | None:
        table = self.query_one("#messages", DataTable)
        if not table.row_count:
            return None
        idx = table.cursor_row
        msgs = self.shown_messages
        return msgs[idx] if 0 <= idx < len(msgs) else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        table = self.query_one("#messages", DataTable)
        if event.cursor_row < table.row_count - 1:
            self.follow = False
            self._update_header()
        m = self.selected()
        if m is not None:
            self.query_one("#detail", Static).update(self.render_detail(m))

    def render_detail(self, m: Message) -> Any:
        from rich.console import Group

        parts: list[Any] = [Text(f"#{m.seq} {m.stream.value} {m.kind.value} {m.method or ''}", style="bold")]
        if m.payload is not None:
            pretty = orjson.dumps(m.payload, option=orjson.OPT_INDENT_2).decode()
            parts.append(Syntax(pretty, "json", word_wrap=True))
        parts.append(Text("raw:", style="bold"))
        raw = Text()
        if m.glued_prefix:
            raw.append(show_invisibles(m.glued_prefix, True), style="reverse red")
            raw.append(show_invisibles(m.raw[len(m.glued_prefix):], m.terminated))
        else:
            raw.append(show_invisibles(m.raw, m.terminated))
        parts.append(raw)
        ex = m.exchange
        if ex is not None:
            other = ex.reply_seq if m.seq == ex.request_seq else ex.request_seq
            parts.append(Text(f"pair: #{other} ({ex.state.value}; p jumps)" if other is not None
                              else f"pair: none yet ({ex.state.value})"))
        for f in m.findings:
            parts.append(Text(f"{f.severity.label}: {f.message}", style="red" if f.severity == Severity.ERROR
                              else "yellow"))
            parts.append(Text(f"  {f.id} — {f.rule.source}", style="dim"))
        return Group(*parts)

    def _index_of(self, seq: int) -> int | None:
        for i, m in enumerate(self.shown_messages):
            if m.seq == seq:
                return i
        return None

    def action_pair(self) -> None:
        m = self.selected()
        if m is None or m.exchange is None:
            return
        ex = m.exchange
        target = ex.reply_seq if m.seq == ex.request_seq else ex.request_seq
        idx = None if target is None else self._index_of(target)
        if idx is not None:
            self.query_one("#messages", DataTable).move_cursor(row=idx)

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.display = True
        box.focus()

    def action_close_filter(self) -> None:
        self.query_one("#filter", Input).display = False
        self.query_one("#filter-error", Static).display = False
        self.query_one("#messages", DataTable).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        error = self.query_one("#filter-error", Static)
        try:
            self.apply_filter(event.value)
        except FilterError as exc:
            error.update(f"invalid filter: {exc}")
            error.display = True
            return
        error.display = False
        if not event.value.strip():
            event.input.display = False
        self.query_one("#messages", DataTable).focus()

    def apply_filter(self, text: str) -> None:
        """Show only the messages that match ``text``; raises FilterError."""
        self.filter = parse_filter(text) if text.strip() else None
        table = self.query_one("#messages", DataTable)
        table.clear()
        self.shown_messages = []
        self._shown = 0
        self._refresh_rows()

    def action_follow(self) -> None:
        self.follow = True
        table = self.query_one("#messages", DataTable)
        if table.row_count:
            table.move_cursor(row=table.row_count - 1)
        self._update_header()

    def action_down(self) -> None:
        self.query_one("#messages", DataTable).action_cursor_down()

    def action_up(self) -> None:
        self.query_one("#messages", DataTable).action_cursor_up()

    def action_top(self) -> None:
        self.query_one("#messages", DataTable).move_cursor(row=0)

    def action_bottom(self) -> None:
        self.action_follow()

    def on_unmount(self) -> None:
        self.reader.close()
