"""Records that went missing (a capture-gap, a --log that fell behind): pairing judges nothing across them."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from mcpspy.analysis.model import FindingRaised
from mcpspy.capture.records import Event, LifecycleRecord, LineRecord, Record, Stream
from mcpspy.proxy.log import LogSink
from mcpspy.replay_policy import Replay
from tests.analysis.steps import META


def line(seq: int, stream: Stream, payload: dict[str, Any]) -> LineRecord:
    return LineRecord(seq, seq * 0.01, stream, orjson.dumps(payload))


def call(i: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "x", "_meta": META}}


def reply(i: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": i, "result": {"resultType": "complete", "content": []}}


def session(gap: bool) -> list[Record]:
    """Requests 1 and 2 before the gap; 3 and its reply lost in it; 1, 3 and 9 answered after; 4 never."""
    records: list[Record] = [line(1, Stream.C2S, call(1)), line(2, Stream.C2S, call(2))]
    if gap:
        details = {"lines": 2, "bytes": 200, "first": 3, "last": 4}
        records.append(LifecycleRecord(5, 0.05, Event.CAPTURE_GAP, details))
    else:
        records += [line(3, Stream.C2S, call(3)), line(4, Stream.S2C, reply(2))]
    records += [
        line(6, Stream.S2C, reply(3)),
        line(7, Stream.S2C, reply(1)),
        line(8, Stream.S2C, reply(9)),
        line(9, Stream.C2S, call(4)),
    ]
    return records


def found(records: list[Record], retain: bool) -> list[tuple[str, int]]:
    replay = Replay(retain=retain)
    events = [e for r in records for e in replay.feed(r)] + replay.conclude()
    return [(e.finding.id, e.finding.seq) for e in events if isinstance(e, FindingRaised)]


@pytest.mark.parametrize("retain", [True, False])
def test_nothing_is_judged_across_a_gap(retain: bool) -> None:
    without = found(session(gap=False), retain)
    assert ("pairing.unknown-id", 8) in without and ("pairing.out-of-order", 6) in without  # the baseline
    assert sorted(found(session(gap=True), retain)) == [("capture.gap", 5), ("pairing.unanswered", 9)]


def test_a_request_pending_at_the_gap_still_pairs_with_its_reply_after_it() -> None:
    replay = Replay()
    for record in session(gap=True):
        replay.feed(record)
    replay.conclude()
    by_id = {e.id: e for e in replay.analyzer.exchanges}
    assert by_id[1].reply_seq == 7 and by_id[1].state.value == "answered"
    assert by_id[2].reply_seq is None  # its reply may have been in the gap: owed nothing, flagged nothing
    assert by_id[2].state.value == "unknown" and by_id[4].state.value == "unanswered"


def test_a_request_pending_at_the_gap_is_neither_pending_nor_never_answered_in_the_views() -> None:
    from mcpspy.filters import parse_filter
    from mcpspy.model.summary import NEVER_ANSWERED

    replay = Replay()
    for record in session(gap=True)[:3]:  # requests 1 and 2, then the gap
        replay.feed(record)
    analyzer = replay.analyzer
    assert analyzer.pending == []
    waiting = parse_filter("is:pending")
    assert [m.seq for m in analyzer.messages if waiting(m)] == []
    assert all(e.state not in NEVER_ANSWERED for e in analyzer.exchanges)


def test_a_cancel_after_the_gap_of_a_request_pending_at_it_is_no_unknown_request() -> None:
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}
    records = [*session(gap=True)[:3], line(6, Stream.C2S, cancel)]
    assert found(records, retain=True) == [("capture.gap", 5)]


def test_a_log_that_skipped_records_does_not_blame_the_server_for_them() -> None:
    out: list[bytes] = []
    log = LogSink(out.append, lambda warning: None, show_stderr=True)
    log([line(1, Stream.C2S, call(1))])
    log.skipped(3)  # the request of id 2 and both replies went by unseen
    log([line(5, Stream.S2C, reply(2)), line(6, Stream.S2C, reply(1))])
    log([LifecycleRecord(7, 0.07, Event.PROXY_STOPPED, {"code": 0})])
    text = b"".join(out).decode()
    assert "--log skipped 3 records" in text
    assert "pairing." not in text, text
