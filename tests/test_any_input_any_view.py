"""No view crashes on valid JSON of any depth, or on any bytes: every report format and the detail pane.

orjson reads JSON 1,024 levels deep but writes only 254: each view falls back
to the line as it travelled (mcpspy/json_text.py).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpspy.capture.format import encode_header, encode_record
from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import Header, LineRecord, Record, Stream
from mcpspy.model.summary import build_summary
from mcpspy.replay_policy import replay_records
from mcpspy.report.command import FORMATS
from mcpspy.tui.panes.detail import detail_lines
from tests.conftest import MCPSPY

HEADER = Header("1.0", "s-1", "2026-12-03T00:00:00.000Z", ("server",), "server", "/", "0.1.0", 1)
OFFLINE_FORMATS = [name for name in FORMATS if name != "otlp"] + ["otlp"]


def deep_request(depth: int) -> bytes:
    return (
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":' + b"[" * depth + b"]" * depth + b"}}"
    )


def deep_reply(depth: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":1,"result":' + b'{"a":' * depth + b"1" + b"}" * depth + b"}"


def write(path: Path, lines: list[tuple[Stream, bytes]]) -> Path:
    with path.open("wb") as f:
        f.write(encode_header(HEADER))
        for seq, (stream, data) in enumerate(lines, 1):
            f.write(encode_record(LineRecord(seq, seq * 0.01, stream, data)))
    return path


def render_all(records: list[Record], path: Path) -> None:
    replay = replay_records(records)
    summary = build_summary(read_capture(path), path, replay.analyzer)
    for name in OFFLINE_FORMATS:
        assert isinstance(FORMATS[name](summary), str), name
    for message in replay.analyzer.messages:
        assert detail_lines(message)


@pytest.mark.parametrize("depth", [253, 254, 255, 300, 1000, 1023])
def test_deep_json_is_shown_in_every_format(tmp_path: Path, depth: int) -> None:
    path = write(
        tmp_path / "deep.jsonl", [(Stream.C2S, deep_request(depth)), (Stream.S2C, deep_reply(depth))]
    )
    render_all(read_capture(path).records, path)
    for fmt in ("text", "markdown", "html"):
        done = subprocess.run(
            [*MCPSPY, "report", str(path), "--format", fmt, "--fail-on", "never"],
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]


@given(
    st.lists(
        st.tuples(st.sampled_from([Stream.C2S, Stream.S2C, Stream.ERR]), st.binary(max_size=300)), max_size=8
    )
)
def test_any_bytes_in_every_format(
    tmp_path_factory: pytest.TempPathFactory, lines: list[tuple[Stream, bytes]]
) -> None:
    clean = [(stream, data.replace(b"\n", b" ")) for stream, data in lines]
    path = write(tmp_path_factory.mktemp("any") / "any.jsonl", clean)
    render_all(read_capture(path).records, path)


@settings(max_examples=30)
@given(st.integers(min_value=0, max_value=1100), st.sampled_from([b"[", b'{"k":']))
def test_any_depth_in_every_format(
    tmp_path_factory: pytest.TempPathFactory, depth: int, opener: bytes
) -> None:
    closer = b"]" if opener == b"[" else b"}"
    inner = opener * depth + (b"1" if opener != b"[" else b"") + closer * depth
    line = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":' + inner + b"}}"
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        pass  # past 1,024 levels it is not JSON to orjson either: stray text, still shown
    path = write(tmp_path_factory.mktemp("depth") / "d.jsonl", [(Stream.S2C, line)])
    render_all(read_capture(path).records, path)
