"""A symlinked sessions directory is refused before the server starts, as docs/proxy.md says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import MCPSPY


def test_a_symlinked_sessions_dir_is_refused_in_one_line_and_the_server_never_runs(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "sessions"
    link.symlink_to(real)
    ran = tmp_path / "ran"
    server = [sys.executable, "-c", f"open({str(ran)!r}, 'w').close()"]
    proc = subprocess.run(
        [*MCPSPY, "--home", str(link), "--", *server],
        capture_output=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.count(b"\n") == 1 and b"is a symlink" in proc.stderr
    assert not ran.exists() and list(real.iterdir()) == []
    assert (
        "sessions directory that is a\n  symlink"
        in (Path(__file__).parents[2] / "docs" / "proxy.md").read_text()
    )
