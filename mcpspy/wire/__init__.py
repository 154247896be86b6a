"""The wire layer: bytes in, lines out. Pure: no I/O, no clock."""

from mcpspy.wire.splitter import LineData, LineSplitter, LongLine, line_bytes

__all__ = ["LineData", "LineSplitter", "LongLine", "line_bytes"]
