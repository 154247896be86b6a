"""Run the check: one proxy and server process per era, all eras at once, each judged from its capture.

The eras run concurrently (each waits on its own server), which is what keeps
a two-era check of a prompt server near the time of one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from mcpspy.capture.format import CaptureFormatError
from mcpspy.capture.records import Event, LifecycleRecord
from mcpspy.capture.retention import policy_from, prune_at_start
from mcpspy.capture.sessions import ensure_private_dir, server_name, session_file_name
from mcpspy.check.client import Driver
from mcpspy.check.model import CheckRun, Era, EraRun
from mcpspy.check.script import Options, Script
from mcpspy.check.script_legacy import LegacyScript
from mcpspy.check.script_modern import ModernScript

SCRIPTS: dict[Era, type[Script]] = {Era.MODERN: ModernScript, Era.LEGACY: LegacyScript}
CHECK_SUBDIR = "check"
EXIT_GRACE_FACTOR = 2  # step timeouts a server may take to exit once its stdin closes
PROXY_SHUTDOWN = 5.0  # beyond the exit grace: the proxy's SIGTERM-to-SIGKILL wait and its pipe drain


class CheckError(Exception):
    """The check could not run; the message is the one line the user sees."""


@dataclass(frozen=True)
class Plan:
    command: tuple[str, ...]
    eras: tuple[Era, ...]
    options: Options
    home: Path  # the sessions directory: the captures go to its check/ subdirectory

    @property
    def captures_dir(self) -> Path:
        """Kept apart from the sessions a client made, so that `stats` and `sessions` count only those."""
        return self.home / CHECK_SUBDIR


def run_check(plan: Plan) -> CheckRun:
    """Every era of the plan, concurrently; CheckError when the server cannot be started at all."""
    if shutil.which(plan.command[0]) is None:
        raise CheckError(f"cannot start {plan.command[0]!r}: command not found")
    ensure_private_dir(plan.home)
    ensure_private_dir(plan.captures_dir)
    with contextlib.suppress(ValueError):  # a bad $MCPSPY_RETAIN: the proxy says so; keep everything here
        prune_at_start(plan.captures_dir, policy_from(None))  # the sessions dir's retention, here too
    started = datetime.now(UTC)
    with ThreadPoolExecutor(max_workers=len(plan.eras), thread_name_prefix="check-era") as pool:
        futures = [pool.submit(run_era, plan, era, started) for era in plan.eras]
        _import_the_analysis()  # while the servers start: the judging needs it only once they are done
        runs = [f.result() for f in futures]
    for run in runs:
        if run.start_error is not None:
            raise CheckError(f"cannot start {plan.command[0]!r}: {run.start_error}")
    return CheckRun(plan.command, runs, plan.options.timeout, plan.options.time_bound)


def capture_path(plan: Plan, era: Era, started: datetime) -> tuple[Path, str]:
    """A new file in the check captures directory, and the session's name (the server's, and the era)."""
    name = f"{server_name(plan.command)}-check-{era.value}"
    path = plan.captures_dir / session_file_name(started, name, os.getpid())
    n = 1
    while path.exists():  # a second check in the same millisecond
        n += 1
        path = plan.captures_dir / session_file_name(started, f"{name}{n}", os.getpid())
    return path, name


def run_era(plan: Plan, era: Era, started: datetime) -> EraRun:
    path, name = capture_path(plan, era, started)
    grace = plan.options.timeout * EXIT_GRACE_FACTOR
    argv = [
        sys.executable, "-m", "mcpspy", "--capture", str(path), "--name", name,
        "--exit-grace", f"{grace:g}", "--", *plan.command,
    ]  # fmt: skip
    driver = Driver(argv, plan.options.time_bound)
    script = SCRIPTS[era](driver, plan.options)
    try:
        script.run()
        script.close()
        if not script.cut_short:  # the server's exit, within what is left of the check's time
            exited = driver.wait_exit(min(grace + PROXY_SHUTDOWN, driver.time_left)) is not None
            script.cut_short = not exited and driver.out_of_time
    finally:
        script.eof_delivered = driver.stdin_drained.is_set()
        driver.stop()
    from mcpspy.check.judge import judge  # imported while the servers start, not before
    from mcpspy.replay_policy import open_capture

    try:
        opened = open_capture(path)
    except (OSError, CaptureFormatError) as exc:
        tail = driver.stderr_tail.strip().splitlines()
        said = f" (it said: {tail[-1]})" if tail else ""
        raise CheckError(f"the proxy wrote no readable capture at {path}: {exc}{said}") from exc
    capture = opened.capture
    run = judge(script, path, capture, opened.analyzer)
    run.answered = driver.replies_seen > 0
    run.flooded = driver.flood is not None
    run.timed_out = not run.flooded and driver.out_of_time and script.cut_short
    for record in capture.records:  # "error": the proxy could not start the command
        if (
            isinstance(record, LifecycleRecord)
            and record.event is Event.SERVER_EXITED
            and "error" in record.details
        ):
            run.start_error = str(record.details["error"])
    return run


def _import_the_analysis() -> None:
    import mcpspy.check.judge
    import mcpspy.replay_policy  # noqa: F401
