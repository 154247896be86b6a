"""wrap/unwrap on sample configs of each client, through the real `mcpspy` command."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from mcpspy.config.backups import backup_path

#: What wrap writes when run as `python -m mcpspy`: the console script beside the interpreter.
PROXY = os.path.join(os.path.dirname(sys.executable), "mcpspy")

PROJECT_MCP = """{
    "mcpServers": {
        "helpdesk": {
            "command": "node",
            "args": [
                "server.js",
                "--port"
            ],
            "env": {"TOKEN": "x"},
            "cwd": "/srv"
        },
        "bare": {"command":"python3"},
        "web": {"type": "http", "url": "https://example.invalid/mcp"}
    },
    "other": [1, 2, {"a": "b"}]
}
"""

CLAUDE_USER = (
    '{"numStartups": 3, "projects": {"/elsewhere": {"mcpServers": {}}},\n'
    ' "mcpServers": {"helpdesk": {"type": "stdio", "command": "uvx", "args": ["helpdesk-mcp"], '
    '"env": {}}, "notes": {"command": "notes"}}}\n'
)

DESKTOP = '{\n  "mcpServers": {\n    "helpdesk": {\n      "command": "npx",\n      "args": ["-y", "h"]\n    }\n  }\n}'

VSCODE = """{
\t"servers": {
\t\t"helpdesk": {
\t\t\t"type": "stdio",
\t\t\t"command": "python",
\t\t\t"args": []
\t\t}
\t},
\t"inputs": []
}
"""

CODEX = (
    '[mcp_servers.helpdesk]\ncommand = "node"\nargs = ["server.js"]\n\n[mcp_servers.helpdesk.env]\nK = "v"\n'
)


def environment(home: Path) -> dict[str, str]:
    """HOME and the XDG dirs under ``home``: configs, backups and sessions all stay in the test's dir."""
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    env["XDG_STATE_HOME"] = str(home / ".local" / "state")
    for name in ("CODEX_HOME", "MCPSPY_HOME"):
        env.pop(name, None)
    return env


def backup_of(config: Path, home: Path) -> Path:
    """Where wrap keeps the backup of ``config``: mcpspy's state dir, not beside the config."""
    return backup_path(Path(os.path.realpath(config)), environment(home))


def mcpspy(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = environment(home)
    return subprocess.run(
        [sys.executable, "-m", "mcpspy", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=30
    )


def servers_of(path: Path, key: str = "mcpServers") -> dict[str, dict[str, object]]:
    servers: dict[str, dict[str, object]] = json.loads(path.read_text())[key]
    return servers


@pytest.mark.parametrize(
    ("relative", "text", "key"),
    [
        ("project/.mcp.json", PROJECT_MCP, "mcpServers"),
        ("home/.claude.json", CLAUDE_USER, "mcpServers"),
        ("home/.config/Claude/claude_desktop_config.json", DESKTOP, "mcpServers"),
        ("project/.cursor/mcp.json", PROJECT_MCP, "mcpServers"),
        ("home/.cursor/mcp.json", DESKTOP, "mcpServers"),
        ("project/.vscode/mcp.json", VSCODE, "servers"),
    ],
)
def test_wrap_changes_only_the_entry_and_unwrap_restores_bytes(
    dirs: tuple[Path, Path], relative: str, text: str, key: str
) -> None:
    project, home = dirs
    path = project.parent / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    before = servers_of(path, key)

    done = mcpspy(project, home, "wrap", "helpdesk")
    assert done.returncode == 0, done.stderr
    after = servers_of(path, key)
    old = before["helpdesk"]
    assert after["helpdesk"] == {**old, "command": PROXY, "args": ["--", old["command"], *old["args"]]}  # type: ignore[misc]
    assert {k: v for k, v in after.items() if k != "helpdesk"} == {
        k: v for k, v in before.items() if k != "helpdesk"
    }
    assert backup_of(path, home).read_text() == text
    assert f"backup: {backup_of(path, home)}" in done.stdout
    assert (backup_of(path, home).stat().st_mode & 0o777) == 0o600
    assert not path.with_name(path.name + ".mcpspy-backup").exists()

    listed = mcpspy(project, home, "wrap", "--list")
    assert any("helpdesk" in line and "wrapped" in line for line in listed.stdout.splitlines())

    done = mcpspy(project, home, "unwrap", "helpdesk")
    assert done.returncode == 0, done.stderr
    assert path.read_bytes() == text.encode()
    assert not backup_of(path, home).exists()


def test_indentation_is_kept_and_args_added_when_absent(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".mcp.json"
    path.write_text(PROJECT_MCP)
    assert mcpspy(project, home, "wrap", "helpdesk").returncode == 0
    assert mcpspy(project, home, "wrap", "bare").returncode == 0
    wrapped = path.read_text()
    assert (
        '            "args": [\n                "--",\n                "node",\n                "server.js",'
        in wrapped
    )
    assert f'"bare": {{"command":{json.dumps(PROXY)}, "args":["--", "python3"]}},' in wrapped
    assert '"other": [1, 2, {"a": "b"}]' in wrapped
    assert mcpspy(project, home, "unwrap", "bare").returncode == 0
    assert mcpspy(project, home, "unwrap", "helpdesk").returncode == 0
    assert path.read_text() == PROJECT_MCP


def test_unwrap_without_backup_still_restores_the_entry(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".mcp.json"
    path.write_text(
        '{"mcpServers": {"s": {"command": "mcpspy", "args": ["--", "node", "a.js"], "cwd": "/x"}}}'
    )
    assert mcpspy(project, home, "unwrap", "s").returncode == 0
    assert servers_of(path)["s"] == {"command": "node", "args": ["a.js"], "cwd": "/x"}


def test_dry_run_prints_a_diff_and_changes_nothing(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".mcp.json"
    path.write_text(PROJECT_MCP)
    done = mcpspy(project, home, "wrap", "helpdesk", "--dry-run")
    assert done.returncode == 0
    assert '-            "command": "node",' in done.stdout
    assert f'+            "command": {json.dumps(PROXY)},' in done.stdout
    assert path.read_text() == PROJECT_MCP
    assert not backup_of(path, home).exists()


@pytest.mark.parametrize(
    ("text", "name", "says"),
    [
        (PROJECT_MCP, "web", "HTTP"),
        (PROJECT_MCP, "nosuch", "no server entry named 'nosuch'"),
        ('{"mcpServers": {"helpdesk": {"command": "node" "x"}}}', "helpdesk", "not valid JSON"),
        ('{"mcpServers": {"helpdesk": {"command": "node" /* never closed}}}', "helpdesk", "not valid JSON"),
        ('{"mcpServers": {"helpdesk": {"args": ["x"]}}}', "helpdesk", "no command"),
    ],
)
def test_errors_exit_2_and_change_nothing(dirs: tuple[Path, Path], text: str, name: str, says: str) -> None:
    project, home = dirs
    path = project / ".mcp.json"
    path.write_text(text)
    for verb in ("wrap", "unwrap"):
        done = mcpspy(project, home, verb, name, "--config", str(path))
        assert done.returncode == 2
        assert says in done.stderr or verb == "unwrap"
        assert done.stdout == ""
        assert path.read_text() == text
    assert not backup_of(path, home).exists()


def test_missing_name_is_an_error(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = mcpspy(project, home, "wrap")
    assert done.returncode == 2
    assert "name" in done.stderr


def test_codex_prints_a_snippet_and_leaves_the_toml(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = home / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(CODEX)
    for args in (("wrap", "--codex", "helpdesk"), ("wrap", "helpdesk")):
        done = mcpspy(project, home, *args)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(
            f'[mcp_servers.helpdesk]\ncommand = {json.dumps(PROXY)}\nargs = ["--", "node", "server.js"]'
        )
        assert '[mcp_servers.helpdesk.env]\nK = "v"' in done.stdout
    assert path.read_text() == CODEX


def test_a_name_in_two_configs_asks_for_config(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    (project / ".mcp.json").write_text(PROJECT_MCP)
    (home / ".claude.json").write_text(CLAUDE_USER)
    done = mcpspy(project, home, "wrap", "helpdesk")
    assert done.returncode == 2
    assert "--config" in done.stderr
    assert (project / ".mcp.json").read_text() == PROJECT_MCP
    done = mcpspy(project, home, "wrap", "helpdesk", "--config", str(home / ".claude.json"))
    assert done.returncode == 0
    assert (project / ".mcp.json").read_text() == PROJECT_MCP


def test_claude_code_local_scope_entry_of_this_project(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = home / ".claude.json"
    text = json.dumps(
        {"projects": {str(project): {"mcpServers": {"mine": {"command": "node", "args": ["m.js"]}}}}},
        indent=2,
    )
    path.write_text(text)
    done = mcpspy(project, home, "wrap", "mine")
    assert done.returncode == 0, done.stderr
    entry = json.loads(path.read_text())["projects"][str(project)]["mcpServers"]["mine"]
    assert entry == {"command": PROXY, "args": ["--", "node", "m.js"]}
    assert mcpspy(project, home, "unwrap", "mine").returncode == 0
    assert path.read_text() == text


def test_already_wrapped_is_left_alone(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".mcp.json"
    path.write_text(PROJECT_MCP)
    assert mcpspy(project, home, "wrap", "helpdesk").returncode == 0
    wrapped = path.read_text()
    again = mcpspy(project, home, "wrap", "helpdesk")
    assert again.returncode == 2
    assert "already wrapped" in again.stderr
    assert path.read_text() == wrapped


HOSTILE_MCP = (
    '{\n  "mcpServers": {\n    // \x1b]0;pwned\x07\x1b[2J a cloned project\'s comment\n'
    '    "helpdesk": {"command": "node", "args": ["\u202eevil.js"]}\n  }\n}\n'
)


def on_a_terminal(cwd: Path, home: Path, *args: str) -> bytes:
    """Run mcpspy with its stdout on a pseudo-terminal; what it wrote there."""
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "mcpspy", *args],
            cwd=cwd,
            env=environment(home),
            stdout=follower,
            stderr=subprocess.PIPE,
            timeout=30,
        )
        os.close(follower)
        follower = -1
        assert done.returncode == 0, done.stderr
        out = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the terminal's other end is closed and drained
                break
            if not chunk:
                break
            out += chunk
        return out
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)


def test_a_hostile_config_reaches_a_terminal_made_visible_and_a_pipe_exact(dirs: tuple[Path, Path]) -> None:
    """A project's config comes with the repository: its comments and strings are anybody's."""
    project, home = dirs
    (project / ".mcp.json").write_text(HOSTILE_MCP)
    shown = on_a_terminal(project, home, "wrap", "helpdesk", "--dry-run").decode()
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    assert "\\x1b]0;pwned" in shown and "\\u202e" in shown
    piped = mcpspy(project, home, "wrap", "helpdesk", "--dry-run")
    assert "// \x1b]0;pwned\x07\x1b[2J" in piped.stdout and '"\u202eevil.js"' in piped.stdout
    assert (project / ".mcp.json").read_text() == HOSTILE_MCP
