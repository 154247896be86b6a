"""What wrap writes must start from a client whose PATH does not hold mcpspy (a GUI client's PATH)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from mcpspy.capture.reader import read_capture
from mcpspy.capture.records import LineRecord, Stream
from mcpspy.config.self_path import running_mcpspy
from tests.config.test_wrap import environment, mcpspy

GUI_PATH = "/usr/bin:/bin"  # what a client started from a desktop session may have
SERVER = """import sys
for line in sys.stdin:
    request = __import__("json").loads(line)
    print(__import__("json").dumps({"jsonrpc": "2.0", "id": request["id"], "result": {"tools": []}}), flush=True)
"""


def test_the_wrapped_entry_starts_with_a_path_that_lacks_mcpspy(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    (project / "server.py").write_text(SERVER)
    config = project / ".mcp.json"
    config.write_text(
        json.dumps({"mcpServers": {"tiny": {"command": sys.executable, "args": ["server.py"]}}})
    )
    done = mcpspy(project, home, "wrap", "tiny")
    assert done.returncode == 0, done.stderr
    entry = json.loads(config.read_text())["mcpServers"]["tiny"]
    assert os.path.isabs(entry["command"]) and os.path.basename(entry["command"]) == "mcpspy"
    assert shutil.which("mcpspy", path=GUI_PATH) is None  # else this test proves nothing

    env = {**environment(home), "PATH": GUI_PATH}
    client = subprocess.run(
        [entry["command"], *entry["args"]],
        input=b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}\n',
        cwd=project,
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert client.returncode == 0, client.stderr
    assert json.loads(client.stdout) == {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}
    captures = list((home / ".local" / "state" / "mcpspy" / "sessions").glob("*.jsonl"))
    assert len(captures) == 1
    lines = [r for r in read_capture(captures[0]).records if isinstance(r, LineRecord)]
    assert [r.stream for r in lines] == [Stream.C2S, Stream.S2C]


def test_the_running_mcpspy_is_found_whichever_way_it_was_started(tmp_path: Path) -> None:
    bindir = tmp_path / "venv" / "bin"
    bindir.mkdir(parents=True)
    script = bindir / "mcpspy"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    link = tmp_path / "local-bin" / "mcpspy"  # pipx / uv tool: a symlink in ~/.local/bin
    link.parent.mkdir()
    link.symlink_to(script)
    python = str(bindir / "python")
    assert running_mcpspy(str(link), "/usr/bin/python3") == str(link)  # kept: it survives upgrades
    assert running_mcpspy("/somewhere/mcpspy/__main__.py", python) == str(script)  # python -m mcpspy
    assert running_mcpspy("/somewhere/mcpspy/__main__.py", "/nonexistent/python") is None
    os.chdir(tmp_path)
    assert running_mcpspy("local-bin/mcpspy", "") == str(link)


def test_no_executable_to_write_asks_for_command(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    config = project / ".mcp.json"
    config.write_text(text := '{"mcpServers": {"s": {"command": "node"}}}')
    bare = tmp_path / "bare-python"
    bare.mkdir()
    (bare / "python").symlink_to(sys.executable)  # an interpreter with no mcpspy script beside it
    env = {**environment(home), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run(
        [str(bare / "python"), "-m", "mcpspy", "wrap", "s"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "--command" in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert config.read_text() == text
