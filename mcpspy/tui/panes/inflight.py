"""The in-flight pane: requests still waiting for their reply, and how long they have waited."""

from __future__ import annotations

from collections.abc import Sequence

from mcpspy.tui.rows import PENDING_COLUMNS, PENDING_COLUMNS_ALL, PendingRow, pending_cells
from mcpspy.tui.widgets.rowlist import RowList


class InFlightPane(RowList[PendingRow]):
    """The oldest pending requests first; an age past the slow threshold is flagged."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(PENDING_COLUMNS, pending_cells, id=id, empty="nothing in flight")

    def show(self, rows: Sequence[PendingRow]) -> None:
        """``rows``, oldest first; a server column when they name their servers (`watch --all`)."""
        columns = PENDING_COLUMNS_ALL if any(row.server is not None for row in rows) else PENDING_COLUMNS
        if columns != self.columns:
            self.set_columns(columns)
        self.set_rows(list(rows))
