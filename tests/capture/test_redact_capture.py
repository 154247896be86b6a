"""Redaction where it happens: the capture writer, and the real proxy forwarding the real bytes."""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpspy.capture.format import decode_record, encode_batch
from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import Header, LineBatch, LineRecord, Stream
from mcpspy.capture.redact import RedactionPolicy, Redactor
from mcpspy.capture.writer import CaptureWriter
from mcpspy.wire.splitter import LongLine
from tests.conftest import MCPSPY, replay

HEADER = Header("1.0", "s1", "2026-12-02T19:30:00.000Z", ("cat",), "cat", "/", "0.1.0", 42)

secrets = st.text(st.characters(codec="utf-8"), min_size=1, max_size=12).map(lambda s: "S3CR3T" + s)
keys = st.sampled_from(["authorization", "Authorization", "api_key", "apiKey", "token", "password", "Cookie"])
plain = st.text(max_size=10).filter(lambda s: "S3CR3T" not in s)


@st.composite
def lines(draw: st.DrawFn) -> tuple[bytes, list[str]]:
    """A line: a JSON message with credentials somewhere, or bytes that are not JSON at all."""
    kind = draw(st.sampled_from(["request", "result", "text", "binary", "nested-text"]))
    secret = draw(secrets)
    if kind == "request":
        message = {"jsonrpc": "2.0", "id": draw(st.integers(0, 99)), "method": "tools/call"}
        message["params"] = {
            "arguments": {draw(keys): secret, "q": draw(plain)},
            "_meta": {draw(keys): secret},
        }
    elif kind == "result":
        message = {"jsonrpc": "2.0", "id": 1, "result": {"structuredContent": {draw(keys): [secret, 1]}}}
    elif kind == "nested-text":
        message = {"result": {"content": [{"type": "text", "text": json.dumps({draw(keys): secret})}]}}
    elif kind == "text":
        return draw(plain).replace("\n", " ").encode(), []  # not JSON: stored as it is
    else:
        return draw(st.binary(max_size=30)).replace(b"\n", b""), []
    layout = draw(st.sampled_from([{}, {"separators": (",", ":")}, {"ensure_ascii": False}]))
    return json.dumps(message, **layout).encode(), [secret]


def assert_capture_is_valid_and_clean(path: Path, sent: list[tuple[bytes, list[str]]]) -> None:
    """Every capture line is a JSON object, the reader reads it back, and no secret is in it.

    Each secret starts with S3CR3T, so any spelling of it in a capture line
    holds those bytes (JSON escapes leave ASCII letters alone); records are
    checked decoded too, in case one was stored in base64.
    """
    raw = path.read_bytes()
    for line in raw.splitlines():
        assert isinstance(orjson.loads(line), dict)
    capture = read_capture(path)
    assert capture.problems == []
    if any(found for _, found in sent):
        assert b"S3CR3T" not in raw
        assert not any(b"S3CR3T" in r.data for r in capture.records if isinstance(r, LineRecord))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(lines(), min_size=1, max_size=6), st.integers(0, 3))
def test_the_writer_stores_no_credential_and_only_valid_records(
    tmp_path_factory: pytest.TempPathFactory, sent: list[tuple[bytes, list[str]]], long_at: int
) -> None:
    path = tmp_path_factory.mktemp("w") / "c.jsonl"
    writer = CaptureWriter(path, on_failure=print)
    writer.open(HEADER, private_dir=False)
    data = [line for line, _ in sent]
    writer.write_line(1, 0.1, Stream.C2S, data[0])
    rest = data[1:]
    if rest:  # the others as a batch, the first of them held in pieces as a long line would be
        first: bytes | LongLine = rest[0]
        if long_at:
            first = LongLine((rest[0][:long_at], rest[0][long_at:]))
        writer.write_recorded([LineBatch(2, 0.2, Stream.S2C, [first, *rest[1:]])])
    writer.close()
    assert_capture_is_valid_and_clean(path, sent)
    records = [r for r in read_capture(path).records if isinstance(r, LineRecord)]
    flags = [b'"redacted":true' in line for line in path.read_bytes().splitlines()[1:]]
    assert len(records) == len(data)
    for record, line, (_, found), flagged in zip(records, data, sent, flags, strict=True):
        assert flagged == bool(found) and (record.data == line) == (not found)


def test_a_long_line_cut_inside_a_key_is_still_redacted() -> None:
    line = b'{"params":{"Authorization":"Bearer xyz","pad":"' + b"a" * 100 + b'"}}'
    for cut in range(1, len(line)):
        pieces = LongLine((line[:cut], line[cut:]))
        out = b"".join(encode_batch(LineBatch(1, 0.0, Stream.C2S, [pieces]), Redactor()))
        assert b"xyz" not in out and decode_record(out.rstrip(b"\n")).seq == 1


def test_the_hash_key_is_written_nowhere(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    writer = CaptureWriter(path, on_failure=print)
    writer.open(HEADER, private_dir=False)
    writer.write_line(1, 0.0, Stream.C2S, b'{"token":"t"}')
    writer.close()
    key = writer._redactor._hash_key  # type: ignore[union-attr]
    raw = path.read_bytes()
    assert not any(form in raw for form in (key, key.hex().encode(), base64.b64encode(key)))
    header = orjson.loads(raw.splitlines()[0])
    assert header["redaction"] == RedactionPolicy().header() and b'"redacted":true' in raw


def run_cat(tmp_path: Path, stdin: bytes, *options: str) -> tuple[subprocess.CompletedProcess[bytes], Path]:
    capture = tmp_path / f"c{len(list(tmp_path.iterdir()))}.jsonl"
    proc = subprocess.run(
        [*MCPSPY, "--capture", str(capture), *options, "--", "cat"],
        input=stdin,
        capture_output=True,
        timeout=60,
    )
    return proc, capture


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(lines(), min_size=1, max_size=8))
def test_through_the_proxy_forwarded_bytes_are_untouched_and_the_capture_holds_no_secret(
    tmp_path: Path, sent: list[tuple[bytes, list[str]]]
) -> None:
    stdin = b"".join(line + b"\n" for line, _ in sent)
    proc, capture = run_cat(tmp_path, stdin)
    assert proc.returncode == 0 and proc.stdout == stdin  # every forwarded byte, unchanged
    assert_capture_is_valid_and_clean(capture, sent)
    assert len(replay(read_capture(capture), Stream.S2C)) > 0


def test_no_redact_keeps_credentials_and_says_so_in_the_header(tmp_path: Path) -> None:
    line = b'{"id":1,"method":"x","params":{"_meta":{"authorization":"Bearer S3CR3T"},"x_my_key":"k3y"}}\n'
    proc, capture = run_cat(tmp_path, line, "--no-redact")
    assert proc.stdout == line and b"S3CR3T" in capture.read_bytes()
    assert orjson.loads(capture.read_bytes().splitlines()[0])["redaction"] == {"enabled": False, "keys": []}
    proc, capture = run_cat(tmp_path, line, "--redact", "X-My-Key")
    raw = capture.read_bytes()
    assert proc.stdout == line and b"S3CR3T" not in raw and b"k3y" not in raw
    assert "X-My-Key" in orjson.loads(raw.splitlines()[0])["redaction"]["keys"]
