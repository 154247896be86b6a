"""The inner step of action.yml: `mcpspy check` on the server command, SARIF, JUnit, JSON and a badge.

Reads the action's inputs from INPUT_* variables (as action.yml passes them), runs one check that
writes every format, puts the text report in the job summary, and sets the step's outputs
(exit-code, sarif, junit). Exits with mcpspy check's own code: 0 passed, 1 findings at or above
fail-on, 2 the server could not be checked (a bad input here is a 2 as well).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ERAS = ("modern", "legacy", "both")
FAIL_ON = ("error", "warning", "never")
EXIT_COULD_NOT_CHECK = 2


class InputError(ValueError):
    """An input the action cannot run with: said as a workflow error, exit 2."""


def check_argv(env: Mapping[str, str], out: Path) -> list[str]:
    """The `mcpspy check` command line for these inputs (each checked, never passed to a shell)."""
    try:
        command = shlex.split(env.get("INPUT_COMMAND", ""))
    except ValueError as exc:
        raise InputError(f"command: {exc}") from None
    if not command:
        raise InputError("command is empty: give the server command, e.g. `node build/index.js`")
    era = env.get("INPUT_ERA") or "both"
    if era not in ERAS:
        raise InputError(f"era: {era!r} is not one of {', '.join(ERAS)}")
    fail_on = env.get("INPUT_FAIL_ON") or "error"
    if fail_on not in FAIL_ON:
        raise InputError(f"fail-on: {fail_on!r} is not one of {', '.join(FAIL_ON)}")
    timeout = env.get("INPUT_TIMEOUT") or "3"
    try:
        if not float(timeout) > 0:
            raise ValueError
    except ValueError:
        raise InputError(f"timeout: {timeout!r} is not a positive number of seconds") from None
    argv = [
        "mcpspy",
        "check",
        "--era",
        era,
        "--fail-on",
        fail_on,
        "--timeout",
        timeout,
        "--home",
        str(out / "sessions"),
        "--format",
        "text",
        "--out",
        str(out / "mcpspy-check.txt"),
        "--also",
        f"sarif={out / 'mcpspy-check.sarif'}",
        "--also",
        f"junit={out / 'mcpspy-check.junit.xml'}",
        "--also",
        f"json={out / 'mcpspy-check.json'}",
        "--badge",
        str(out / "mcpspy-check.svg"),
    ]
    if clients := (env.get("INPUT_CLIENTS") or "").strip():
        argv += ["--clients", clients]
    return [*argv, "--", *command]


def set_outputs(env: Mapping[str, str], outputs: Mapping[str, str]) -> None:
    path = env.get("GITHUB_OUTPUT")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.writelines(f"{key}={value}\n" for key, value in outputs.items())


def add_summary(env: Mapping[str, str], text: str) -> None:
    path = env.get("GITHUB_STEP_SUMMARY")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"## mcpspy check\n\n```\n{text.replace('```', '` ` `')}\n```\n")


def main(env: Mapping[str, str] = os.environ) -> int:
    out = Path(env.get("INPUT_OUTPUT_DIR") or "mcpspy-results")
    try:
        argv = check_argv(env, out)
    except InputError as exc:
        print(f"::error title=mcpspy check::{exc}", file=sys.stderr)
        set_outputs(env, {"exit-code": str(EXIT_COULD_NOT_CHECK)})
        return EXIT_COULD_NOT_CHECK
    out.mkdir(parents=True, exist_ok=True)
    print("+ " + shlex.join(argv), file=sys.stderr)
    code = subprocess.run(argv, check=False).returncode
    report = out / "mcpspy-check.txt"
    if report.exists():
        text = report.read_text(encoding="utf-8", errors="replace")
        sys.stdout.write(text)
        add_summary(env, text)
    outputs = {"exit-code": str(code)}
    for key, name in (("sarif", "mcpspy-check.sarif"), ("junit", "mcpspy-check.junit.xml")):
        if (out / name).exists():
            outputs[key] = str(out / name)
    set_outputs(env, outputs)
    if code == EXIT_COULD_NOT_CHECK:
        print(
            "::error title=mcpspy check::the server could not be checked; see the log above", file=sys.stderr
        )
    return code


if __name__ == "__main__":
    sys.exit(main())
