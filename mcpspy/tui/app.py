"""The inspector: message list, detail pane, findings, in-flight requests, stderr, timeline.

The app reads a capture only. A thread worker follows the file (toolong-style,
polling every 25 ms when idle), feeds the records to the Analyzer it alone
owns, and posts ``Analysed`` batches. The app composes the panes (tui/panes/),
hands each batch to them, and routes what they say to each other: the list's
cursor to the detail pane, a chosen finding to the list, the bars' filter,
search and seq to the list, and any change to the header.

The app is split by screen area: the list pane (panes/message_list.py) and
the side pane (panes/side.py) own the keys that act on them; the app keeps
those that open bars and screens. Every key is written once, in keymap.py,
which makes the bindings, the command palette and the help.

Following a server across restarts: while `watch` shows a session, a second
worker watches the sessions directories (restarts.py); once the session has
ended and a new one has started, the app opens the new one in place, keeping
the filter, the search and the order, and says so in the header.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import closing
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import ClassVar

from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.message import Message as TextualMessage
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input
from textual.worker import get_current_worker

from mcpspy.analysis.model import Message
from mcpspy.capture.format import CaptureFormatError
from mcpspy.capture.sessions import SessionInfo, read_session
from mcpspy.replay_policy import pause_collector
from mcpspy.terminal import visible_line
from mcpspy.tui.all_live import (
    LiveSessions,
    Shown,
    Step,
    bars_of_all,
    now_in,
    pending_of_all,
    servers_line,
)
from mcpspy.tui.exchange_view import exchange_parts
from mcpspy.tui.export import ExportRequest, render_export, write_private
from mcpspy.tui.export_screen import ExportScreen
from mcpspy.tui.help_screen import HelpScreen
from mcpspy.tui.keymap import AREAS, bindings, palette_entries
from mcpspy.tui.loader import Batch, CaptureFeed, Snapshot, start_child
from mcpspy.tui.panes.detail import DetailPane
from mcpspy.tui.panes.filter_bar import FilterBar, GotoBar, SearchBar
from mcpspy.tui.panes.findings import FindingsPane
from mcpspy.tui.panes.header import HeaderBar, HeaderState
from mcpspy.tui.panes.inflight import InFlightPane
from mcpspy.tui.panes.message_list import MessageList
from mcpspy.tui.panes.side import SidePane, compose_side
from mcpspy.tui.panes.stderr import StderrPane
from mcpspy.tui.panes.timeline import TimelinePane
from mcpspy.tui.restarts import POLL, NextSession
from mcpspy.tui.rows import PendingRow, bars_of, pending_rows
from mcpspy.tui.search import Search
from mcpspy.tui.sessions_screen import ALL_LIVE, SessionsScreen
from mcpspy.tui.time_display import TimeDisplay
from mcpspy.tui.widgets.footer import Footer
from mcpspy.tui.widgets.prompt_bar import PromptBar

POLL_IDLE = 0.025
WIDE = 120  # from this many columns the side pane sits beside the list, else under it
BATCH_EVERY = 1.0  # seconds: while reading a backlog, post what was analysed this often
LIVENESS_EVERY = 1.0  # seconds between checks that a live session's proxy still runs


@dataclass
class Analysed(TextualMessage):
    batch: Batch
    generation: int  # which opening of a session it is from: a late batch of the last one is dropped


@dataclass
class CaptureProblem(TextualMessage):
    text: str
    generation: int


@dataclass
class AllStepped(TextualMessage):
    """`watch --all`: what one pass over every live session brought."""

    step: Step
    generation: int


@dataclass
class Restarted(TextualMessage):
    """The followed session ended and ``session`` started: show it."""

    session: SessionInfo
    generation: int


@dataclass
class Exported(TextualMessage):
    text: str  # what to say
    failed: bool = False


class InspectorApp(App[None]):
    """`mcpspy watch` and `mcpspy view`: the same app, following or not.

    ``clock`` gives the wall-clock time in seconds since the epoch; in-flight ages
    tick by it while live (a test passes a fixed one). ``session_dirs`` are where
    `s` lists sessions (default: the capture's directory); with ``follow_restarts``
    (`watch`), a session that starts after the shown one ended is opened in its place.
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
    BINDINGS: ClassVar[list[BindingType]] = list(bindings())
    APP_ACTIONS = frozenset({"help", "open_bar", "escape", "export", "sessions", "switch_pane"})

    def __init__(
        self,
        path: Path,
        live: bool = True,
        slow_after: float = 30.0,
        clock: Callable[[], float] = time.time,
        session_dirs: list[Path] | None = None,
        follow_restarts: bool = False,
        all_live: bool = False,
    ) -> None:
        super().__init__()
        self._action_targets.update(AREAS)  # `message_list.pair`: the key's action, on the pane that does it
        self.path = path
        self.live = live
        self.slow_after = slow_after
        self.clock = clock
        self.session_dirs = session_dirs if session_dirs is not None else [path.parent]
        self.follow_restarts = follow_restarts
        self.generation = 0  # each session opened in this app is a new generation
        self.all_live = all_live  # `watch --all`: every live session of session_dirs, merged
        self.shown: dict[int, Shown] = {0: Shown(path, "", Snapshot(slow_after=slow_after))}  # by origin
        self.finding_origin: dict[int, int] = {}  # id(finding) -> its session's origin (watch --all)
        self.problems: list[str] = []
        self.note: str | None = None  # news for the header's second line (the server restarted)
        self.loaded = False  # the capture was read to its end (or its proxy stopped) and concluded
        self.unanalysed = 0  # messages listed whose analysis is still to come
        self.reading = False  # a backlog is still being listed
        self.search: Search | None = None
        self.search_count = 0
        self._message_list: MessageList | None = None  # kept: scripts read its rows after the app exits
        self._resume_collector: Callable[[int], None] = lambda messages: None
        # The analysis of a big finished capture starts now, in a child process, beside Textual's own
        # start (loader.start_child); the worker takes it over.
        self._early_child = None if all_live else start_child(path, live, slow_after)

    def on_unmount(self) -> None:
        self._resume_collector(0)  # closed before its backlog was analysed: the collector runs again
        self._drop_early_child()

    def _drop_early_child(self) -> None:
        if self._early_child is not None:
            self._early_child.close()
            self._early_child = None

    def compose(self) -> ComposeResult:
        yield HeaderBar(id="header")
        with Horizontal(id="main"):
            message_list = self._message_list = MessageList(id="messages")
            yield message_list
            yield from compose_side("side")
        yield FilterBar(id="filter-bar")
        yield SearchBar(id="search-bar")
        yield GotoBar(id="goto-bar")
        yield Footer()

    def on_mount(self) -> None:
        self.message_list.focus()
        self.query_one(FilterBar).server_of = self.server_of
        self._resume_collector = pause_collector()  # until the backlog is analysed (replay_policy.py)
        if self.all_live:
            self.open_all_live()
        else:
            self.follow_capture(self.path, self.live, self.generation)
            if self.follow_restarts:
                self.watch_restarts(self.path, self.generation)
        self.set_interval(1.0, self.tick)
        self.refresh_header()

    def server_of(self, message: Message) -> str | None:
        """The server ``message`` is from (`server:` in the filter)."""
        shown = self.shown.get(self.message_list.key(message)[0])
        return shown.name if shown is not None else None

    @property
    def origin(self) -> int:
        """The session of the message under the cursor (0 but under `watch --all`)."""
        current = self.message_list.current
        return self.message_list.key(current)[0] if current is not None else 0

    @property
    def session(self) -> Shown:
        """The cursor's session (under `watch --all` before any joined: an empty one)."""
        return self.shown.get(self.origin) or Shown(self.path, "", Snapshot(slow_after=self.slow_after))

    @property
    def snapshot(self) -> Snapshot:
        """The analysis's state after the last batch, of the cursor's session."""
        return self.session.snapshot

    def on_resize(self, event: events.Resize) -> None:
        self.query_one("#main").set_class(event.size.width >= WIDE, "wide")

    @property
    def message_list(self) -> MessageList:
        if self._message_list is None:
            raise NoMatches("the message list is not composed yet")
        return self._message_list

    @property
    def side(self) -> SidePane:
        return self.query_one(SidePane)

    @property
    def rows(self) -> Sequence[Message]:
        """The messages the list shows (those that pass the filter)."""
        return self.message_list.rows

    # --- reading the capture (worker threads)

    @work(thread=True, exclusive=True, group="capture")
    def follow_capture(self, path: Path, live: bool, generation: int) -> None:
        worker = get_current_worker()
        child, self._early_child = self._early_child, None  # this session's: another's drops it (_forget)
        try:
            feed = CaptureFeed(path, live, self.slow_after, self.clock, child=child)
        except OSError as exc:
            if child is not None:
                child.close()
            self.post_message(CaptureProblem(f"cannot open {path}: {exc.strerror}", generation))
            return
        held = Batch()  # analysed, not yet posted: a big capture goes up in a few big batches
        posted_at = 0.0
        with closing(feed):
            while not worker.is_cancelled and not feed.done:
                try:
                    batch = feed.step()
                except CaptureFormatError as exc:
                    self.post_message(CaptureProblem(str(exc), generation))
                    return
                held.merge(batch)
                now = time.monotonic()
                # Live traffic is shown at once; a backlog every BATCH_EVERY, and as soon as it is listed.
                listed = feed.reader.at_end and batch.messages
                if held and (feed.caught_up or listed or feed.done or now - posted_at >= BATCH_EVERY):
                    self.post_message(Analysed(held, generation))
                    held, posted_at = Batch(), now
                if not batch:
                    time.sleep(POLL_IDLE)

    @work(thread=True, exclusive=True, group="restarts")
    def watch_restarts(self, path: Path, generation: int) -> None:
        """Once the shown session has ended, post the session that replaced it (restarts.py)."""
        worker = get_current_worker()
        current = read_session(path)
        if current is None:
            return
        watch = NextSession(self.session_dirs, current)
        checked = 0.0
        ended = False
        while not worker.is_cancelled and generation == self.generation:
            now = time.monotonic()
            ended = ended or self.loaded
            if not ended and now - checked >= LIVENESS_EVERY:  # a killed proxy never says it stopped
                ended, checked = not watch.still_live(), now
            chosen = watch.poll(ended, now)
            if chosen is not None:
                self.post_message(Restarted(chosen, generation))
                return
            time.sleep(POLL)

    @work(thread=True, exclusive=True, group="capture")
    def follow_all(self, generation: int) -> None:
        """`watch --all`: one worker steps every live session's feed (all_live.py)."""
        worker = get_current_worker()
        sessions = LiveSessions(self.session_dirs, self.slow_after, self.clock)
        with closing(sessions):
            while not worker.is_cancelled and self.is_running:
                step = sessions.step(time.monotonic())
                if step:
                    self.post_message(AllStepped(step, generation))
                else:
                    time.sleep(POLL_IDLE)

    # --- routing: the workers' batches and the panes' messages

    @on(CaptureProblem)
    def show_problem(self, event: CaptureProblem) -> None:
        if event.generation == self.generation:
            self.problems.append(event.text)
            self.refresh_header()

    @on(Restarted)
    def restarted(self, event: Restarted) -> None:
        if event.generation != self.generation:
            return
        info = event.session
        when = time.strftime("%H:%M:%S", time.localtime(self.clock()))
        note = f"↻ {when}: the session ended and a new one started; now showing {info.path.name}"
        self.open_session(info.path, info.live, note)
        self.notify(f"now showing the new session {info.path.name}", title="server restarted", markup=False)

    def _forget(self) -> None:
        """Before another session (or all live) is shown: a new generation, every pane emptied."""
        self._drop_early_child()
        self.generation += 1
        self.shown = {0: Shown(self.path, "", Snapshot(slow_after=self.slow_after))}
        self.finding_origin = {}
        self.problems = []
        self.loaded, self.unanalysed, self.reading = False, 0, False
        self.message_list.reset()
        self.query_one(FindingsPane).reset()
        self.query_one(StderrPane).clear()
        self.query_one(DetailPane).clear()
        self._resume_collector(0)
        self._resume_collector = pause_collector()  # until this view's backlog is analysed

    def open_all_live(self) -> None:
        """`watch --all`: every live session, merged as their lines arrive, with a server column."""
        self._forget()
        self.all_live, self.live, self.note, self.shown = True, True, None, {}
        self.message_list.show_servers([])
        if self.message_list.time_display is TimeDisplay.RELATIVE:  # each session has its own start
            self.message_list.set_time_display(TimeDisplay.ABSOLUTE)
        self.follow_all(self.generation)
        self.refresh_header()

    @on(AllStepped)
    def take_step(self, event: AllStepped) -> None:
        if event.generation != self.generation:
            return
        step = event.step
        servers = self.message_list.servers
        for joined in step.joined:
            info = joined.info
            self.shown[joined.origin] = Shown(
                info.path, info.header.name, Snapshot(slow_after=self.slow_after)
            )
            if servers is not None:
                servers.append(info.header.name)
        if step.joined and servers is not None:
            self.message_list.show_servers(servers)  # the column is as wide as the names need
        self.problems.extend(step.problems)
        self.take(step.batches)
        self.refresh_header()
        self.refresh_side()

    def open_session(self, path: Path, live: bool, note: str | None = None) -> None:
        """Show another capture in place; the filter, search, order and time display stay."""
        self._forget()
        self.path, self.live, self.note, self.all_live = path, live, note, False
        self.message_list.show_servers(None)
        self.follow_capture(path, live, self.generation)
        if self.follow_restarts:
            self.watch_restarts(path, self.generation)
        self.refresh_header()
        self.refresh_side()

    @on(Analysed)
    def take_batch(self, event: Analysed) -> None:
        if event.generation != self.generation:
            return
        self.take([(0, event.batch)])
        self.refresh_header()
        self.refresh_side()

    def take(self, batches: list[tuple[int, Batch]]) -> None:
        """Batches into the panes, each of a session (its origin; 0 but under `watch --all`).

        Several sessions' new lines are listed in the order they were written (by the clock).
        """
        try:
            messages, detail = self.message_list, self.query_one(DetailPane)
        except NoMatches:  # the app is closing
            return
        new: list[Message] = []
        changed: dict[int, set[int]] = {}  # by origin: the seqs whose analysis changed
        was_unanalysed = self.unanalysed
        for origin, batch in batches:
            self.shown[origin].take(batch)
            messages.started_epochs[origin] = batch.snapshot.started_epoch
            self.problems.extend(batch.problems)
            if origin:
                messages.origin_of.update((id(m), origin) for m in batch.messages)
                self.finding_origin.update((id(f), origin) for f in batch.findings)
            new.extend(batch.messages)
            changed.setdefault(origin, set()).update(batch.changed)
            if batch.findings:
                self.query_one(FindingsPane).add(batch.findings)
            if batch.stderr:
                self.query_one(StderrPane).add(batch.stderr)
            if batch.ended and not self.all_live:
                self.loaded = True
                self.live = False  # nothing more will come: ages stop ticking
        if len(batches) > 1:
            new.sort(key=self.written_at)
        self.unanalysed = sum(shown.unanalysed for shown in self.shown.values())
        self.reading = any(shown.reading for shown in self.shown.values())
        if not self.unanalysed and not self.reading:
            self._resume_collector(len(messages.all_messages) + len(new))
        messages.add(new, changed)
        if new and self.unanalysed:  # a backlog listed: its index made while its analysis goes on
            self.call_after_refresh(messages.index_messages)
        if detail.message is not None:  # its session's changes
            detail.changed(changed.get(messages.key(detail.message)[0], ()))
        detail.show(messages.current)  # now, so that it is drawn in the same frame as the list
        if was_unanalysed and not self.unanalysed and messages.filter is not None:
            messages.set_filter(messages.filter)  # the list was filtered before the analysis had its say
            self.count_search()
        elif self.search is not None and new:
            shown = messages.filter
            self.search_count += sum(1 for m in new if (shown is None or shown(m)) and self.search(m))

    def written_at(self, message: Message) -> float:
        """When ``message`` was written, by the clock (its session's start and its time in it)."""
        origin = self.message_list.key(message)[0]
        return (self.message_list.started_epochs.get(origin) or 0.0) + message.t

    @on(MessageList.Shown)
    def message_shown(self, event: MessageList.Shown) -> None:
        for detail in self.query(DetailPane):  # none while the app closes
            detail.show(event.message)

    @on(MessageList.Changed)
    def list_changed(self, event: MessageList.Changed) -> None:
        self.refresh_header()

    @on(FilterBar.Entered, "#filter-bar")
    def filter_entered(self, event: FilterBar.Entered) -> None:
        self.message_list.set_filter(event.value)
        self.count_search()
        self.message_list.focus()

    @on(SearchBar.Entered, "#search-bar")
    def search_entered(self, event: SearchBar.Entered) -> None:
        self.set_search(event.value)
        self.message_list.focus()
        if self.search is not None:
            self.message_list.action_search_next(1, include_current=True)

    @on(GotoBar.Entered, "#goto-bar")
    def goto_entered(self, event: GotoBar.Entered) -> None:
        self.message_list.focus()
        server, seq = event.value
        if server is None:
            self.message_list.go_to_seq(seq)
            return
        origins = [origin for origin, shown in self.shown.items() if shown.name == server]
        if not origins:
            self.notify(
                f"no server named {visible_line(server)} in this view", severity="warning", markup=False
            )
        else:  # a restarted server: its newest session
            self.message_list.go_to_seq(seq, max(origins))

    @on(FindingsPane.JumpTo)
    def jump_to_finding(self, event: FindingsPane.JumpTo) -> None:
        if self.message_list.jump_to(event.seq, self.finding_origin.get(id(event.finding), 0)):
            self.side.active = "tab-detail"
            self.message_list.focus()
        elif self.message_list.filter is not None:
            self.notify(f"line {event.seq} is hidden by the filter", severity="warning", markup=False)
        else:
            self.notify(f"line {event.seq} is a process event, not a message", markup=False)

    @on(SidePane.TabActivated, "#side")
    def tab_shown(self, event: SidePane.TabActivated) -> None:
        self.refresh_side()

    def set_search(self, search: Search | None) -> None:
        """Highlight ``search`` in the list and the detail (None: no search)."""
        self.search = search
        pattern = search.pattern if search is not None else None
        self.message_list.set_search(search)
        detail = self.query_one(DetailPane)
        detail.set_highlight(pattern)
        detail.scroll_to_match()
        self.count_search()

    def count_search(self) -> None:
        self.search_count = self.search.count(self.rows) if self.search is not None else 0
        self.refresh_header()

    def refresh_header(self) -> None:
        try:
            messages, header = self.message_list, self.query_one(HeaderBar)
        except NoMatches:  # the app is closing
            return
        if self.all_live:
            live = sum(not s.ended for s in self.shown.values())
            name = f"all live: {live} of {len(self.shown)} sessions"
            pending = sum(s.snapshot.pending_count for s in self.shown.values())
            snapshot = replace(self.snapshot, pending_count=pending, name="all live")  # cut to this
            servers = servers_line(self.shown.values(), self.size.width)
        else:
            name, snapshot, servers = self.path.name, self.snapshot, None
        state = HeaderState(
            name,
            snapshot,
            self.query_one(FindingsPane).by_severity,
            len(messages.rows),
            len(messages.all_messages),
            self.reading,
            self.unanalysed,
            messages.follow,
            self.loaded,
            messages.filter.text if messages.filter else None,
            self.problems[-1] if self.problems else None,
            order=messages.order.value,
            search=self.search.text if self.search is not None else None,
            search_count=self.search_count,
            note=self.note,
            servers=servers,
        )
        header.show(state)

    def refresh_side(self) -> None:
        """The in-flight and timeline tabs, when shown (a hidden one is refreshed as it is shown)."""
        try:
            active = self.side.active
        except NoMatches:  # the app is closing
            return
        if active == "tab-inflight":
            self.query_one(InFlightPane).show(self.in_flight_rows())
        elif active == "tab-timeline":
            self.show_timeline()

    def in_flight_rows(self) -> list[PendingRow]:
        """The in-flight requests: of every session under `watch --all`, each named by its server."""
        if self.all_live:
            return pending_of_all(self.shown.values(), self.live, self.clock)
        snapshot = self.snapshot
        return pending_rows(
            snapshot.pending, now_in(self.session, self.live, self.clock), snapshot.slow_after
        )

    def show_timeline(self) -> None:
        """The newest exchanges as bars: of every session on the wall clock under `watch --all`."""
        timeline = self.query_one(TimelinePane)
        if self.all_live:
            timeline.show(bars_of_all(self.shown.values()), self.clock())
        else:
            timeline.show(bars_of(self.snapshot.exchanges), now_in(self.session, self.live, self.clock))

    def tick(self) -> None:
        """Ages of in-flight requests tick by the clock (slow ones are flagged by the worker)."""
        if self.live:
            self.refresh_side()

    # --- the app's own keys (keymap.py): the bars, the screens, the focus between panes

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The inspector's keys do nothing over another screen (a dialog), nor while typing in a box."""
        if action not in self.APP_ACTIONS:
            return True
        if action == "open_bar" and isinstance(self.focused, Input):
            return False  # a `/` or `:` typed in a box is text
        return self.screen is self.screen_stack[0]

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if screen is not self.screen_stack[0]:
            return
        for title, description, key in palette_entries():
            yield SystemCommand(title, description, partial(self.run_action, key.action))

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

    def action_switch_pane(self) -> None:
        """`tab`: from the message list to the side pane's content and back."""
        pane = self.side.pane
        inside = pane.has_focus_within or pane.has_focus
        target: Widget | None = self.message_list if inside else pane
        if isinstance(self.focused, Widget) and any(bar.has_focus_within for bar in self.query(PromptBar)):
            target = self.message_list
        if target is pane and not pane.focusable:  # a container: its first focusable child
            target = next((w for w in pane.query("*") if w.focusable), None)
        if target is not None:
            target.focus()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_sessions(self) -> None:
        self.push_screen(SessionsScreen(self.session_dirs, self.path), self._session_chosen)

    def _session_chosen(self, session: SessionInfo | str | None) -> None:
        if session == ALL_LIVE:
            self.open_all_live()
        elif isinstance(session, SessionInfo) and (session.path != self.path or self.all_live):
            self.open_session(session.path, session.live)

    def action_export(self) -> None:
        listed, message = self.message_list, self.message_list.current
        if self.all_live:  # one capture a session: the cursor's session's rows in the view
            origin = self.origin
            shown = sum(1 for m in self.rows if listed.key(m)[0] == origin)
            view = f"the view of {self.session.name or '?'}'s session: {shown} messages"  # made visible there
        else:
            shown = len(self.rows)
            view = f"the filtered view: {shown} messages" if listed.filter else f"all {shown} messages"
        exchange_text = None
        if message is not None:
            exchange, parts = exchange_parts(message, self.message_list.of_session(message))
            if exchange is not None:
                exchange_text = f"the exchange: {exchange.method} id {exchange.id!r}, {len(parts)} messages"
        path = self.session.path
        self.push_screen(ExportScreen(path, view, exchange_text, Path.cwd()), self._export_chosen)

    def _export_chosen(self, request: ExportRequest | None) -> None:
        if request is None:
            return
        keep: set[int] | None = None
        listed, origin = self.message_list, self.origin
        if request.scope == "exchange" and listed.current is not None:
            _, parts = exchange_parts(listed.current, listed.of_session(listed.current))
            keep = {part.message.seq for part in parts}
        elif listed.filter is not None or self.all_live:  # all live: the cursor's session's rows
            keep = {m.seq for m in self.rows if listed.key(m)[0] == origin}
        self.notify(f"exporting to {request.dest}…", markup=False)
        self.export(self.session.path, request, keep, self.session.ended or self.loaded)

    @work(thread=True, group="export")
    def export(self, path: Path, request: ExportRequest, keep: set[int] | None, concluded: bool) -> None:
        try:
            write_private(request.dest, render_export(path, request.fmt, keep, concluded), request.overwrite)
        except Exception as exc:  # a bad path, a full disk, a capture gone: said, never a crash
            self.post_message(Exported(f"export failed: {exc}", failed=True))
            return
        what = "the exchange" if request.scope == "exchange" else "the view"
        self.post_message(Exported(f"exported {what} as {request.fmt} to {request.dest}"))

    @on(Exported)
    def exported(self, event: Exported) -> None:
        text = re.sub(r"\s+", " ", event.text)
        self.notify(text, severity="error" if event.failed else "information", markup=False, timeout=8)
