"""What one proxy run records to: the capture, and the sinks beside it (``--log``, the live OTLP export)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from mcpspy import __version__
from mcpspy.capture.command_line import header_text
from mcpspy.capture.format import FORMAT_VERSION
from mcpspy.capture.records import Header
from mcpspy.capture.redact import DEFAULT_POLICY, RedactionPolicy
from mcpspy.capture.retention import DEFAULT, RetentionPolicy, prune_at_start
from mcpspy.capture.sessions import default_sessions_dir, session_file_name, session_id
from mcpspy.capture.writer import CaptureWriter
from mcpspy.clients import chosen
from mcpspy.proxy.fdio import close_quietly
from mcpspy.proxy.recording import Recording
from mcpspy.proxy.sink_process import SinkProcess
from mcpspy.proxy.stderr import SharedStderr

if TYPE_CHECKING:
    from mcpspy.inject.spec import Spec


@dataclass(frozen=True)
class ProxyConfig:
    """What the command line asked of the proxy."""

    command: tuple[str, ...]
    capture: str | None = None
    capture_overwrite: bool = False
    home: str | None = None
    name: str | None = None
    exit_grace: float = 5.0
    log: str | None = None
    verbose: bool = False
    redaction: RedactionPolicy = DEFAULT_POLICY
    retention: RetentionPolicy = DEFAULT
    otlp_endpoint: str | None = None  # "": from OTEL_EXPORTER_OTLP_ENDPOINT
    otlp_join: bool = False  # --otlp-join: a traced request's exchange joins its caller's span
    inject: tuple[Spec, ...] = ()  # --inject / --scenario: the faults to make (inject/)
    seed: int = 0  # --seed: what ~P draws from


def capture_path(config: ProxyConfig, started: datetime, name: str) -> tuple[Path, bool]:
    """Where the capture goes, and whether that is our private sessions directory."""
    if config.capture:
        return Path(config.capture).expanduser(), False
    directory = Path(config.home).expanduser() if config.home else default_sessions_dir()
    return directory / session_file_name(started, name, os.getpid()), True


class Session:
    """Opened before the server starts, finished after it exits: every record goes through here.

    Raises CaptureRefused when the capture's place is unsafe (a symlink, an existing
    file, a sessions directory others can write): the server is then never started.
    """

    def __init__(self, config: ProxyConfig, stderr: SharedStderr) -> None:
        started = datetime.now(UTC)
        t0 = time.monotonic()
        text = header_text(config.command, current_dir(), config.name or None, config.redaction.enabled)
        path, private = capture_path(config, started, text.name)
        header = Header(
            format=FORMAT_VERSION,
            session=session_id(
                started, text.name, os.getpid()
            ),  # the same with --capture as in the sessions dir
            started=started.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            command=text.command,
            name=text.name,
            cwd=text.cwd,
            mcpspy=__version__,
            pid=os.getpid(),
            escaped=text.escaped,
        )
        self.header = header
        self.sinks = _start_sinks(config, stderr)
        capture = CaptureWriter(path, on_failure=stderr.warn, redaction=config.redaction, tee=self.sinks)
        try:
            capture.open(header, private_dir=private, overwrite=config.capture_overwrite)
        except BaseException:  # refused: no server, and no sink process left behind
            if self.sinks is not None:
                self.sinks.close()
            raise
        if private and not capture.failed and (pruned := prune_at_start(path.parent, config.retention)):
            stderr.say(pruned)
        self.recording = Recording(capture, t0, warn=stderr.warn)
        stderr.say(f"capture: {path}")

    @property
    def sink_pid(self) -> int | None:
        return None if self.sinks is None else self.sinks.pid

    def finish(self, code: int | None = None) -> None:
        """Write everything still held and close the capture; let the sinks catch up, then stop them.

        ``code``: mcpspy's exit status, for the ``proxy-stopped`` record (None: torn down).
        """
        self.recording.finish(code)
        if self.sinks is not None:
            self.sinks.close()


def _start_sinks(config: ProxyConfig, stderr: SharedStderr) -> SinkProcess | None:
    """The sink process for ``--log`` and ``--otlp-endpoint``, or None when neither is asked (or usable)."""
    options: list[str] = ["--verbose"] if config.verbose else []
    if names := chosen():  # the child judges by the profiles this process was given
        options += ["--clients", ",".join(names)]
    pass_fds: list[int] = []
    if config.log == "-":
        options.append("--log-voice")  # through our stderr, between the server's lines
    elif config.log is not None and (fd := _open_log_file(config.log, stderr)) is not None:
        options += ["--log-fd", str(fd)]
        pass_fds.append(fd)
    if config.otlp_endpoint is not None:
        from mcpspy.export.otel import usable_endpoint  # no SDK import: the child imports it

        if (problem := usable_endpoint(config.otlp_endpoint)) is None:
            options += ["--otlp-endpoint", config.otlp_endpoint]
            options += ["--otlp-join"] if config.otlp_join else []
        else:
            stderr.warn(f"mcpspy: --otlp-endpoint: {problem}; forwarding without it")
    if not {"--log-voice", "--log-fd", "--otlp-endpoint"} & set(options):
        return None
    try:
        return SinkProcess(options, stderr.write_own, stderr.warn, pass_fds)
    except OSError as exc:
        stderr.warn(
            f"mcpspy: cannot start the --log/OTLP process: {exc.strerror or exc}; forwarding without it"
        )
        return None
    finally:
        for fd in pass_fds:
            close_quietly(fd)  # the child has its own copy


def _open_log_file(target: str, stderr: SharedStderr) -> int | None:
    try:
        return os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        stderr.warn(f"mcpspy: cannot open the log {target}: {exc.strerror or exc}")
        return None


def current_dir() -> str | None:
    """The working directory, or None when it has been deleted from under us (the server starts anyway)."""
    try:
        return os.getcwd()
    except OSError:
        return None
