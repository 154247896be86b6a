"""The bars under the list: `/` filter, `ctrl+f` search, `:` go to a seq.

Each is a ``PromptBar``: checked as you type (what is wrong is said under the
box, and enter does nothing until it is right), with its own history; the
filter's and the search's are kept across runs.
"""

from __future__ import annotations

from mcpspy.filters import Filter, FilterError, parse_filter
from mcpspy.filters.terms import ServerOf
from mcpspy.tui.search import Search
from mcpspy.tui.widgets.prompt_bar import PromptBar

FILTER_PLACEHOLDER = 'filter: method:tools/* dir:s2c -kind:notification latency:>500ms OR "some text"'


class FilterBar(PromptBar[Filter | None]):
    """The filter; None clears it."""

    placeholder = FILTER_PLACEHOLDER
    history_key = "filter"
    server_of: ServerOf | None = None  # the app's: which server a message is from

    def check(self, text: str) -> Filter | None:
        if not text.strip():
            return None
        try:
            return parse_filter(text, self.server_of)
        except FilterError as exc:
            raise ValueError(f"invalid filter: {exc}") from None


class SearchBar(PromptBar[Search | None]):
    """Text to find in the messages (any case); None clears the search."""

    placeholder = "search: text to find in the lines (n next, N previous)"
    history_key = "search"

    def check(self, text: str) -> Search | None:
        return Search(text) if text.strip() else None


class GotoBar(PromptBar[tuple[str | None, int]]):
    """A seq to go to, of the cursor's session, or ``SERVER:SEQ`` (under `watch --all`, another server's)."""

    placeholder = "go to seq: a number (of the cursor's session), or SERVER:SEQ"

    def check(self, text: str) -> tuple[str | None, int]:
        server, _, seq = text.strip().rpartition(":")
        seq = seq.strip().removeprefix("#")
        if not seq.isdecimal():
            raise ValueError("a seq is a number: the first column of `mcpspy report`, `seq` in the detail")
        return server.strip() or None, int(seq)
