"""The capture's bounded buffer: written parts make room as they are written (``Admission.written``)."""

from __future__ import annotations

from mcpspy.capture.admission import RECORD_COST, Admission
from mcpspy.capture.records import LinePart, Stream

MIB = 1 << 20


def part(index: int) -> LinePart:
    return LinePart(Stream.S2C, 0.5, index, b"x" * MIB)


def test_parts_written_make_room_before_the_writer_has_written_all_it_took() -> None:
    buffer = Admission(limit=4 * (MIB + RECORD_COST))
    buffer.admit([part(1), part(2), part(3), part(4)], 4 * (MIB + RECORD_COST))
    taken = buffer.take()
    assert len(taken) == 4 and buffer.queue == []
    buffer.written(2 * (MIB + RECORD_COST))  # the writer wrote two of the four
    buffer.admit([part(5), part(6)], 2 * (MIB + RECORD_COST))
    assert [p.index for p in buffer.queue] == [5, 6] and not buffer.gap  # room made: nothing dropped
    buffer.admit([part(7)], MIB + RECORD_COST)
    assert buffer.queue[-1].index == 6 and buffer.gap.parts == 1  # the bound still holds
    buffer.written()
    assert buffer.in_write == 0
