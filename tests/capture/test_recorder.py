"""The recorder: hand-ins in any order come out numbered in ticket order."""

from __future__ import annotations

import itertools
import random

from hypothesis import given
from hypothesis import strategies as st

from mcpspy.capture.recorder import Recorder
from mcpspy.capture.records import Event, LifecycleRecord, LineRecord, Record, Stream, as_records


def lines(records: list[Record]) -> list[tuple[int, Stream, bytes, bool]]:
    return [(r.seq, r.stream, r.data, r.terminated) for r in records if isinstance(r, LineRecord)]


def test_a_request_read_first_keeps_the_lower_seq_if_handed_in_last() -> None:
    recorder = Recorder()
    request, reply = 0, 1
    recorder.hand_in(reply, Stream.S2C, 0.2, b'{"id":1,"result":{}}\n')
    assert recorder.due_count == 0 and recorder.take_due() == []  # held: ticket 0 is still out
    recorder.hand_in(request, Stream.C2S, 0.1, b'{"id":1,"method":"x"}\n')
    assert recorder.due_count == 2
    records = as_records(recorder.take_due())
    assert [(r.seq, r.stream, r.t) for r in records if isinstance(r, LineRecord)] == [
        (1, Stream.C2S, 0.1),
        (2, Stream.S2C, 0.2),
    ]
    assert recorder.take_due() == []


def test_lines_are_joined_across_chunks_per_stream_and_end_of_stream_gives_the_tail() -> None:
    recorder = Recorder()
    for ticket, (stream, data) in enumerate(
        [(Stream.S2C, b"rea"), (Stream.ERR, b"log\n"), (Stream.S2C, b"dy\n{"), (Stream.S2C, b"")]
    ):
        recorder.hand_in(ticket, stream, 0.0, data)
    assert lines(as_records(recorder.take_due())) == [
        (1, Stream.ERR, b"log", True),
        (2, Stream.S2C, b"ready", True),
        (3, Stream.S2C, b"{", False),
    ]


def test_a_lifecycle_event_is_numbered_where_its_ticket_was_taken() -> None:
    recorder = Recorder()
    recorder.hand_in(2, Stream.S2C, 0.3, b"after\n")
    recorder.event(1, 0.2, Event.STDIN_CLOSED)
    recorder.hand_in(0, Stream.C2S, 0.1, b"before\n")
    records = as_records(recorder.take_due())
    assert [r.seq for r in records] == [1, 2, 3]
    assert isinstance(records[1], LifecycleRecord) and records[1].event is Event.STDIN_CLOSED
    assert [r.data for r in records if isinstance(r, LineRecord)] == [b"before", b"after"]


def test_finish_releases_what_a_missing_ticket_held_and_every_partial_line() -> None:
    recorder = Recorder()
    recorder.hand_in(1, Stream.S2C, 0.2, b"held\npartial")  # ticket 0 never comes in
    recorder.hand_in(2, Stream.C2S, 0.3, b"half")
    assert recorder.take_due() == []
    recorder.finish(0.5)
    records = as_records(recorder.take_due())
    assert lines(records) == [
        (1, Stream.S2C, b"held", True),
        (2, Stream.C2S, b"half", False),  # the tails: c2s, s2c, err
        (3, Stream.S2C, b"partial", False),
    ]
    assert [r.t for r in records] == [0.2, 0.5, 0.5]  # a tail given up at the end takes the end's time


chunks = st.lists(st.tuples(st.sampled_from(list(Stream)), st.binary(max_size=20)), max_size=30)


@given(chunks, st.randoms(use_true_random=False))
def test_any_hand_in_order_gives_the_ticket_order(
    handed: list[tuple[Stream, bytes]], rnd: random.Random
) -> None:
    """Handing in shuffled changes nothing: the same records, by ticket, as handing in in order."""
    in_order, shuffled = Recorder(), Recorder()
    for ticket, (stream, data) in enumerate(handed):
        in_order.hand_in(ticket, stream, float(ticket), data)
    order = list(enumerate(handed))
    rnd.shuffle(order)
    taken = []
    for ticket, (stream, data) in order:
        shuffled.hand_in(ticket, stream, float(ticket), data)
        taken.append(shuffled.take_due())
    in_order.finish(99.0)
    shuffled.finish(99.0)
    taken.append(shuffled.take_due())
    assert as_records(list(itertools.chain(*taken))) == as_records(in_order.take_due())
