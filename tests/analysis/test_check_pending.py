"""Slow requests are flagged the same whether check_pending looks at every call or skips what cannot be due."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mcpspy.analysis import analyzer as analyzer_module
from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis_data import result_schemas
from mcpspy.capture.records import LineRecord, Record, Stream
from tests.analysis.digest import FIXTURES, fixture_lines, noise

POOL = fixture_lines(FIXTURES)


def analysed(records: list[Record], slow_after: float) -> list[str]:
    """Every finding and exchange, in order, checking for slow requests before each record."""
    analyzer = Analyzer(slow_after, schemas=result_schemas())
    for record in records:
        analyzer.check_pending(record.t)
        analyzer.feed(record)
    analyzer.check_pending(records[-1].t + 3 * slow_after if records else 0.0)
    analyzer.finish()
    return [f"{f.id} {f.seq} {f.message}" for f in analyzer.findings] + [
        f"{e.request_seq} {e.state.value} {e.reply_seq}" for e in analyzer.exchanges
    ]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.005, 0.5, 5.0, 30.0]))
@example(113, 30.0)  # a gap makes a request unknown, a glued reply then lost (awaited again)
def test_the_shortcut_flags_what_looking_every_time_flags(seed: int, slow_after: float) -> None:
    records = noise(seed, POOL)
    shortcut = analysed(records, slow_after)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(analyzer_module, "CHECK_EVERY", 0)  # no shortcut: every call looks
        every_time = analysed(records, slow_after)
    assert shortcut == every_time


def test_the_noise_has_slow_requests_to_flag() -> None:
    """What the comparison above is worth: the noise has requests that wait, flagged as they go."""
    flagged = [
        line for seed in range(5) for line in analysed(noise(seed, POOL), 0.5) if "pairing.slow" in line
    ]
    assert len(flagged) >= 5


def test_a_request_sent_after_a_quiet_check_is_still_flagged() -> None:
    """The shortcut's bound moves with each request: one sent long after the last check is watched."""
    request = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'
    analyzer = Analyzer(1.0, schemas=result_schemas())
    analyzer.check_pending(0.0)  # nothing watched
    analyzer.feed(LineRecord(1, 100.0, Stream.C2S, request))
    assert not analyzer.check_pending(100.5)
    assert [type(e).__name__ for e in analyzer.check_pending(101.0)] == ["FindingRaised"]
    assert analyzer.findings[-1].id == "pairing.slow"
