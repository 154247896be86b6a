"""Real MCP clients talk to real servers through mcpspy, and see what they would see without it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mcpspy.analysis.analyzer import Analyzer
from mcpspy.analysis.model import Severity
from mcpspy.analysis.rule_ids import RuleId
from mcpspy.analysis_data import result_schemas
from mcpspy.capture.reader import Capture, read_capture
from mcpspy.capture.records import LineRecord, Stream
from mcpspy.clients.profiles import profiles
from tests.conftest import REPO, replay

# The silent killers of an exchange (issue 17), and the warnings added since: none may fire on clean
# traffic, at any severity (errors are checked for all rules).
NEW_RULES = {
    RuleId.PAIRING_SERVER_REQUEST_UNANSWERED,
    RuleId.LIFECYCLE_FAILED_TO_CONNECT,
    RuleId.REQUEST_NO_PROGRESS_TOKEN,
    RuleId.REQUEST_SENT_AS_NOTIFICATION,
    RuleId.VERSION_REJECTED_NOT_RETRIED,
    RuleId.PING_NON_EMPTY_RESULT,
    RuleId.PROGRESS_CLIENT_SENT,
    RuleId.META_KEY_FORMAT,
}

pytestmark = pytest.mark.clients

HERE = Path(__file__).resolve().parent
NODE_MODULES = REPO / ".ci" / "clients" / "node_modules"
BIN = NODE_MODULES / ".bin"
PY_SERVER = [sys.executable, str(HERE / "servers" / "py_server.py")]
EVERYTHING = [str(BIN / "mcp-server-everything")]


def need_node() -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    if not BIN.is_dir():
        message = "the npm clients are not installed: run bash .ci/clients/install.sh (Node.js 20 or newer)"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI installs them: their absence there is a broken run, not a skip
        pytest.skip(message)


def sessions(home: Path) -> list[Capture]:
    """Every capture under a --home directory, oldest first."""
    return [read_capture(p) for p in sorted(home.rglob("*.jsonl"), key=lambda p: p.stat().st_mtime)]


def methods(capture: Capture) -> list[str]:
    """The request/notification methods the client sent, in order."""
    found = []
    for r in capture.records:
        if isinstance(r, LineRecord) and r.stream is Stream.C2S:
            found.append(json.loads(r.data).get("method", "<response>"))
    return found


def tools_listed(home: Path) -> bool:
    """Whether some session under home has answered tools/list (the files may still be growing)."""
    for capture in sessions(home):
        for r in capture.records:
            if isinstance(r, LineRecord) and r.stream is Stream.S2C and b'"tools"' in r.data:
                return True
    return False


def assert_clean(capture: Capture, client: str) -> None:
    """The capture parsed, every s2c line is one whole JSON message (nothing of mcpspy's own),
    and the analysis raises no error on this clean traffic: no false alarms, neither by the rules'
    own severities nor judged by the profile of the client that just used the server (issue 27)."""
    assert capture.problems == []
    for line in replay(capture, Stream.S2C).splitlines():
        json.loads(line)
    judged = Analyzer(schemas=result_schemas(), clients=(profiles()[client].rules(),))
    for analyzer in (Analyzer(schemas=result_schemas()), judged):
        for record in capture.records:
            analyzer.feed(record)
        analyzer.finish()
        errors = [f"{f.id}: {f.message}" for f in analyzer.findings if f.severity is Severity.ERROR]
        assert errors == []
        assert [f"{f.id}: {f.message}" for f in analyzer.findings if f.id in NEW_RULES] == []


def mcpspy_wrapper(tmp_path: Path) -> Path:
    """A `mcpspy` on PATH that runs this checkout's proxy, as a client config would name it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "mcpspy"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m mcpspy "$@"\n')
    wrapper.chmod(0o755)
    return bin_dir


def client_run(command: list[str], env: dict[str, str] | None = None, timeout: float = 60) -> list[object]:
    proc = subprocess.run(command, capture_output=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return [json.loads(line) for line in proc.stdout.splitlines()]


SERVERS = {"py-server": PY_SERVER, "everything": EVERYTHING}
PY_CLIENT = [sys.executable, str(HERE / "py_client.py")]
TS_CLIENT = ["node", str(HERE / "ts_client.mjs")]
CASES = {
    "py-client-py-server": (PY_CLIENT, PY_SERVER, "add", {"a": 2, "b": 3}),
    "py-client-everything": (PY_CLIENT, EVERYTHING, "echo", {"message": "hi"}),
    "ts-client-py-server": (TS_CLIENT, PY_SERVER, "add", {"a": 2, "b": 3}),
    "ts-client-everything": (TS_CLIENT, EVERYTHING, "echo", {"message": "hi"}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_sdk_client_through_mcpspy(case: str, tmp_path: Path) -> None:
    client, server, tool, arguments = CASES[case]
    if "node" in client or server is EVERYTHING:
        need_node()
    if client is TS_CLIENT:
        link = HERE / "node_modules"
        if not link.exists():
            link.symlink_to(NODE_MODULES)
    args = [json.dumps(arguments)]
    direct = client_run([*client, tool, *args, "--", *server])
    capture_file = tmp_path / "c.jsonl"
    proxied = client_run(
        [
            *client,
            tool,
            *args,
            "--",
            sys.executable,
            "-m",
            "mcpspy",
            "--capture",
            str(capture_file),
            "--",
            *server,
        ]
    )
    assert proxied == direct
    assert tool in direct[0]  # type: ignore[operator]
    capture = read_capture(capture_file)
    assert_clean(capture, "typescript-sdk" if client is TS_CLIENT else "python-sdk")
    sent = methods(capture)
    assert sent[0] == "initialize"
    assert "tools/list" in sent and "tools/call" in sent
    assert f'"{tool}"'.encode() in replay(capture, Stream.C2S)


def cli(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run a client's own CLI (`claude mcp add`, `codex mcp add`, ...); it must succeed."""
    done = subprocess.run(
        command, capture_output=True, env=env, timeout=60, stdin=subprocess.DEVNULL, text=True
    )
    assert done.returncode == 0, done.stderr
    return done


def client_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    path = f"{mcpspy_wrapper(tmp_path)}:{BIN}:{Path(sys.executable).parent}:{os.environ['PATH']}"
    return {"HOME": str(home), "PATH": path, "CI": "true", "TERM": "dumb"}


@pytest.mark.parametrize("server_name", ["py-server", "everything"])
def test_claude_code_mcp_list_connects(server_name: str, tmp_path: Path) -> None:
    """py-server answers server/discover (2026-07-28); everything rejects it and Claude falls back to initialize."""
    need_node()
    env = client_env(tmp_path)
    spy_home = tmp_path / "spy"
    cli(
        [
            "claude",
            "mcp",
            "add",
            "spied",
            "--",
            "mcpspy",
            "--home",
            str(spy_home),
            "--",
            *SERVERS[server_name],
        ],
        env,
    )
    listed = cli(["claude", "mcp", "list"], env)
    line = next(x for x in listed.stdout.splitlines() if x.startswith("spied"))
    assert "Connected" in line, listed.stdout
    captures = sessions(spy_home)
    assert captures, "no capture written"
    for capture in captures:
        assert_clean(capture, "claude-code")
    # Claude Code 2.1.332 speaks the 2026-07-28 protocol: server/discover instead of initialize.
    assert any(
        methods(c)[0] in ("initialize", "server/discover") and "tools/list" in methods(c) for c in captures
    )


def codex_env(tmp_path: Path) -> dict[str, str]:
    env = client_env(tmp_path)
    env["CODEX_HOME"] = str(tmp_path / "codex")
    Path(env["CODEX_HOME"]).mkdir()
    return env


def codex_exec_until(
    env: dict[str, str], cwd: Path, done: Callable[[], bool], timeout: float = 30, attempts: int = 3
) -> None:
    """codex exec starts its MCP servers, lists their tools, then reaches for the network: stop it when
    ``done`` (or at the timeout).

    With no network, codex exits as soon as its model request fails, and that races its MCP servers'
    start-up: on a loaded machine it can exit before it has listed the tools (seen once in CI). Such
    an early exit is codex's ordering, not the proxy's doing: codex is run again, up to ``attempts``.
    """
    deadline = time.monotonic() + timeout
    for _ in range(attempts):
        codex = subprocess.Popen(
            ["codex", "exec", "--skip-git-repo-check", "say hi"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        try:
            while time.monotonic() < deadline and codex.poll() is None and not done():
                time.sleep(0.2)
        finally:
            os.killpg(codex.pid, signal.SIGTERM)
            codex.wait(timeout=10)
        if done() or time.monotonic() >= deadline:
            return


def test_codex_exec_lists_tools_through_mcpspy(tmp_path: Path) -> None:
    need_node()
    env = codex_env(tmp_path)
    spy_home = tmp_path / "spy"
    cli(["codex", "mcp", "add", "spied", "--", "mcpspy", "--home", str(spy_home), "--", *PY_SERVER], env)
    codex_exec_until(env, tmp_path, lambda: tools_listed(spy_home))
    captures = sessions(spy_home)
    assert captures, "codex never started the server through mcpspy"
    for capture in captures:
        assert_clean(capture, "codex")
    assert any({"initialize", "tools/list"} <= set(methods(c)) for c in captures)


def test_stdout_is_exactly_the_servers_bytes(tmp_path: Path) -> None:
    """Tee both sides of mcpspy: what the client read equals what the server wrote, and the capture."""
    server_out, client_in, capture_file = (
        tmp_path / "server.out",
        tmp_path / "client.in",
        tmp_path / "c.jsonl",
    )
    server = " ".join(PY_SERVER)
    spied = (
        f"{sys.executable} -m mcpspy --capture {capture_file} -- sh -c '{server} | tee {server_out}'"
        f" | tee {client_in}"
    )
    result = client_run([*PY_CLIENT, "add", '{"a": 2, "b": 3}', "--", "sh", "-c", spied])
    assert result[1] == [{"type": "text", "text": "5", "annotations": None, "meta": None}] or "5" in str(
        result[1]
    )
    wrote = server_out.read_bytes()
    assert b'"tools"' in wrote
    assert client_in.read_bytes() == wrote
    assert replay(read_capture(capture_file), Stream.S2C) == wrote
