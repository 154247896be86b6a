"""wrap/unwrap on configs as users have them: JSONC, a broken file beside a good one, Claude Code's scopes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mcpspy.config.jsonc import blank
from tests.config.test_wrap import PROJECT_MCP, PROXY, backup_of, mcpspy

VSCODE_JSONC = """// VS Code workspace servers
{
\t"servers": {
\t\t/* the helpdesk, run locally */
\t\t"helpdesk": {
\t\t\t"type": "stdio",
\t\t\t"command": "node", // "node" from PATH
\t\t\t"args": [
\t\t\t\t// the script
\t\t\t\t"build/index.js",
\t\t\t\t"--url=http://x//y", /* a // inside a string is not a comment */
\t\t\t],
\t\t},
\t\t"bare": {
\t\t\t"command": "uvx" // no args yet
\t\t},
\t},
\t"inputs": [],
}
"""


def test_blank_keeps_length_lines_and_strings() -> None:
    out = blank(VSCODE_JSONC)
    assert len(out) == len(VSCODE_JSONC) and out.count("\n") == VSCODE_JSONC.count("\n")
    assert "//" not in out.replace("http://x//y", "") and "/*" not in out
    assert json.loads(out)["servers"]["helpdesk"]["args"] == ["build/index.js", "--url=http://x//y"]
    assert blank('{"a": "/* x */", "b": "//"}') == '{"a": "/* x */", "b": "//"}'


def test_a_comment_never_closed_is_left_for_the_reader_to_refuse() -> None:
    assert blank('{"a": 1} /* open') == '{"a": 1} /* open'
    hostile = "/* " * 300_000  # each unclosed: read once to the end, not once per opening
    assert blank(hostile) == hostile


@pytest.mark.parametrize("name", ["helpdesk", "bare"])
def test_jsonc_keeps_comments_and_trailing_commas_and_unwraps_byte_exact(
    dirs: tuple[Path, Path], name: str
) -> None:
    project, home = dirs
    path = project / ".vscode" / "mcp.json"
    path.parent.mkdir()
    path.write_text(VSCODE_JSONC)
    done = mcpspy(project, home, "wrap", name)
    assert done.returncode == 0, done.stderr
    wrapped = path.read_text()
    for kept in (
        "// VS Code workspace servers",
        "/* the helpdesk, run locally */",
        "// the script",
        "\t},\n\t},",
    ):
        assert kept in wrapped
    entry = json.loads(blank(wrapped))["servers"][name]
    old = json.loads(blank(VSCODE_JSONC))["servers"][name]
    assert entry["command"] == PROXY and entry["args"] == ["--", old["command"], *old.get("args", [])]
    listed = mcpspy(project, home, "wrap", "--list")
    assert any(name in line and "wrapped" in line for line in listed.stdout.splitlines()), listed.stdout
    done = mcpspy(project, home, "unwrap", name)
    assert done.returncode == 0, done.stderr
    assert path.read_bytes() == VSCODE_JSONC.encode()
    assert not backup_of(path, home).exists()


def test_jsonc_unwrap_without_a_backup_keeps_the_comments(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".vscode" / "mcp.json"
    path.parent.mkdir()
    path.write_text(VSCODE_JSONC)
    assert mcpspy(project, home, "wrap", "helpdesk").returncode == 0
    backup_of(path, home).unlink()
    assert mcpspy(project, home, "unwrap", "helpdesk").returncode == 0
    after = path.read_text()
    assert "// the script" in after and "/* a // inside" in after
    assert json.loads(blank(after)) == json.loads(blank(VSCODE_JSONC))


def broken_places(project: Path, home: Path) -> dict[str, Path]:
    """One config each way a file can be bad, all where wrap looks."""
    vscode = project / ".vscode" / "mcp.json"
    vscode.parent.mkdir()
    vscode.write_text('{"servers": {"x": {"command": "node" "oops"}}}')
    cursor = project / ".cursor" / "mcp.json"
    cursor.parent.mkdir()
    cursor.symlink_to(project / "nowhere.json")  # a symlink to nothing
    (home / ".cursor").mkdir()
    (home / ".cursor" / "mcp.json").mkdir()  # a directory where the file should be
    desktop = home / ".config" / "Claude" / "claude_desktop_config.json"
    desktop.parent.mkdir(parents=True)
    desktop.write_bytes(b'{"mcpServers": {"\xff": {}}}')  # not UTF-8
    return {
        "vscode": vscode,
        "cursor": cursor,
        "home-cursor": home / ".cursor" / "mcp.json",
        "desktop": desktop,
    }


def test_a_broken_file_beside_a_good_one_is_a_note_and_never_blocks(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    good = project / ".mcp.json"
    good.write_text(PROJECT_MCP)
    bad = broken_places(project, home)
    codex = home / ".codex" / "config.toml"
    codex.parent.mkdir()
    codex.write_text("[[[ not toml")

    listed = mcpspy(project, home, "wrap", "--list")
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()] == ["helpdesk", "bare", "web"]
    notes = listed.stderr.splitlines()
    assert len(notes) == len(bad) + 1 and all(n.startswith("mcpspy: skipped ") for n in notes), notes
    for path in [*bad.values(), codex]:
        assert sum(str(path) in n for n in notes) == 1, (path, notes)
    assert "broken symlink" in listed.stderr and "not UTF-8" in listed.stderr

    done = mcpspy(project, home, "wrap", "helpdesk")
    assert done.returncode == 0, done.stderr
    assert json.loads(good.read_text())["mcpServers"]["helpdesk"]["command"] == PROXY
    assert len(done.stderr.splitlines()) == len(bad) and str(bad["vscode"]) in done.stderr

    missing = mcpspy(project, home, "wrap", "x")  # only in the broken file
    assert missing.returncode == 2
    assert missing.stderr.splitlines()[-1].endswith(f"; {len(bad) + 1} could not be read (above)")
    assert len(missing.stderr.splitlines()) == len(bad) + 2
    assert mcpspy(project, home, "unwrap", "helpdesk").returncode == 0
    assert good.read_text() == PROJECT_MCP


def claude_json(project: Path) -> str:
    local = {"command": "node", "args": ["local.js"]}
    return json.dumps(
        {
            "numStartups": 7,
            "projects": {
                "/elsewhere": {"mcpServers": {"helpdesk": {"command": "node", "args": ["other.js"]}}},
                str(project): {"allowedTools": [], "mcpServers": {"helpdesk": local}},
            },
            "mcpServers": {"helpdesk": {"command": "node", "args": ["user.js"]}},
        },
        indent=2,
    )


@pytest.mark.parametrize(
    ("scope", "script"), [("local", "local.js"), ("project", "project.js"), ("user", "user.js")]
)
def test_claude_code_scopes(dirs: tuple[Path, Path], scope: str, script: str) -> None:
    project, home = dirs
    project = project.resolve()
    user = home / ".claude.json"
    user.write_text(text := claude_json(project))
    shared = project / ".mcp.json"
    shared.write_text(
        shared_text := json.dumps({"mcpServers": {"helpdesk": {"command": "node", "args": ["project.js"]}}})
    )

    ambiguous = mcpspy(project, home, "wrap", "helpdesk")
    assert ambiguous.returncode == 2 and "--scope local|project|user" in ambiguous.stderr

    done = mcpspy(project, home, "wrap", "helpdesk", "--scope", scope)
    assert done.returncode == 0, done.stderr
    data = json.loads(user.read_text())
    entries = {
        "local": data["projects"][str(project)]["mcpServers"]["helpdesk"],
        "user": data["mcpServers"]["helpdesk"],
        "project": json.loads(shared.read_text())["mcpServers"]["helpdesk"],
    }
    assert entries[scope] == {"command": PROXY, "args": ["--", "node", script]}
    assert all(e["command"] == "node" for s, e in entries.items() if s != scope)
    assert data["projects"]["/elsewhere"]["mcpServers"]["helpdesk"]["args"] == ["other.js"]
    assert mcpspy(project, home, "unwrap", "helpdesk", "--scope", scope).returncode == 0
    assert user.read_text() == text and shared.read_text() == shared_text


def test_config_reaches_the_project_entries_of_claude_json(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    project = project.resolve()
    user = home / ".claude.json"
    user.write_text(text := claude_json(project))
    ambiguous = mcpspy(project, home, "wrap", "helpdesk", "--config", str(user))
    assert ambiguous.returncode == 2 and "--scope" in ambiguous.stderr
    done = mcpspy(project, home, "wrap", "helpdesk", "--config", str(user), "--scope", "local")
    assert done.returncode == 0, done.stderr
    assert (
        json.loads(user.read_text())["projects"][str(project)]["mcpServers"]["helpdesk"]["command"] == PROXY
    )
    listed = mcpspy(project, home, "wrap", "--list", "--config", str(user))
    assert sorted(line.split()[1] for line in listed.stdout.splitlines()) == ["-", "wrapped"], listed.stdout
    assert (
        mcpspy(project, home, "unwrap", "helpdesk", "--config", str(user), "--scope", "local").returncode == 0
    )
    assert user.read_text() == text


def test_command_names_what_is_written_and_unwrap_recognises_it(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".mcp.json"
    path.write_text(PROJECT_MCP)
    done = mcpspy(project, home, "wrap", "helpdesk", "--command", "/opt/tools/spy")
    assert done.returncode == 0 and "command: /opt/tools/spy" in done.stdout
    assert json.loads(path.read_text())["mcpServers"]["helpdesk"]["command"] == "/opt/tools/spy"
    assert mcpspy(project, home, "unwrap", "helpdesk").returncode == 2  # not recognisably mcpspy
    assert mcpspy(project, home, "unwrap", "helpdesk", "--command", "/opt/tools/spy").returncode == 0
    assert path.read_text() == PROJECT_MCP


def test_an_older_backup_beside_the_config_is_still_used_and_removed(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".mcp.json"
    path.write_text(
        PROJECT_MCP.replace('"command": "node"', '"command": "mcpspy"').replace(
            '"server.js"', '"--", "node", "server.js"'
        )
    )
    legacy = project / ".mcp.json.mcpspy-backup"
    legacy.write_text(PROJECT_MCP)
    done = mcpspy(project, home, "unwrap", "helpdesk")
    assert done.returncode == 0, done.stderr
    assert path.read_text() == PROJECT_MCP and not legacy.exists()
    assert os.listdir(project) == [".mcp.json"]
