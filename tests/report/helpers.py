"""Small real captures for the report tests: a tiny server behind the real proxy."""

from __future__ import annotations

import subprocess
from pathlib import Path

import orjson

from tests.conftest import MCPSPY, python_server, run_proxy

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}

#: Answers every request except method "hang"; prints a banner on stdout first when told to.
SERVER = r"""
import json, sys
if "--banner" in sys.argv:
    print("server ready", flush=True)
for line in sys.stdin:
    msg = json.loads(line)
    print("got", msg.get("method"), file=sys.stderr, flush=True)
    if "id" in msg and msg.get("method") != "hang":
        result = {"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": []}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
        sys.stdout.flush()
"""


def request(id_: int, method: str) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": {"_meta": META}}) + b"\n"


def make_capture(tmp_path: Path, *, banner: bool, hang: bool = False, options: tuple[str, ...] = ()) -> Path:
    stdin = request(1, "tools/list") + request(2, "tools/list")
    if hang:
        stdin += request(3, "hang")
    args = [*python_server(SERVER), *(["--banner"] if banner else [])]
    run = run_proxy(tmp_path, args, stdin=stdin, options=options)
    assert run.returncode == 0, run.stderr
    return run.capture_path


def report(*args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    extra = ["--home", str(home)] if home is not None else []
    return subprocess.run([*MCPSPY, "report", *args, *extra], capture_output=True, text=True, timeout=60)
