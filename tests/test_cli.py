"""The command line: every subcommand is known by name, and the proxy's start-up stays lean."""

from __future__ import annotations

import subprocess
import sys

from mcpspy.cli import COMMAND_NAMES, subcommands


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
