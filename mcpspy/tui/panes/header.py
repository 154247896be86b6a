"""The inspector's header line: capture, era, counts, findings, state, order, search, filter; news below.

Built as Textual ``Content`` (never markup): the capture's name, its protocol version
and a problem's wording come from the capture and are shown as they are, with
their controls made visible.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from textual import events
from textual.content import Content
from textual.widgets import Static

from mcpspy.analysis.model import Severity
from mcpspy.terminal import visible_line
from mcpspy.tui.loader import Snapshot

SEPARATOR = "  "
NAME_WITH_FILTER = 32  # a longer server name is cut when a filter is shown too
SEARCH_SHOWN = 16  # a longer search text is cut in the header


@dataclass(frozen=True)
class HeaderState:
    file_name: str
    snapshot: Snapshot
    by_severity: Counter[Severity]
    shown: int  # messages in the list
    total: int  # messages seen
    reading: bool  # a backlog is still being listed
    unanalysed: int  # messages the analysis has not had its say on yet
    following: bool
    ended: bool
    filter_text: str | None
    problem: str | None  # the latest, on a line of its own
    order: str = "seq"  # the list's order: seq, latency or size
    search: str | None = None  # the text searched for
    search_count: int = 0  # messages in the list that have it
    note: str | None = None  # news on a line of its own: the server restarted
    servers: str | None = None  # `watch --all`: each server's counts, on a line of their own (plain text)


def header_text(h: HeaderState, width: int) -> Content:
    """Capture, era, counts, findings by severity, state, filter, shortened to fit ``width``."""
    s, by = h.snapshot, h.by_severity
    era = s.era.value
    if s.protocol_version not in (None, s.era.value):
        era += f" ({visible_line(s.protocol_version)})"
    counts = Content.assemble(
        (f"✖ {by[Severity.ERROR]}", "red"),
        " ",
        (f"▲ {by[Severity.WARNING]}", "yellow"),
        " ",
        (f"· {by[Severity.INFO]}", "blue"),
    )
    parts = [
        Content(era),
        Content(f"{h.shown}/{h.total} msgs" if h.filter_text is not None else f"{h.total} msgs"),
        Content(f"{s.pending_count} pending"),
        counts,
    ]
    ctx = None if s.context_tokens is None else Content(f"ctx ~{s.context_tokens:,} tok")
    if ctx is not None:  # what the latest tools/list costs a model's context
        parts.append(ctx)
    if h.reading:
        parts.append(Content.styled("reading…", "dim"))
    elif h.unanalysed:
        parts.append(Content.styled(f"analysing, {h.unanalysed:,} to go", "dim"))
    if not h.following:
        parts.append(Content("paused"))
    elif not h.ended:
        parts.append(Content("following"))
    if h.ended:
        parts.append(Content("ended"))
    if h.order != "seq":
        parts.append(Content.styled(f"by {h.order}", "bold"))
    if h.search is not None:
        search = visible_line(h.search)
        search = search if len(search) <= SEARCH_SHOWN else search[: SEARCH_SHOWN - 1] + "…"
        parts.append(Content.assemble(("search:", "dim"), f" {search} ({h.search_count})"))
    filter_text = visible_line(h.filter_text or "")
    filter_room = len(filter_text) + len("  filter: ") if h.filter_text is not None else 0
    room = width - 2 - sum(len(SEPARATOR) + part.cell_length for part in parts) - filter_room
    if ctx is not None and room < max(12, len(visible_line(s.name))):  # the context cost goes first
        parts.remove(ctx)
        room += ctx.cell_length + len(SEPARATOR)
    if room < 12:  # then the era
        room += parts.pop(0).cell_length + len(SEPARATOR)
    name = visible_line(h.file_name)  # the file name says when, and which server
    if len(name) > room:  # the server's name says enough
        name = visible_line(s.name) or "…" + name[-max(room - 1, 8) :]
        if len(name) > room and h.filter_text is None:
            name = name[: max(room - 1, 8)] + "…"
        elif len(name) > NAME_WITH_FILTER and h.filter_text is not None:  # leave the filter some room
            name = name[: NAME_WITH_FILTER - 1] + "…"
    if h.filter_text is not None:
        over = len(name) - room
        if over > 0:  # what is left of the filter
            filter_text = filter_text[: max(len(filter_text) - over - 1, 4)] + "…"
        parts.append(Content.assemble(("filter:", "dim"), " ", filter_text))
    text = Content(SEPARATOR).join([Content.styled(name, "bold"), *parts])
    for line, style in ((h.servers, ""), (h.note, "yellow"), (h.problem, "red")):
        if line:
            shown = visible_line(line)
            if len(shown) > width - 2:  # one line each: the header's height counts them
                shown = shown[: max(width - 3, 8)] + "…"
            text = Content.assemble(text, "\n", (shown, style))
    return text


class HeaderBar(Static):
    """One line (two with a problem), drawn again for the terminal's width when it changes."""

    DEFAULT_CSS = """
    HeaderBar { height: 1; padding: 0 1; background: $panel; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self.text = ""  # what the header says, as plain text (what a test reads)
        self._state: HeaderState | None = None

    def show(self, state: HeaderState) -> None:
        self._state = state
        self._draw()

    def on_resize(self, event: events.Resize) -> None:
        self._draw()

    def _draw(self) -> None:
        if self._state is None:
            return
        text = header_text(self._state, self.app.size.width)
        self.text = text.plain
        height = 1 + self.text.count("\n")
        if self.styles.height is None or self.styles.height.value != height:
            self.styles.height = height
        self.update(text, layout=False)  # its height is set: no need to lay the screen out
