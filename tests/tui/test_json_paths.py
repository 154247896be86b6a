"""The JSON path of each pretty-JSON line (pure), and `l` / `L` / `c` in the detail pane."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from mcpspy.capture.format import encode_header, encode_line
from mcpspy.capture.records import Header, Stream
from mcpspy.jsonutil.paths import PathPattern
from mcpspy.tui.app import InspectorApp
from mcpspy.tui.json_paths import line_paths, path_text
from mcpspy.tui.panes.detail import DetailPane
from tests.conftest import FIXTURES
from tests.tui.hostile import CONTROLS
from tests.tui.test_navigation import wait_loaded

_STEP = re.compile(r'\.([A-Za-z_$][A-Za-z0-9_$-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=30,
)


def resolve(value: Any, path: str) -> Any:
    """The node ``path`` names in ``value`` (the test's own reading of the path syntax)."""
    assert path.startswith("$")
    rest, node = path[1:], value
    while rest:
        step = _STEP.match(rest)
        assert step is not None, rest
        name, index, quoted = step.groups()
        node = (
            node[int(index)] if index is not None else node[name if name is not None else json.loads(quoted)]
        )
        rest = rest[step.end() :]
    return node


@given(JSON)
def test_each_line_has_the_path_of_what_it_shows(value: Any) -> None:
    lines = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode().split("\n")
    paths = line_paths(value)
    assert len(paths) == len(lines)
    for line, path in zip(lines, paths, strict=True):
        node = resolve(value, path)
        PathPattern.parse(path)  # and `mcpspy replay --ignore` reads it
        shown = line.strip().rstrip(",")
        if shown in ("{", "}", "[", "]") or shown.endswith((": {", ": [")):
            assert isinstance(node, dict | list) and node
        else:
            assert shown.endswith(orjson.dumps(node).decode())


def test_keys_that_are_not_names_are_quoted_with_escapes() -> None:
    assert path_text(("result", "tools", 0, "name")) == "$.result.tools[0].name"
    assert path_text(("io.modelcontextprotocol/x", "a b", "\x1b[2J")) == (
        '$["io.modelcontextprotocol/x"]["a b"]["\\u001b[2J"]'
    )


async def test_l_walks_the_json_lines_and_c_copies_the_path() -> None:
    app = InspectorApp(FIXTURES / "lesson-out-of-order.jsonl", live=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("g", "c")
        assert app.clipboard == ""  # no cursor yet: nothing copied
        detail = app.query_one(DetailPane)
        payload = app.rows[0].payload
        lines = orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode().split("\n")
        await pilot.press("l", "l", "l")  # {, "jsonrpc", "id"
        assert detail.marked is not None and detail.text.split("\n")[detail.marked] == lines[2]
        await pilot.press("c")
        assert app.clipboard == "$.id"
        await pilot.press("L", "L", "L", "c")  # around the top to the closing brace
        assert app.clipboard == "$" and detail.text.split("\n")[detail.marked] == "}"
        name = next(i for i, line in enumerate(lines) if '"name": "get_ticket"' in line)
        for _ in range(name + 1):
            await pilot.press("l")
        await pilot.press("c")
        assert app.clipboard == "$.params.name"
        await pilot.press("j", "c")  # another message: the cursor is gone with the old one
        assert app.clipboard == "$.params.name" and detail.marked is None


async def test_c_copies_a_hostile_key_exactly_and_shows_it_made_visible(tmp_path: Path) -> None:
    """The clipboard gets the path as `--ignore` reads it; the notification shows no bidi or escape raw."""
    key = "a\u202eb\x1b]0;PWNED\x07"
    header = Header("1.0", "s", "2026-12-03T00:00:00.000Z", ("srv",), "srv", "/", "0.1.0", 1)
    line = orjson.dumps({"jsonrpc": "2.0", "method": "m", key: 1})
    capture = tmp_path / "c.jsonl"
    capture.write_bytes(encode_header(header) + encode_line(1, 0.001, Stream.S2C, line, True))
    app = InspectorApp(capture, live=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(app, pilot)
        await pilot.press("g", "l", "l", "l", "l", "c")  # {, "jsonrpc", "method", the key
        assert app.clipboard == path_text((key,)) and "\u202e" in app.clipboard
        shown = [n.message for n in app._notifications if n.message.startswith("JSON path ")]
        assert shown and not any(c in shown[-1] for c in CONTROLS), shown
