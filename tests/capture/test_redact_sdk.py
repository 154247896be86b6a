"""A real MCP SDK client and server exchange credentials through the real proxy.

Both sides of mcpspy are teed: the client must receive exactly the bytes the
server wrote and the server exactly the bytes the client wrote, while no
credential lands anywhere under the sessions directory (unless --no-redact).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import Stream
from tests.conftest import replay

HERE = Path(__file__).resolve().parent / "sdk"
API_KEY, AUTHORIZATION, ISSUED = "S3CR3T-api-key-4f1c", "Bearer S3CR3T-auth-9a7e", "S3CR3T-token-22b0"


def talk(tmp_path: Path, *options: str) -> tuple[dict[str, object], Path]:
    """The SDK client calls `lookup` through `mcpspy OPTIONS -- server`, both pipes teed."""
    home = tmp_path / "sessions"
    files = {name: tmp_path / name for name in ("client.out", "server.in", "server.out", "client.in")}
    server = shlex.join([sys.executable, str(HERE / "secret_server.py")])
    inner = f"tee {files['server.in']} | {server} | tee {files['server.out']}"
    proxy = shlex.join(
        [sys.executable, "-m", "mcpspy", "--home", str(home), *options, "--", "sh", "-c", inner]
    )
    spied = f"tee {files['client.out']} | {proxy} | tee {files['client.in']}"
    env = {
        **os.environ,
        "EXPECT_API_KEY": API_KEY,
        "EXPECT_AUTHORIZATION": AUTHORIZATION,
        "ISSUED_TOKEN": ISSUED,
    }
    done = subprocess.run(
        [sys.executable, str(HERE / "secret_client.py"), API_KEY, AUTHORIZATION, "--", "sh", "-c", spied],
        capture_output=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    sent, received = files["client.out"].read_bytes(), files["client.in"].read_bytes()
    assert files["server.in"].read_bytes() == sent  # c2s: every byte as the client wrote it
    assert files["server.out"].read_bytes() == received  # s2c: every byte as the server wrote it
    assert API_KEY.encode() in sent and AUTHORIZATION.encode() in sent and ISSUED.encode() in received
    result: dict[str, object] = json.loads(done.stdout)
    return result, home


def everything_under(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file())


def test_credentials_reach_the_peer_intact_and_never_the_disk(tmp_path: Path) -> None:
    result, home = talk(tmp_path)
    assert result == {"access_token": ISSUED, "answer": "weather: ok", "authorized": True, "key_ok": True}
    stored = everything_under(home)
    assert b"S3CR3T" not in stored
    (capture_path,) = home.glob("*.jsonl")
    capture = read_capture(capture_path)
    assert capture.problems == []
    c2s, s2c = replay(capture, Stream.C2S), replay(capture, Stream.S2C)
    assert b'"authorization":"<redacted:string:23:' in c2s and b'"api_key":"<redacted:string:19:' in c2s
    assert b'"access_token":"<redacted:string:17:' in s2c
    assert b'\\"access_token\\": \\"<redacted:string:17:' in s2c  # the text content's copy too
    assert b'"api_key":{' in s2c  # tools/list keeps the argument's schema


def test_no_redact_stores_them(tmp_path: Path) -> None:
    _, home = talk(tmp_path, "--no-redact")
    stored = everything_under(home)
    for secret in (API_KEY, AUTHORIZATION, ISSUED):
        assert secret.encode() in stored
