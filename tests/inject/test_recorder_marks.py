"""The recorder ties each injection to the line records it wrote, however the bytes were chunked."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from mcpspy.capture.format import decode_record, encode_lifecycle
from mcpspy.capture.recorder import Recorder
from mcpspy.capture.records import Event, LifecycleRecord, Stream, as_records
from mcpspy.inject.record import injection_of

S2C, C2S = Stream.S2C, Stream.C2S


def recorded(recorder: Recorder) -> list:  # type: ignore[type-arg]
    recorder.finish(9.0)
    return as_records(recorder.take_due())


@given(st.lists(st.integers(1, 30), max_size=6), st.integers(0, 2), st.integers(1, 3))
def test_a_mark_names_the_first_line_it_wrote(cuts: list[int], before: int, lines: int) -> None:
    """``before`` untouched lines, then a mark over ``lines`` lines written in arbitrary chunks,
    with client lines between the chunks: ``altered`` is the seq of the first of them."""
    recorder = Recorder()
    ticket = 0
    for i in range(before):
        recorder.hand_in(ticket, S2C, 0.0, b"plain %d\n" % i)
        ticket += 1
    recorder.mark(ticket, 0.0, S2C, lines, {"fault": "f"})
    ticket += 1
    written = b"".join(b"injected %d\n" % i for i in range(lines)) + b"after\n"
    points = sorted({0, len(written), *(c % len(written) for c in cuts)})
    for a, b in itertools.pairwise(points):
        recorder.hand_in(ticket, S2C, 0.0, written[a:b])
        recorder.hand_in(ticket + 1, C2S, 0.0, b"client\n")
        ticket += 2
    records = recorded(recorder)
    (mark,) = [r for r in records if isinstance(r, LifecycleRecord)]
    by_seq = {r.seq: r for r in records}
    first = mark.details["altered"]
    assert isinstance(first, int) and mark.details["lines"] == lines
    s2c = [r for r in records if not isinstance(r, LifecycleRecord) and r.stream is S2C]
    ours = [r.data for r in s2c if r.seq >= first][:lines]
    assert ours == [b"injected %d" % i for i in range(lines)]
    assert by_seq[first].data == b"injected 0"  # type: ignore[union-attr]
    assert mark.seq < first


def test_a_mark_after_one_whose_lines_came_in_pieces_starts_after_them() -> None:
    recorder = Recorder()
    recorder.mark(0, 0.0, S2C, 3, {"fault": "a"})
    recorder.hand_in(1, S2C, 0.0, b"a1\n")  # one line of the three: two still owed
    recorder.hand_in(2, S2C, 0.0, b"a2\n")
    recorder.hand_in(3, S2C, 0.0, b"a3\nplain\n")
    recorder.mark(4, 0.0, S2C, 1, {"fault": "b"})
    recorder.hand_in(5, S2C, 0.0, b"b1\n")
    records = recorded(recorder)
    lines = {r.seq: r.data for r in records if not isinstance(r, LifecycleRecord)}
    marks = {r.details["fault"]: r.details["altered"] for r in records if isinstance(r, LifecycleRecord)}
    assert lines[marks["a"]] == b"a1"  # type: ignore[index]
    assert lines[marks["b"]] == b"b1"  # type: ignore[index]


def test_skip_leaves_the_original_and_names_the_copy() -> None:
    recorder = Recorder()
    recorder.mark(0, 0.0, S2C, 1, {"fault": "pairing.duplicate-response"}, skip=1)
    recorder.hand_in(1, S2C, 0.0, b"reply\n")
    recorder.hand_in(2, S2C, 0.0, b"rep")
    recorder.hand_in(3, S2C, 0.0, b"ly\nnext\n")
    records = recorded(recorder)
    (mark,) = [r for r in records if isinstance(r, LifecycleRecord)]
    lines = {r.seq: r.data for r in records if not isinstance(r, LifecycleRecord)}
    assert lines[mark.details["altered"]] == b"reply"  # type: ignore[index]
    assert mark.details["altered"] == 3  # the original is 1, the record 2


def test_a_mark_that_wrote_nothing_is_recorded_at_once_and_one_never_completed_at_the_end() -> None:
    recorder = Recorder()
    recorder.mark(0, 0.0, S2C, 0, {"fault": "pairing.unanswered"})
    recorder.mark(1, 0.0, S2C, 1, {"fault": "stdout.unterminated"})
    recorder.hand_in(2, S2C, 0.0, b"half a li")
    records = recorded(recorder)
    marks = [r for r in records if isinstance(r, LifecycleRecord)]
    assert [m.details.get("altered") for m in marks] == [None, 3]
    assert records[-1].data == b"half a li" and not records[-1].terminated  # type: ignore[union-attr]


def test_the_record_round_trips_through_the_capture_format() -> None:
    record = LifecycleRecord(
        4,
        0.5,
        Event.INJECTED,
        {
            "fault": "stdout.invalid-utf8",
            "spec": "stdout.invalid-utf8",
            "pipe": "s2c",
            "before": "{}\n",
            "after_b64": "/3t9Cg==",
            "altered": 5,
            "lines": 1,
            "id": "3",
        },
    )
    injection = injection_of(decode_record(encode_lifecycle(record)))
    assert injection is not None
    assert (injection.before, injection.after, injection.seqs) == (b"{}\n", b"\xff{}\n", range(5, 6))
