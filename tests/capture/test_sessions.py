from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from mcpspy.capture.sessions import (
    default_sessions_dir,
    find_session,
    list_sessions,
    search_dirs,
    server_name,
)
from tests.conftest import MCPSPY


@pytest.mark.parametrize(
    ("command", "name"),
    [
        (["node", "build/index.js"], "index"),
        (["node", "/srv/helpdesk/index.js"], "helpdesk"),
        (["npx", "-y", "@modelcontextprotocol/server-everything"], "server-everything"),
        (["npx", "-y", "@modelcontextprotocol/server-everything@2025.9.12"], "server-everything"),
        (["uv", "run", "weather.py"], "weather"),
        (["python3", "-m", "mcpspy.demo.server"], "mcpspy.demo.server"),
        (["/usr/local/bin/my-server", "--port", "3"], "my-server"),
        (["cat"], "cat"),
        (["python3", "-c", "import sys; print(1)"], "python3-inline"),
        (["env", "VERSION=2", "python3", "s.py"], "s"),
        (["env", "-i", "A=b", "node", "main.js"], "main"),
        (["node", "/srv/helpdesk/dist/index.js"], "helpdesk"),
    ],
)
def test_server_name_names_the_server_not_its_launcher(command: list[str], name: str) -> None:
    assert server_name(command) == name


@pytest.mark.parametrize(
    ("command", "cwd", "name"),
    [
        (["node", "dist/index.js"], "/home/u/weather-server", "weather-server"),
        (["node", "index.js"], "/home/u/helpdesk", "helpdesk"),
        (["node", "../build/index.js"], "/home/u/helpdesk/test", "helpdesk"),
        (["node", "tools/index.js"], "/home/u/helpdesk", "tools"),
        (["node", "/abs/dist/index.js"], "/elsewhere", "abs"),
    ],
)
def test_a_generic_script_is_named_by_its_project(command: list[str], cwd: str, name: str) -> None:
    assert server_name(command, cwd) == name


def test_the_proxy_names_a_built_script_by_the_directory_it_runs_in(tmp_path: Path) -> None:
    project = tmp_path / "weather-server"
    (project / "dist").mkdir(parents=True)
    (project / "dist" / "index.py").write_text("")
    home = tmp_path / "home"
    subprocess.run(
        [*MCPSPY, "--home", str(home), "--", sys.executable, "dist/index.py"],
        cwd=project,
        check=True,
        timeout=60,
    )
    [capture] = home.glob("*.jsonl")
    assert "-weather-server-" in capture.name


def test_sessions_dir_from_environment() -> None:
    assert default_sessions_dir({"MCPSPY_HOME": "/x/s", "HOME": "/h"}) == Path("/x/s")
    assert default_sessions_dir({"XDG_STATE_HOME": "/st", "HOME": "/h"}) == Path("/st/mcpspy/sessions")
    assert default_sessions_dir({"HOME": "/h"}) == Path("/h/.local/state/mcpspy/sessions")
    # A filtered environment writes under HOME: the views look there too.
    assert search_dirs(env={"MCPSPY_HOME": "/x/s", "HOME": "/h"}) == [
        Path("/x/s"),
        Path("/h/.local/state/mcpspy/sessions"),
    ]


def test_each_process_is_a_session_found_by_id_name_or_path(tmp_path: Path) -> None:
    for command in (["cat"], ["sort"]):
        subprocess.run(
            [*MCPSPY, "--home", str(tmp_path), "--", *command],
            input=b"b\na\n",
            capture_output=True,
            check=True,
            timeout=30,
        )
    sessions = list_sessions([tmp_path])
    assert [s.header.name for s in sessions] == ["cat", "sort"]
    assert not any(s.live for s in sessions)
    first = sessions[0]
    assert find_session(first.session, [tmp_path]) == first
    assert find_session("sort", [tmp_path]) == sessions[1]
    assert find_session(str(first.path), [tmp_path]) == first
    assert find_session("nope", [tmp_path]) is None


def test_sessions_show_the_server_s_own_name_once_it_said_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    server = Path(__file__).parents[1] / "check" / "servers" / "faulty_server.py"
    hello = (
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        b'"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
    )
    for stdin in (hello, b""):  # one that said its name, one that never got to
        subprocess.run(
            [*MCPSPY, "--home", str(home), "--", sys.executable, str(server)],
            input=stdin,
            capture_output=True,
            check=True,
            timeout=60,
        )
    for _ in range(2):  # counted, then read back from the cache
        listed = subprocess.run(
            [*MCPSPY, "sessions", "--json", "--home", str(home)], capture_output=True, check=True, timeout=60
        )
        assert [(s["name"], s["server"]) for s in orjson.loads(listed.stdout)] == [
            ("faulty_server", "faulty"),
            ("faulty_server", None),
        ]
    text = subprocess.run(
        [*MCPSPY, "sessions", "--home", str(home)], capture_output=True, text=True, check=True, timeout=60
    ).stdout.splitlines()
    assert " faulty (faulty_server) " in text[0] and " faulty_server " in text[1]
