"""The wire layer: bytes in, lines out. Pure: no I/O, no clock."""

from mcpspy.wire.splitter import Line, LineSplitter

__all__ = ["Line", "LineSplitter"]
