"""The real SDK clients under every built-in scenario: each injection is named in the report with a
reaction, and nothing an injection provoked is counted as the server's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcpspy.analysis.model import Severity
from mcpspy.capture.reader import read_capture
from mcpspy.inject.reactions import REACTIONS
from mcpspy.inject.scenarios import BUILT_IN
from mcpspy.replay_policy import replay_records
from tests.clients.test_real_clients import HERE, NODE_MODULES, PY_SERVER, need_node
from tests.conftest import MCPSPY

pytestmark = pytest.mark.clients

CLIENTS = {
    "py-sdk": [sys.executable, str(HERE / "py_fault_client.py")],
    "ts-sdk": ["node", str(HERE / "ts_fault_client.mjs")],
    "ts-sdk-v2": ["node", str(HERE / "ts_fault_client.mjs"), "--v2"],
}
NPM_PACKAGE = {"ts-sdk": "@modelcontextprotocol/sdk", "ts-sdk-v2": "@modelcontextprotocol/client"}


@pytest.mark.parametrize("scenario", list(BUILT_IN))
@pytest.mark.parametrize("client", list(CLIENTS))
def test_a_real_client_under_a_built_in_scenario(client: str, scenario: str, tmp_path: Path) -> None:
    if client in NPM_PACKAGE:
        need_node()
        link = HERE / "node_modules"
        if not link.exists():
            link.symlink_to(NODE_MODULES)
        if not (link / NPM_PACKAGE[client] / "package.json").exists():
            message = f"{NPM_PACKAGE[client]} is not installed: run bash .ci/clients/install.sh"
            if os.environ.get("CI"):
                pytest.fail(message)  # CI installs it from the lock file: its absence is a broken run
            pytest.skip(message)
    home = tmp_path / "sessions"
    home.mkdir(mode=0o700)
    calls = 3 * len(BUILT_IN[scenario].faults) + 6
    proxy = [*MCPSPY, "--home", str(home), "--scenario", scenario, "--", *PY_SERVER]
    done = subprocess.run(
        [*CLIENTS[client], str(calls), "add", json.dumps({"a": 2, "b": 3}), "--", *proxy],
        capture_output=True,
        timeout=900,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    captures = sorted(home.glob("*.jsonl"))
    assert captures
    struck = 0
    for path in captures:
        report = subprocess.run([*MCPSPY, "report", str(path), "--json"], capture_output=True, timeout=300)
        assert report.returncode in (0, 1), report.stderr
        data = json.loads(report.stdout)
        for injection in data["injected"]:
            assert injection["reaction"] in REACTIONS, injection
            assert injection["spec"] and injection["fault"]
        struck += len(data["injected"])
        specs = {i["spec"] for i in data["injected"]} | {u["spec"] for u in data["unmatched"]}
        assert specs == set(BUILT_IN[scenario].specs())  # every SPEC is named: struck, or said unmatched
        # The server (the SDK's own) is clean: nothing found on its side is an error; what the
        # injections provoked is flagged and kept apart.
        analyzer = replay_records(read_capture(path).records).analyzer
        server_errors = [
            f"{f.id}: {f.message}"
            for f in analyzer.findings
            if f.severity is Severity.ERROR and f.stream is not None and f.stream.value == "s2c"
        ]
        assert server_errors == []
        assert all(f.injected for f in analyzer.injected_findings)
        assert report.returncode == (1 if any(f.severity is Severity.ERROR for f in analyzer.findings) else 0)
    assert struck >= len(BUILT_IN[scenario].faults) // 2  # most faults struck before any ended the session
