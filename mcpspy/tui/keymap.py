"""Every key of the inspector, written once: the bindings, the command palette and the help come from here.

As mitmproxy's keymap: a key is one entry, naming its action in the area that
does it (``message_list.`` the list pane, ``side.`` the side pane, none: the
app), what the footer calls it, and what the palette says. The help screen
lists ``HELP`` in order: each row explains one key or a few together, and
rows with no keys of their own explain a widget's keys (the list's j/k).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from textual.binding import Binding

from mcpspy.tui.panes.side import SIDE_TABS

# How the palette and the help write a key Textual names otherwise.
KEY_SHOWN: Final = {
    "question_mark": "?",
    "slash": "/",
    "colon": ":",
    "right_square_bracket": "]",
    "left_square_bracket": "[",
}
AREAS: Final = ("message_list", "side")  # the action namespaces besides the app's own


@dataclass(frozen=True, slots=True)
class Key:
    """One binding: ``key`` runs ``action``; ``footer``: its place in the footer (0: not there)."""

    key: str
    action: str
    label: str
    footer: int = 0
    priority: bool = False  # run as the key is read (the bars: the next keys already go to the box)
    palette: str | None = None  # the palette's description (None: not in the palette)
    title: str | None = None  # the palette's title, when not the label

    @property
    def shown(self) -> str:
        return KEY_SHOWN.get(self.key, self.key)

    def binding(self) -> Binding:
        return Binding(self.key, self.action, self.label, show=self.footer > 0, priority=self.priority)


@dataclass(frozen=True, slots=True)
class Row:
    """A line of the help: ``shown`` (the keys as written there), what they do, the keys it explains."""

    shown: str
    what: str
    keys: tuple[Key, ...] = ()


def _tab_keys() -> tuple[Key, ...]:
    return tuple(
        Key(
            str(n),
            f"side.show_tab({n})",
            label,
            palette=f"The {label.lower()} tab",
            title=f"Show {label.lower()}",
        )
        for n, (_, label, _) in enumerate(SIDE_TABS, 1)
    )


HELP: Final = (
    Row("j/k, arrows, PgUp/PgDn", "move in the list (moving up stops following)"),
    Row("g/G, Home/End", "first and last message (G follows again)"),
    Row(
        "f",
        "follow the newest message, or stop",
        (Key("f", "message_list.toggle_follow", "Follow", 4, palette="Follow the newest message"),),
    ),
    Row(
        "p",
        "jump between a request and its reply",
        (Key("p", "message_list.pair", "Pair", 5, palette="Jump between a request and its reply"),),
    ),
    Row(
        "x",
        "follow the exchange: request, progress, cancel, reply, late reply in one screen",
        (
            Key(
                "x",
                "message_list.follow_exchange",
                "Exchange",
                6,
                palette="Request, progress, cancel, reply in one screen",
                title="Follow exchange",
            ),
        ),
    ),
    Row(
        "v",
        "the message in full, however big (r: raw/JSON)",
        (
            Key(
                "v",
                "message_list.whole",
                "Full",
                7,
                palette="The selected message in full",
                title="Whole message",
            ),
        ),
    ),
    Row(
        "/",
        "filter (up/down: earlier filters; checked as you type)",
        (Key("slash", "open_bar('filter-bar')", "Filter", 2, True, "Show only matching messages"),),
    ),
    Row(
        "ctrl+f, n/N",
        "search: highlight the text; next and previous message with it",
        (
            Key("ctrl+f", "open_bar('search-bar')", "Search", 3, True, "Find text in the messages"),
            Key("n", "message_list.search_next(1)", "Next match"),
            Key("N", "message_list.search_next(-1)", "Previous match"),
        ),
    ),
    Row(
        ":",
        "go to a seq",
        (Key("colon", "open_bar('goto-bar')", "Go to seq", 0, True, "Put the cursor on a seq"),),
    ),
    Row(
        "o",
        "order: by seq, slowest exchange first, biggest first",
        (Key("o", "message_list.order", "Order", palette="By seq, slowest first, biggest first"),),
    ),
    Row(
        "t",
        "time: since the start, wall clock, since the row above",
        (
            Key(
                "t",
                "message_list.time_display",
                "Time",
                palette="Since start, wall clock, since previous",
                title="Time display",
            ),
        ),
    ),
    Row(
        "y / Y",
        "copy the message (Y: it and its pair) to the clipboard, as JSON lines",
        (
            Key(
                "y",
                "message_list.copy(False)",
                "Copy",
                8,
                palette="The selected message to the clipboard",
                title="Copy message",
            ),
            Key(
                "Y",
                "message_list.copy(True)",
                "Copy pair",
                palette="The message and its pair to the clipboard",
            ),
        ),
    ),
    Row(
        "l / L, c",
        "a cursor on the detail's JSON lines; c copies the JSON path under it",
        (
            Key("l", "side.json_line(1)", "JSON line"),
            Key("L", "side.json_line(-1)", "Previous JSON line"),
            Key("c", "side.copy_path", "Copy path"),
        ),
    ),
    Row(
        "e",
        "export the filtered view or the exchange (text, json, markdown, ...)",
        (Key("e", "export", "Export", 9, palette="The filtered view or the exchange, as a report"),),
    ),
    Row(
        "s",
        "sessions: open another, live or finished",
        (Key("s", "sessions", "Sessions", 10, palette="Open another session, live or finished"),),
    ),
    Row(
        "tab",
        "from the list to the side tab's content and back",
        (Key("tab", "switch_pane", "Pane", priority=True),),
    ),
    Row(
        "1-5, [ ]",
        "detail, findings, in flight, stderr, timeline",
        (
            Key("right_square_bracket", "side.next_tab(1)", "Tab"),
            Key("left_square_bracket", "side.next_tab(-1)", "Prev tab"),
            *_tab_keys(),
        ),
    ),
    Row("enter", "on a finding: jump to its message"),
    Row("ctrl+p", "command palette"),
    Row(
        "q",
        "quit (escape closes a box or a screen)",
        (Key("q", "quit", "Quit", 11), Key("escape", "escape", "Close")),
    ),
)
# Bound, in the palette, not a help line of its own: the help is what it opens.
HELP_KEY: Final = Key(
    "question_mark", "help", "Keys", 1, palette="Every key, the marks explained", title="Keys and legends"
)

KEYS: Final = (HELP_KEY, *(key for row in HELP for key in row.keys))


def bindings() -> list[Binding]:
    """Every key's binding; those in the footer first, in its order."""
    footer = sorted((key for key in KEYS if key.footer), key=lambda key: key.footer)
    return [key.binding() for key in (*footer, *(key for key in KEYS if not key.footer))]


def palette_entries() -> list[tuple[str, str, Key]]:
    """(title, description, key) for every key in the palette; the description ends with its key."""
    return [(key.title or key.label, f"{key.palette} ({key.shown})", key) for key in KEYS if key.palette]
