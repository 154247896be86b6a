"""scripts/client_matrix.py, the script that writes docs/clients.md, run for real on a few cells.

The Python SDK's fault driver under two faults through the real proxy: the table says what the
report says the client did, and a table written again from the raw results (``--update FILE
--faults ''``) counts runs that disagree beside the cell's reaction.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = [sys.executable, str(REPO / "scripts" / "client_matrix.py"), "--clients", "py-sdk"]


def row(table: str, fault: str) -> str:
    [found] = [line for line in table.splitlines() if line.startswith(f"| `{fault}` |")]
    return found


def test_the_table_says_what_the_client_did_and_counts_runs_that_differ(tmp_path: Path) -> None:
    out, raw = tmp_path / "clients.md", tmp_path / "raw.json"
    faults = "stdout.not-json,pairing.unanswered"
    done = subprocess.run(
        [*SCRIPT, "--faults", faults, "--runs", "1", "--jobs", "2", "--out", str(out), "--json", str(raw)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    table = out.read_text()
    assert "**py-sdk**: mcp " in table and "1 run(s) per cell" in table
    # a stray line is skipped by the SDK; a reply never sent makes it cancel once its 3 s are up
    assert row(table, "stdout.not-json") == "| `stdout.not-json` | **carried-on** (6/6 calls ok) |"
    assert row(table, "pairing.unanswered").startswith("| `pairing.unanswered` | **cancelled** (5/6 calls ok")

    results = json.loads(raw.read_text())
    [run] = results["py-sdk"]["stdout.not-json"]
    results["py-sdk"]["stdout.not-json"] = [run, run, ["quiet", "", "0/6 calls ok"]]
    raw.write_text(json.dumps(results))
    again = subprocess.run(
        [*SCRIPT, "--update", str(raw), "--faults", "", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert again.returncode == 0, again.stderr
    assert again.stderr == ""  # nothing was run
    assert row(out.read_text(), "stdout.not-json") == (
        "| `stdout.not-json` | **carried-on** (6/6 calls ok) 2/3, quiet 1/3 |"
    )


def test_an_unknown_fault_is_refused_before_anything_runs(tmp_path: Path) -> None:
    done = subprocess.run(
        [*SCRIPT, "--faults", "stdout.nope", "--out", str(tmp_path / "clients.md")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "unknown server->client fault 'stdout.nope'" in done.stderr
    assert not (tmp_path / "clients.md").exists()
