"""The command line: every subcommand is known by name, and the proxy's start-up stays lean."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mcpspy.cli import COMMAND_NAMES, main, subcommands
from mcpspy.exit_codes import EXIT_BUG
from tests.conftest import MCPSPY


def test_every_subcommand_is_dispatched_by_its_name() -> None:
    assert set(subcommands()) == COMMAND_NAMES


def test_the_proxy_imports_no_subcommand_analysis_or_textual() -> None:
    code = (
        "import sys, mcpspy.cli, mcpspy.proxy.run; "
        "print(sorted({m.split('.')[0] if not m.startswith('mcpspy') else '.'.join(m.split('.')[:2]) "
        "for m in sys.modules if m.startswith(('textual', 'mcpspy.analysis', 'mcpspy.report', 'mcpspy.tui'))}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_each_subcommand_has_its_own_help() -> None:
    for name in sorted(COMMAND_NAMES):
        done = subprocess.run(
            [sys.executable, "-m", "mcpspy", name, "--help"], capture_output=True, text=True, timeout=30
        )
        assert done.returncode == 0, (name, done.stderr)
        assert done.stdout.startswith(f"usage: mcpspy {name}"), done.stdout


def test_a_crash_in_a_subcommand_is_a_bug_not_a_finding(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from mcpspy.report import command

    def broken(summary: object) -> str:
        raise RuntimeError("boom")

    monkeypatch.setitem(command.FORMATS, "text", broken)
    capture = tmp_path / "c.jsonl"
    subprocess.run([*MCPSPY, "--capture", str(capture), "--", "true"], check=True, timeout=30)
    assert main(["report", str(capture)]) == EXIT_BUG
    err = capsys.readouterr().err
    assert "RuntimeError: boom" in err and "internal error" in err


def test_a_misspelt_command_is_an_error_with_a_suggestion_and_nothing_recorded(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = subprocess.run(
        [*MCPSPY, "--home", str(home), "sesions"], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2
    assert "did you mean `mcpspy sessions`?" in done.stderr
    assert not home.exists() or not any(home.iterdir())
    ran = subprocess.run(
        [*MCPSPY, "--home", str(home), "--", "sesions"], capture_output=True, text=True, timeout=30
    )
    assert ran.returncode == 127  # after --, it is a server's name, as asked


def test_the_tui_refuses_a_pipe_with_a_hint(tmp_path: Path) -> None:
    capture = tmp_path / "c.jsonl"
    subprocess.run([*MCPSPY, "--capture", str(capture), "--", "true"], check=True, timeout=30)
    for args in (
        ["view", str(capture)],
        ["watch", "--home", str(tmp_path)],
        ["demo", "--home", str(tmp_path)],
    ):
        done = subprocess.run(
            [*MCPSPY, *args], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
        )
        assert done.returncode == 2, (args, done.stderr)
        assert "mcpspy report" in done.stderr and done.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl"]  # demo started nothing


@pytest.mark.parametrize(("word", "meant"), [("stat", "stats"), ("test", "check"), ("ls", "sessions")])
def test_a_word_near_a_command_is_refused_even_when_it_is_a_program(
    tmp_path: Path, word: str, meant: str
) -> None:
    # stat, test and ls are programs on PATH: run as servers, each left a junk session behind
    home = tmp_path / "home"
    done = subprocess.run([*MCPSPY, "--home", str(home), word], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2, done.stderr
    assert f"did you mean `mcpspy {meant}`?" in done.stderr
    assert f"mcpspy -- {word}" in done.stderr
    assert not home.exists() or not any(home.iterdir())


def test_a_subcommand_s_bad_option_prints_that_subcommand_s_usage() -> None:
    done = subprocess.run([*MCPSPY, "report", "--bogus"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.startswith("usage: mcpspy report"), done.stderr
    assert "mcpspy report: error: unrecognized arguments: --bogus" in done.stderr
