"""`mcpspy completion SHELL`: the scripts, loaded into the real shells, complete commands, options and sessions."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mcpspy.cli import COMMAND_NAMES
from tests.conftest import MCPSPY, mcpspy_on_path

needs = {
    shell: pytest.mark.skipif(shutil.which(shell) is None, reason=f"{shell} is not installed")
    for shell in ("zsh", "fish")
}


@pytest.fixture
def shell_env(tmp_path: Path) -> dict[str, str]:
    """A PATH whose `mcpspy` is this checkout's, and a sessions dir holding one session named helpdesk."""
    home = tmp_path / "sessions"
    subprocess.run([*MCPSPY, "--home", str(home), "--name", "helpdesk", "--", "true"], check=True, timeout=60)
    return {**mcpspy_on_path(tmp_path / "bin"), "MCPSPY_HOME": str(home)}


def script(shell: str, tmp_path: Path) -> Path:
    done = subprocess.run([*MCPSPY, "completion", shell], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    path = tmp_path / f"mcpspy.{shell}"
    path.write_text(done.stdout)
    return path


def bash_complete(path: Path, words: list[str], env: dict[str, str]) -> list[str]:
    """COMPREPLY for the command line ``words`` (the last one being completed), as bash's Tab computes it."""
    quoted = " ".join(f"'{w}'" for w in words)
    program = (
        f"source {path}\n"
        "fn=$(complete -p mcpspy | sed 's/.*-F \\([^ ]*\\).*/\\1/')\n"
        f"COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}\n"
        'COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}\n'
        '"$fn" mcpspy "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"\n'
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_bash_completes_commands_options_and_session_names(tmp_path: Path, shell_env: dict[str, str]) -> None:
    path = script("bash", tmp_path)
    assert sorted(bash_complete(path, ["mcpspy", "rep"], shell_env)) == ["replay", "report"]
    assert set(bash_complete(path, ["mcpspy", ""], shell_env)) >= COMMAND_NAMES
    assert "--fail-on" in bash_complete(path, ["mcpspy", "report", "--f"], shell_env)
    assert "--otlp-endpoint" in bash_complete(path, ["mcpspy", "--otl"], shell_env)
    sessions = bash_complete(path, ["mcpspy", "report", "help"], shell_env)
    assert "helpdesk" in sessions
    ids = bash_complete(path, ["mcpspy", "view", "2"], shell_env)
    assert any(word.endswith(f"-helpdesk-{word.rsplit('-', 1)[-1]}") for word in ids), ids


@needs["fish"]
def test_fish_completes_commands_options_and_session_names(tmp_path: Path, shell_env: dict[str, str]) -> None:
    path = script("fish", tmp_path)

    def complete(line: str) -> list[str]:
        done = subprocess.run(
            ["fish", "--no-config", "-c", f"source {path}; complete -C {line!r}"],
            capture_output=True,
            text=True,
            timeout=60,
            env=shell_env,
        )
        assert done.returncode == 0, done.stderr
        return [row.split("\t")[0] for row in done.stdout.splitlines()]

    assert sorted(complete("mcpspy rep")) == ["replay", "report"]
    assert set(complete("mcpspy ")) >= COMMAND_NAMES
    assert "--fail-on" in complete("mcpspy report --f")
    assert "helpdesk" in complete("mcpspy report ")
    assert "bash" in complete("mcpspy completion ")


@needs["zsh"]
def test_the_zsh_script_is_a_completion_function_zsh_accepts(tmp_path: Path) -> None:
    path = script("zsh", tmp_path)
    assert path.read_text().startswith("#compdef mcpspy")
    done = subprocess.run(["zsh", "-n", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "_mcpspy_sessions" in path.read_text()


def test_session_words_are_plain_words_only(tmp_path: Path) -> None:
    home = tmp_path / "sessions"
    for name in ("ok-name", "two words", "esc\x1b]0;owned\x07", "$(touch${IFS}owned)", "`id`"):
        subprocess.run([*MCPSPY, "--home", str(home), "--name", name, "--", "true"], check=True, timeout=60)
    done = subprocess.run(
        [*MCPSPY, "sessions", "--complete", "--home", str(home)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0
    words = done.stdout.splitlines()
    assert "ok-name" in words
    assert all(re.fullmatch(r"[A-Za-z0-9._:@+-]+", word) for word in words), words  # nothing compgen expands
