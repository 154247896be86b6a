"""Every `mcpspy ...` line of the README's and docs/'s shell examples runs, so none goes stale.

Each line of a ```sh block that starts with ``mcpspy`` is run as written, in a sandbox that holds
what the examples name: a server at ``build/index.js`` (node, in front of the test suite's
conforming server), a `.mcp.json` with a ``helpdesk`` entry, the demo's ``helpdesk`` session,
sessions named ``yesterday`` and ``today``, a capture ``s.jsonl``, and an OTLP collector on
``localhost:4318`` when a line sends there. A line passes when mcpspy ran it: exit 0 or 1 (1 is
"findings" or "drift"), never 2 (a stale option, a missing file) or 70 (a crash). The TUI's
commands (`watch`, `view`, `demo` without `--no-tui`) need a terminal and are left to tests/tui.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MCPSPY, REPO, mcpspy_on_path
from tests.export.collector import running_collector

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
NEEDS_A_TERMINAL = re.compile(r"^mcpspy (watch|view)\b|^mcpspy demo(?!.*--no-tui)")
SERVER = REPO / "tests" / "check" / "servers" / "faulty_server.py"


def shell_blocks() -> list[tuple[str, list[str]]]:
    """(page:line, its `mcpspy` commands in order) for each sh block, comments cut off."""
    found = []
    for page in PAGES:
        block: list[str] | None = None
        for number, line in enumerate(page.read_text().splitlines(), 1):
            if line.startswith("```"):
                if block is None and line[3:].split()[:1] == ["sh"]:
                    block, where = [], f"{page.relative_to(REPO)}:{number}"
                elif block is not None:
                    if block:
                        found.append((where, block))
                    block = None
                continue
            if block is None:
                continue
            for command in re.split(r"\s+&&\s+", line.split("  #")[0].strip()):
                if command.startswith("mcpspy ") and not NEEDS_A_TERMINAL.match(command):
                    block.append(command)
    return found


EXAMPLES = shell_blocks()


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("docs")
    project = root / "project"
    (project / "build").mkdir(parents=True)
    shutil.copy(SERVER, project / "server.py")
    (project / "build" / "index.js").write_text(
        "const { spawnSync } = require('child_process');\n"
        f"const done = spawnSync({sys.executable!r}, [__dirname + '/../server.py'], {{ stdio: 'inherit' }});\n"
        "process.exit(done.status ?? 1);\n"
    )
    (project / ".mcp.json").write_text(
        '{"mcpServers": {"helpdesk": {"command": "node", "args": ["build/index.js"]}}}\n'
    )
    env = {
        **mcpspy_on_path(root / "bin"),
        "HOME": str(root / "home"),
        "XDG_STATE_HOME": str(root / "state"),
        "XDG_CONFIG_HOME": str(root / "home" / ".config"),
        "MCPSPY_HOME": str(root / "sessions"),
    }
    for where in ("home/.zfunc", "home/.config/fish/completions"):
        (root / where).mkdir(parents=True)
    subprocess.run([*MCPSPY, "demo", "--no-tui"], env=env, cwd=project, capture_output=True, timeout=120)
    for name in ("yesterday", "today"):
        session = subprocess.run(
            [*MCPSPY, "--name", name, "--", sys.executable, str(SERVER)],
            input=b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
            b'"capabilities":{},"clientInfo":{"name":"docs","version":"1"}}}\n'
            b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
            b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n',
            env=env,
            cwd=project,
            capture_output=True,
            timeout=60,
        )
        assert session.returncode == 0, session.stderr
    newest = max((root / "sessions").glob("*.jsonl"), key=lambda p: p.stat().st_mtime)
    shutil.copy(newest, project / "s.jsonl")
    return project, env


@pytest.mark.parametrize(("where", "commands"), EXAMPLES, ids=[where for where, _ in EXAMPLES])
def test_the_example_runs(
    where: str, commands: list[str], sandbox: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """A block's commands in order, in a fresh copy of the project (wrap, then unwrap, say)."""
    original, env = sandbox
    project = tmp_path / "project"
    shutil.copytree(original, project)
    with running_collector() as collector:
        for command in commands:
            line = re.sub(r"\bNEW\b", "today", command).replace("http://localhost:4318", collector.url)
            if line.startswith("mcpspy -- "):  # a server: its stdin stays open while it starts, as a
                line = f"sleep 3 | {line}"  # client's does (at once EOF, a slow start meets the exit grace)
            done = subprocess.run(
                ["bash", "-c", line],
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
                stdin=subprocess.DEVNULL,
            )
            assert done.returncode in (0, 1), f"{where}: {command}\n{done.stderr[-2000:]}"
            assert "Traceback" not in done.stderr, done.stderr


def test_the_docs_have_examples_to_run() -> None:
    assert sum(len(commands) for _, commands in EXAMPLES) >= 15, (
        EXAMPLES
    )  # the parser found the blocks (a fence change would hide them)
