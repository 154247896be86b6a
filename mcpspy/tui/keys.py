"""The inspector's keys: the bindings, the command palette, and the actions behind them.

``InspectorKeys`` is the base of ``InspectorApp`` (app.py), which composes the
panes, reads the capture and provides what the actions act on (declared
below). Keys that act on the inspector do nothing over another screen.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.message import Message as TextualMessage
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, TabbedContent

from mcpspy.analysis.model import Message
from mcpspy.capture.sessions import SessionInfo
from mcpspy.terminal import visible_line
from mcpspy.tui.exchange_view import exchange_parts
from mcpspy.tui.export import ExportRequest, render_export, write_private
from mcpspy.tui.export_screen import ExportScreen
from mcpspy.tui.follow_screen import FollowExchange
from mcpspy.tui.help_screen import HelpScreen
from mcpspy.tui.json_cursor import JsonCursor
from mcpspy.tui.panes.detail import DetailPane, pair_of
from mcpspy.tui.panes.findings import FindingsPane
from mcpspy.tui.panes.inflight import InFlightPane
from mcpspy.tui.panes.message_list import MessageList
from mcpspy.tui.panes.stderr import StderrPane
from mcpspy.tui.panes.timeline import TimelinePane
from mcpspy.tui.search import Search
from mcpspy.tui.sessions_screen import SessionsScreen
from mcpspy.tui.whole_message import WholeMessage
from mcpspy.tui.widgets.prompt_bar import PromptBar

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
class Exported(TextualMessage):
    text: str  # what to say
    failed: bool = False


def line_of(message: Message) -> str:
    """The message as it was on the wire (one JSON line), for the clipboard."""
    return message.raw.decode("utf-8", "replace")


class InspectorKeys(App[None]):
    """Bindings and actions; the app subclass provides the state declared here."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Keys"),
        # The bars' keys are priority bindings: run as the key is read, so the keys typed
        # next already find the focus in the box (else, under load, they went to the list).
        Binding("slash", "open_bar('filter-bar')", "Filter", priority=True),
        Binding("ctrl+f", "open_bar('search-bar')", "Search", priority=True),
        Binding("n", "search_next(1)", "Next match", show=False),
        Binding("N", "search_next(-1)", "Previous match", show=False),
        Binding("colon", "open_bar('goto-bar')", "Go to seq", show=False, priority=True),
        Binding("f", "toggle_follow", "Follow"),
        Binding("p", "pair", "Pair"),
        Binding("x", "follow_exchange", "Exchange"),
        Binding("v", "whole", "Full"),
        Binding("y", "copy(False)", "Copy"),
        Binding("Y", "copy(True)", "Copy pair", show=False),
        Binding("l", "json_line(1)", "JSON line", show=False),
        Binding("L", "json_line(-1)", "Previous JSON line", show=False),
        Binding("c", "copy_path", "Copy path", show=False),
        Binding("e", "export", "Export"),
        Binding("s", "sessions", "Sessions"),
        Binding("o", "order", "Order", show=False),
        Binding("t", "time_display", "Time", show=False),
        Binding("tab", "switch_pane", "Pane", priority=True, show=False),
        Binding("right_square_bracket", "next_tab(1)", "Tab", show=False),
        Binding("left_square_bracket", "next_tab(-1)", "Prev tab", show=False),
        *(
            Binding(str(n), f"show_tab({n})", label, show=False)
            for n, (_, label, _) in enumerate(SIDE_TABS, 1)
        ),
        Binding("q", "quit", "Quit"),
        Binding("escape", "escape", "Close", show=False),
    ]
    INSPECTOR_ACTIONS = frozenset(
        {
            "help",
            "open_bar",
            "search_next",
            "toggle_follow",
            "pair",
            "follow_exchange",
            "whole",
            "copy",
            "json_line",
            "copy_path",
            "export",
            "sessions",
            "order",
            "time_display",
            "switch_pane",
            "next_tab",
            "show_tab",
            "escape",
        }
    )

    # Provided by InspectorApp:
    path: Path
    live: bool
    loaded: bool
    search: Search | None
    session_dirs: list[Path]

    @property
    def message_list(self) -> MessageList:
        raise NotImplementedError

    @property
    def rows(self) -> Sequence[Message]:
        raise NotImplementedError

    def set_search(self, search: Search | None) -> None:
        raise NotImplementedError

    def count_search(self) -> None:
        raise NotImplementedError

    def open_session(self, path: Path, live: bool, note: str | None = None) -> None:
        raise NotImplementedError

    def refresh_header(self) -> None:
        raise NotImplementedError

    # --- which keys work where

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The inspector's keys do nothing over another screen (a dialog), nor while typing in a box."""
        if action not in self.INSPECTOR_ACTIONS:
            return True
        if action == "open_bar" and isinstance(self.focused, Input):
            return False  # a `/` or `:` typed in a box is text
        return self.screen is self.screen_stack[0]

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if screen is not self.screen_stack[0]:
            return
        yield SystemCommand("Follow", "Follow the newest message (f)", self.action_toggle_follow)
        yield SystemCommand(
            "Filter", "Show only matching messages (/)", lambda: self.action_open_bar("filter-bar")
        )
        yield SystemCommand(
            "Search", "Find text in the messages (ctrl+f, n, N)", lambda: self.action_open_bar("search-bar")
        )
        yield SystemCommand(
            "Go to seq", "Put the cursor on a seq number (:)", lambda: self.action_open_bar("goto-bar")
        )
        yield SystemCommand("Pair", "Jump between a request and its reply (p)", self.action_pair)
        yield SystemCommand(
            "Follow exchange",
            "Request, progress, cancel, reply in one screen (x)",
            self.action_follow_exchange,
        )
        yield SystemCommand("Whole message", "The selected message in full (v)", self.action_whole)
        yield SystemCommand(
            "Copy message", "The selected message to the clipboard (y)", lambda: self.action_copy(False)
        )
        yield SystemCommand(
            "Copy pair", "The message and its pair to the clipboard (Y)", lambda: self.action_copy(True)
        )
        yield SystemCommand(
            "Export", "The filtered view or the exchange, as a report (e)", self.action_export
        )
        yield SystemCommand("Sessions", "Open another session, live or finished (s)", self.action_sessions)
        yield SystemCommand("Order", "By seq, slowest first, biggest first (o)", self.action_order)
        yield SystemCommand(
            "Time display", "Since start, wall clock, since previous (t)", self.action_time_display
        )
        yield SystemCommand("Keys and legends", "Every key, the marks explained (?)", self.action_help)
        for n, (_, label, _) in enumerate(SIDE_TABS, 1):
            yield SystemCommand(
                f"Show {label.lower()}", f"The {label.lower()} tab ({n})", lambda n=n: self.action_show_tab(n)
            )

    # --- the bars: filter, search, go to

    def action_open_bar(self, bar_id: str) -> None:
        """Open one bar (closing another that is open), with the focus in it at once."""
        for bar in self.query(PromptBar):
            if bar.id != bar_id and bar.is_open:
                bar.close()
        self.query_one(f"#{bar_id}", PromptBar).open()

    def action_escape(self) -> None:
        """Close the open bar; else clear the search."""
        open_bars = [bar for bar in self.query(PromptBar) if bar.is_open]
        for bar in open_bars:
            bar.close()
        if open_bars:
            self.message_list.focus()
        elif self.search is not None:
            self.set_search(None)

    def action_search_next(self, step: int, include_current: bool = False) -> None:
        """`n`/`N`: the next (previous) message with the searched text, wrapping around."""
        if self.search is None:
            self.notify("nothing searched yet: ctrl+f", markup=False)
            return
        rows, cursor = self.rows, self.message_list.cursor
        if include_current and 0 <= cursor < len(rows) and self.search(rows[cursor]):
            index: int | None = cursor
        else:
            index = self.search.next_index(rows, cursor, step) if rows else None
        if index is None:
            self.notify(f"no message has {self.search.text!r}", severity="warning", markup=False)
            return
        self.message_list.jump_to_row(index)

    def go_to_seq(self, seq: int) -> None:
        """`:`: the cursor to message ``seq``, or the nearest listed one (saying why)."""
        listed = self.message_list
        if listed.jump_to(seq):
            return
        nearest = listed.nearest_shown(seq)
        if nearest is None:
            self.notify("the list is empty", severity="warning", markup=False)
            return
        listed.jump_to(nearest)
        known = {m.seq for m in listed.all_messages}
        why = (
            "is hidden by the filter"
            if seq in known
            else "is not a message (a process event, or past the end)"
        )
        self.notify(f"seq {seq} {why}: at seq {nearest}, the nearest", markup=False)

    # --- the list

    def action_toggle_follow(self) -> None:
        self.message_list.set_follow(not self.message_list.follow)

    def action_pair(self) -> None:
        self.message_list.jump_to_pair()

    def action_order(self) -> None:
        order = self.message_list.order.next()
        self.message_list.set_order(order)
        self.notify(
            f"order: by {order.value}" + ("" if order.value == "seq" else " (f: back to following)"),
            markup=False,
        )

    def action_time_display(self) -> None:
        display = self.message_list.time_display.next()
        self.message_list.set_time_display(display)
        self.notify(f"time: {display.value}", markup=False)

    # --- the selection: whole, exchange, copy, export

    def action_whole(self) -> None:
        message = self.message_list.current
        if message is not None:
            self.push_screen(WholeMessage(message))

    def action_follow_exchange(self) -> None:
        message = self.message_list.current
        if message is not None:
            self.push_screen(FollowExchange(message, self.message_list.all_messages))

    def action_copy(self, with_pair: bool) -> None:
        """`y`: the message's line to the clipboard; `Y`: it and its pair, in seq order (JSON lines)."""
        message = self.message_list.current
        if message is None:
            return
        messages = [message]
        if with_pair:
            seq = pair_of(message)
            pair = next((m for m in self.message_list.all_messages if m.seq == seq), None) if seq else None
            if pair is None:
                self.notify(
                    f"seq {message.seq} has no pair: copied it alone", severity="warning", markup=False
                )
            else:
                messages = sorted([message, pair], key=lambda m: m.seq)
        text = "\n".join(line_of(m) for m in messages)
        self.copy_to_clipboard(text)
        seqs = " and ".join(str(m.seq) for m in messages)
        self.notify(f"copied seq {seqs} ({len(text.encode()):,} bytes) to the clipboard", markup=False)

    @cached_property
    def json_cursor(self) -> JsonCursor:
        """The cursor on the detail's JSON lines (`l` / `L` / `c`)."""
        return JsonCursor()

    def action_json_line(self, step: int) -> None:
        """`l` / `L`: the detail's cursor to the next / previous line of the JSON (`c` copies its path)."""
        if not self.json_cursor.move(self.query_one(DetailPane), self.message_list.current, step):
            self.notify("no JSON in the selected message", severity="warning", markup=False)

    def action_copy_path(self) -> None:
        """`c`: the JSON path of the line under the detail's cursor to the clipboard."""
        path = self.json_cursor.path(self.query_one(DetailPane), self.message_list.current)
        if path is None:
            self.notify("put the cursor on a JSON line first (l / L)", severity="warning", markup=False)
            return
        self.copy_to_clipboard(path)
        self.notify(f"copied {visible_line(path)}", markup=False)  # a key may hold a bidi override

    def action_export(self) -> None:
        message = self.message_list.current
        shown = len(self.rows)
        view = f"the filtered view: {shown} messages" if self.message_list.filter else f"all {shown} messages"
        exchange_text = None
        if message is not None:
            exchange, parts = exchange_parts(message, self.message_list.all_messages)
            if exchange is not None:
                exchange_text = f"the exchange: {exchange.method} id {exchange.id!r}, {len(parts)} messages"
        self.push_screen(ExportScreen(self.path, view, exchange_text, Path.cwd()), self._export_chosen)

    def _export_chosen(self, request: ExportRequest | None) -> None:
        if request is None:
            return
        keep: set[int] | None = None
        if request.scope == "exchange" and self.message_list.current is not None:
            _, parts = exchange_parts(self.message_list.current, self.message_list.all_messages)
            keep = {part.message.seq for part in parts}
        elif self.message_list.filter is not None:
            keep = {m.seq for m in self.rows}
        self.notify(f"exporting to {request.dest}…", markup=False)
        self.export(request, keep, concluded=self.loaded)

    @work(thread=True, group="export")
    def export(self, request: ExportRequest, keep: set[int] | None, concluded: bool) -> None:
        try:
            text = render_export(self.path, request.fmt, keep, concluded)
            write_private(request.dest, text, request.overwrite)
        except Exception as exc:  # a bad path, a full disk, a capture gone: said, never a crash
            self.post_message(Exported(f"export failed: {exc}", failed=True))
            return
        what = "the exchange" if request.scope == "exchange" else "the view"
        self.post_message(Exported(f"exported {what} as {request.fmt} to {request.dest}"))

    @on(Exported)
    def exported(self, event: Exported) -> None:
        text = re.sub(r"\s+", " ", event.text)
        self.notify(text, severity="error" if event.failed else "information", markup=False, timeout=8)

    # --- screens: sessions, help

    def action_sessions(self) -> None:
        self.push_screen(SessionsScreen(self.session_dirs, self.path), self._session_chosen)

    def _session_chosen(self, session: SessionInfo | None) -> None:
        if session is not None and session.path != self.path:
            self.open_session(session.path, session.live)

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    # --- panes and tabs

    def action_switch_pane(self) -> None:
        """`tab`: from the message list to the side pane's content and back."""
        side = self.query_one(TabbedContent)
        pane = side.query_one(PANE_OF_TAB[side.active])
        inside = pane.has_focus_within or pane.has_focus
        target: Widget | None = self.message_list if inside else pane
        if isinstance(self.focused, Widget) and any(bar.has_focus_within for bar in self.query(PromptBar)):
            target = self.message_list
        if target is pane and not pane.focusable:  # a container: its first focusable child
            target = next((w for w in pane.query("*") if w.focusable), None)
        if target is not None:
            target.focus()

    def action_show_tab(self, number: int) -> None:
        self.query_one(TabbedContent).active = TABS[number - 1]

    def action_next_tab(self, step: int) -> None:
        side = self.query_one(TabbedContent)
        self.action_show_tab((TABS.index(side.active) + step) % len(TABS) + 1)
