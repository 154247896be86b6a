"""The CI action's inner script (scripts/action_check.py), run on a real server as action.yml runs it."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import orjson

from tests.conftest import REPO, mcpspy_on_path

SCRIPT = REPO / "scripts" / "action_check.py"
SERVER = REPO / "tests" / "check" / "servers" / "faulty_server.py"


def run_action(tmp_path: Path, **inputs: str) -> tuple[int, dict[str, str], str, Path]:
    """The script's exit code, the step outputs it set, its stderr, and its output directory."""
    out = tmp_path / "results"
    outputs = tmp_path / "github_output"
    summary = tmp_path / "summary.md"
    env = {
        **mcpspy_on_path(tmp_path / "bin"),
        "INPUT_OUTPUT_DIR": str(out),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_STEP_SUMMARY": str(summary),
        **{f"INPUT_{key.upper()}": value for key, value in inputs.items()},
    }
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path
    )
    written = (
        dict(line.split("=", 1) for line in outputs.read_text().splitlines()) if outputs.exists() else {}
    )
    return done.returncode, written, done.stderr, out


def test_a_conforming_server_passes_with_sarif_junit_json_and_a_badge(tmp_path: Path) -> None:
    code, outputs, stderr, out = run_action(tmp_path, command=f"{sys.executable} {SERVER}")
    assert code == 0, stderr
    assert outputs["exit-code"] == "0"
    sarif = orjson.loads(Path(outputs["sarif"]).read_bytes())
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["tool"]["driver"]["name"] == "mcpspy check"
    suites = ET.parse(outputs["junit"]).getroot()
    assert int(suites.get("failures", "0")) == 0 and suites.iter("testcase")
    assert orjson.loads((out / "mcpspy-check.json").read_bytes())
    assert ">passing<" in (out / "mcpspy-check.svg").read_text()
    assert "## mcpspy check" in (tmp_path / "summary.md").read_text()


def test_findings_fail_with_exit_1_and_every_file_still_written(tmp_path: Path) -> None:
    code, outputs, stderr, out = run_action(tmp_path, command=f"{sys.executable} {SERVER} --fault banner")
    assert code == 1, stderr
    assert outputs["exit-code"] == "1"
    results = orjson.loads(Path(outputs["sarif"]).read_bytes())["runs"][0]["results"]
    assert any(r["level"] == "error" for r in results)
    assert int(ET.parse(outputs["junit"]).getroot().get("failures", "0")) >= 1
    assert re.search(r">\d+ failing<", (out / "mcpspy-check.svg").read_text())


def test_fail_on_never_passes_a_faulty_server(tmp_path: Path) -> None:
    code, outputs, stderr, _ = run_action(
        tmp_path, command=f"{sys.executable} {SERVER} --fault banner", **{"fail_on": "never"}
    )
    assert code == 0 and outputs["exit-code"] == "0", stderr


def test_a_server_that_cannot_be_checked_is_exit_2(tmp_path: Path) -> None:
    code, outputs, stderr, _ = run_action(tmp_path, command="/nonexistent/server --stdio")
    assert code == 2 and outputs["exit-code"] == "2"
    assert "::error title=mcpspy check::" in stderr


def test_bad_inputs_are_exit_2_with_the_input_named(tmp_path: Path) -> None:
    for inputs, named in (
        ({"command": ""}, "command is empty"),
        ({"command": "node 'unclosed"}, "command:"),
        ({"command": "node s.js", "era": "future"}, "era: 'future'"),
        ({"command": "node s.js", "timeout": "-1"}, "timeout:"),
    ):
        code, outputs, stderr, _ = run_action(tmp_path, **inputs)
        assert code == 2 and outputs["exit-code"] == "2", inputs
        assert named in stderr, stderr


def test_action_yml_passes_every_input_the_script_reads() -> None:
    action = (REPO / "action.yml").read_text()
    script = SCRIPT.read_text()
    read = set(re.findall(r'"INPUT_([A-Z_]+)"', script))
    passed = set(re.findall(r"INPUT_([A-Z_]+): \$\{\{ inputs\.([a-z-]+) \}\}", action))
    assert read == {name for name, _ in passed}
    assert all(name == input_.upper().replace("-", "_") for name, input_ in passed)
    assert "scripts/action_check.py" in action
