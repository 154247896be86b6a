"""The capture's bounded buffer: written parts make room as they are written (``Admission.written``)."""

from __future__ import annotations

from mcpspy.capture.admission import RECORD_COST, Admission
from mcpspy.capture.records import LineBatch, LinePart, Stream
from mcpspy.wire.splitter import LongLine

MIB = 1 << 20


def part(index: int) -> LinePart:
    return LinePart(Stream.S2C, 0.5, index, b"x" * MIB)


def test_parts_written_make_room_before_the_writer_has_written_all_it_took() -> None:
    buffer = Admission(limit=4 * (MIB + RECORD_COST), parts_extra=0)
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


def test_parts_of_a_streamed_line_and_its_end_may_use_room_that_short_lines_may_not() -> None:
    """Short lines keep ``limit``; a streamed line's parts and end may go ``parts_extra`` past it."""
    cost = MIB + RECORD_COST
    buffer = Admission(limit=2 * cost, parts_extra=2 * cost)
    buffer.admit([part(1), part(2)], 2 * cost)
    assert not buffer.gap
    buffer.admit([LineBatch(1, 0.5, Stream.C2S, [b"y" * 100])], 100 + RECORD_COST)
    assert buffer.gap.lines == 1  # a short line: past the limit, dropped (and counted)
    buffer.take_gap()
    buffer.admit([part(3)], cost)
    end = LineBatch(2, 0.5, Stream.S2C, [LongLine((b"z" * 100,), parts=3)])
    buffer.admit([end], 100 + RECORD_COST)
    assert [type(item) for item in buffer.queue] == [LinePart, LinePart, LinePart, LineBatch]
    assert not buffer.gap  # the line is whole in the buffer, 3 MiB where short lines have 2
    buffer.admit([part(1)], cost)  # the next line's first part: past limit and extra
    assert buffer.gap.parts == 1
