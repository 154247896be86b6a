"""A signal at any moment of start-up: no traceback, no crash, the exit a shell expects.

The random moments start once mcpspy's entry point holds start-up signals
(seen in /proc as SIGTERM being caught): before that, only the interpreter's
own start-up runs, which no Python code can guard (mcpspy/early_signals.py).
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import MCPSPY

if not sys.platform.startswith("linux"):
    pytest.skip("reads /proc", allow_module_level=True)


def catches_sigterm(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) & (1 << (signal.SIGTERM - 1)))


@pytest.mark.parametrize("round_", range(2))
def test_signals_in_the_first_300_ms(tmp_path: Path, round_: int) -> None:
    rng = random.Random(round_)
    for i in range(12):
        signum = rng.choice((signal.SIGINT, signal.SIGTERM))
        capture = tmp_path / f"c{i}.jsonl"
        proc = subprocess.Popen(
            [*MCPSPY, "--capture", str(capture), "--", "cat"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 10
        while not catches_sigterm(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.001)
        time.sleep(rng.uniform(0, 0.3))
        proc.send_signal(signum)
        proc.wait(timeout=30)  # stdin stays open: EOF would let cat exit 0 before the signal reaches it
        out, err = proc.communicate(timeout=30)
        assert proc.returncode in (128 + signal.SIGINT, 128 + signal.SIGTERM), (proc.returncode, err)
        assert err == b"", err.decode(errors="replace")
        assert out == b""
