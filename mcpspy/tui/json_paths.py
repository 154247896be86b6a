"""The JSON path of each line of a message's pretty JSON, for `c` in the detail pane. Pure.

The lines are orjson's ``OPT_INDENT_2`` output (``json_text.pretty_json``),
one line per scalar, per empty container, per opening and per closing
bracket: walking the value in the same order gives each line its path. A
member or element line has the path of its value; a bracket line, of the
container it opens or closes. Paths are JSONPath as ``mcpspy replay
--ignore`` takes them: ``$.result.tools[0].name``, with ``["..."]`` (JSON
escapes, so no control character) for a key that is not a plain name.
"""

from __future__ import annotations

from typing import Any

from mcpspy.jsonutil.paths import render_path

Part = str | int
path_text = render_path  # the one spelling of a JSON path, the one `mcpspy replay --ignore` reads


def line_paths(value: Any) -> list[str]:
    """The path of each line of ``value`` pretty-printed with two-space indents, in order."""
    lines: list[str] = []
    # What is left to print, innermost last; the containers opened, with the stack depth below them.
    stack: list[tuple[tuple[Part, ...], Any]] = [((), value)]
    closing: list[tuple[tuple[Part, ...], int]] = []  # (parts, stack depth at which the container closes)
    while stack:
        parts, node = stack.pop()
        while closing and closing[-1][1] > len(stack):
            lines.append(path_text(closing.pop()[0]))
        if isinstance(node, dict | list) and node:
            lines.append(path_text(parts))
            closing.append((parts, len(stack)))
            children = node.items() if isinstance(node, dict) else enumerate(node)
            stack.extend(reversed([((*parts, key), child) for key, child in children]))
        else:
            lines.append(path_text(parts))
    while closing:
        lines.append(path_text(closing.pop()[0]))
    return lines
