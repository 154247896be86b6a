"""The inspector's header line. No Textual here: markup in, markup out."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from rich.markup import escape
from rich.text import Text

from mcpspy.analysis.model import Severity
from mcpspy.tui.loader import Snapshot


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
    problem: str | None  # the latest, on a second line


def header_markup(h: HeaderState, width: int) -> str:
    """Capture, era, counts, findings by severity, state, filter, shortened to fit ``width``."""
    s, by = h.snapshot, h.by_severity
    era = s.era.value
    if s.protocol_version not in (None, s.era.value):
        era += f" ({s.protocol_version})"
    parts = [
        era,
        f"{h.shown}/{h.total} msgs" if h.filter_text is not None else f"{h.total} msgs",
        f"{s.pending_count} pending",
        f"[red]✖ {by[Severity.ERROR]}[/] [yellow]▲ {by[Severity.WARNING]}[/] [blue]· {by[Severity.INFO]}[/]",
    ]
    if h.reading:
        parts.append("[dim]reading…[/]")
    elif h.unanalysed:
        parts.append(f"[dim]analysing, {h.unanalysed:,} to go[/]")
    if not h.following:
        parts.append("paused")
    elif not h.ended:
        parts.append("following")
    if h.ended:
        parts.append("ended")
    filter_text = h.filter_text or ""
    filter_room = len(filter_text) + len("  filter: ") if h.filter_text is not None else 0
    room = width - 2 - Text.from_markup("  " + "  ".join(parts)).cell_len - filter_room
    if room < 12:  # the era is the first to go
        room += len(parts.pop(0)) + 2
    name = h.file_name  # the file name says when, and which server
    if len(name) > room:  # the server's name says enough
        name = s.name or "…" + name[-max(room - 1, 8) :]
        if len(name) > room and h.filter_text is None:
            name = name[: max(room - 1, 8)] + "…"
    if h.filter_text is not None:
        over = len(name) - room
        if over > 0:  # what is left of the filter
            filter_text = filter_text[: max(len(filter_text) - over - 1, 4)] + "…"
        parts.append(f"[dim]filter:[/] {escape(filter_text)}")
    text = "  ".join([f"[b]{escape(name)}[/b]", *parts])
    if h.problem:
        text += f"\n[red]{escape(h.problem)}[/]"
    return text
