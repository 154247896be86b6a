"""One side's id space: the requests it has sent, by id, as rules/pairing.py keeps them.

Ids key the dicts as they are: a valid id is an exact str or int (orjson's
types), and no str equals an int, so 1 and "1" never meet.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from mcpspy.analysis.model import Exchange

IdKey = str | int  # a valid id


@dataclass(slots=True)
class IdSpace:
    """The requests one side has sent, by id."""

    pending: dict[IdKey, Exchange] = field(default_factory=dict)  # in sending order
    closed: dict[IdKey, Exchange] = field(default_factory=dict)  # answered or cancelled
    lost: dict[IdKey, Exchange] = field(default_factory=dict)  # replied unparseably: still awaited
    # Pending when records went missing (a gap): their reply may be among them, so none is owed.
    unsure: dict[IdKey, Exchange] = field(default_factory=dict)
    # Requests that expect a prompt reply, in sending order; those no longer pending are pruned
    # lazily from the front. (Iterating ``pending`` instead costs O(holes): a dict popped from
    # the front scans past its deleted slots until it is resized.)
    sent_order: deque[Exchange] = field(default_factory=deque)
    # The same requests, until each is answered or found slow: ``check_pending`` looks only at the
    # front, so asking it at every record costs O(1) amortised.
    not_yet_slow: deque[Exchange] = field(default_factory=deque)
    # Lean mode: ``closed`` in closing order, so that only the most recent are kept.
    closed_order: deque[tuple[IdKey, Exchange]] = field(default_factory=deque)
    forgotten: int = 0  # lean mode: the oldest pending requests set aside as unknown past the bound
    sent: bool = False  # a request was sent (rules/lifecycle.py judges a failed start by these two)
    replied: bool = False  # a reply came about these requests, whatever its id

    def close(self, key: IdKey, exchange: Exchange, recent: int | None) -> None:
        """Remember an answered or cancelled request; with ``recent``, only the last that many."""
        self.closed[key] = exchange
        if recent is not None:
            order = self.closed_order
            order.append((key, exchange))
            if len(order) > recent:
                old_key, old = order.popleft()
                if self.closed.get(old_key) is old:
                    del self.closed[old_key]

    def oldest_waiting(self) -> Exchange | None:
        """The oldest pending request that is not long-lived (what every reply is compared with)."""
        order, pending = self.sent_order, self.pending
        while order:
            oldest = order[0]
            if pending.get(oldest.id) is oldest:
                return oldest
            order.popleft()
        return None
