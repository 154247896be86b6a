"""``Replay(seen=False)``: the same events but each line's MessageSeen, for a caller that has its lines."""

from __future__ import annotations

import pytest

from mcpspy.analysis.model import AnalysisEvent, ExchangeUpdated, FindingRaised, MessageSeen
from mcpspy.capture.records import LineRecord, Record
from mcpspy.replay_policy import Replay
from tests.analysis.digest import FIXTURES, sources


def _described(event: AnalysisEvent) -> str:
    """An event as plain text (an event holds the analysis' own objects: two replays never share them)."""
    if type(event) is FindingRaised:
        f = event.finding
        return f"finding {f.id} {f.seq} {f.stream} {f.related_seq} {f.message}"
    if type(event) is ExchangeUpdated:
        e = event.exchange
        return f"exchange {e.request_seq} {e.method} {e.state} {e.reply_seq}"
    return f"{type(event).__name__} {event!r}"


def _events(records: list[Record], seen: bool) -> tuple[list[str], int]:
    replay = Replay(seen=seen)
    events = [e for record in records for e in replay.feed(record)] + replay.conclude()
    return [_described(e) for e in events if type(e) is not MessageSeen], len(events)


@pytest.mark.parametrize(("name", "records"), list(sources(FIXTURES, [])))
def test_seen_false_leaves_out_each_lines_message_seen_alone(name: str, records: list[Record]) -> None:
    with_seen, made_with = _events(records, seen=True)
    without, made_without = _events(records, seen=False)
    assert without == with_seen
    lines = sum(1 for r in records if type(r) is LineRecord)
    assert made_with - made_without == lines  # one MessageSeen a line, and only those, left out
