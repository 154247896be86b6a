"""Follow-exchange gathers one exchange's messages from any of them, as the analysis linked them."""

from __future__ import annotations

import pytest

from mcpspy.replay_policy import open_capture
from mcpspy.tui.exchange_view import exchange_parts
from tests.conftest import FIXTURES


def roles(fixture: str, from_seq: int) -> list[tuple[str, int]]:
    analyzer = open_capture(FIXTURES / f"{fixture}.jsonl").analyzer
    messages = analyzer.messages
    start = next(m for m in messages if m.seq == from_seq)
    _, parts = exchange_parts(start, messages)
    return [(part.role, part.message.seq) for part in parts]


@pytest.mark.parametrize("start", [1, 2, 3, 4])
def test_progress_between_request_and_reply(start: int) -> None:
    expected = [("request", 1), ("progress", 2), ("progress", 3), ("reply", 4)]
    assert roles("clean-progress", start) == expected


@pytest.mark.parametrize("start", [1, 2, 3])
def test_a_reply_after_the_cancel_is_late(start: int) -> None:
    assert roles("lesson-cancelled", start) == [("request", 1), ("cancel", 2), ("late reply", 3)]


@pytest.mark.parametrize("start", [1, 3])
def test_a_second_reply_is_late(start: int) -> None:
    assert roles("pairing-duplicate-response", start) == [("request", 1), ("reply", 2), ("late reply", 3)]


def test_progress_after_the_reply_is_related() -> None:
    assert roles("progress-after-completion", 4) == [
        ("request", 1),
        ("progress", 2),
        ("reply", 3),
        ("progress", 4),
    ]


def test_out_of_order_exchanges_stay_apart() -> None:
    assert roles("lesson-out-of-order", 1) == [("request", 1), ("reply", 4)]
    assert roles("lesson-out-of-order", 3) == [("request", 2), ("reply", 3)]


def test_a_message_outside_any_exchange_stands_alone() -> None:
    analyzer = open_capture(FIXTURES / "lesson-ready-line.jsonl").analyzer
    loose = next(m for m in analyzer.messages if m.exchange is None)
    exchange, parts = exchange_parts(loose, analyzer.messages)
    assert exchange is None and [p.message for p in parts] == [loose]
