"""The in-flight pane: requests still waiting for their reply, and how long they have waited."""

from __future__ import annotations

from mcpspy.tui.loader import Snapshot
from mcpspy.tui.rows import PENDING_COLUMNS, PendingRow, pending_cells
from mcpspy.tui.widgets.rowlist import RowList


class InFlightPane(RowList[PendingRow]):
    """The oldest pending requests first; an age past the slow threshold is flagged."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(PENDING_COLUMNS, pending_cells, id=id, empty="nothing in flight")

    def show(self, snapshot: Snapshot, now: float) -> None:
        """The pending requests of ``snapshot`` as of ``now`` (seconds since the session started)."""
        slow_after = snapshot.slow_after
        self.set_rows([PendingRow(x, now - x.sent_t, now - x.sent_t >= slow_after) for x in snapshot.pending])
