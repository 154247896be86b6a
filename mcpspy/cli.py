"""Command line: parse and dispatch, nothing else.

    mcpspy [options] -- CMD ARGS...     the proxy
    mcpspy watch|view|sessions|report|rules|demo|wrap|unwrap ...

Each subcommand's work lives in the module named in COMMANDS, imported only
when that subcommand runs, so the proxy starts without loading Textual.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from mcpspy import __version__

COMMANDS: dict[str, str] = {
    "watch": "mcpspy.tui.command:run_watch",
    "view": "mcpspy.tui.command:run_view",
    "sessions": "mcpspy.tui.command:run_sessions",
    "report": "mcpspy.report.command:run",
    "rules": "mcpspy.report.command:run_rules",
    "demo": "mcpspy.demo.command:run",
    "wrap": "mcpspy.config.command:run_wrap",
    "unwrap": "mcpspy.config.command:run_unwrap",
}

DESCRIPTION = """\
mcpspy sits between an MCP client and a stdio server, forwards every byte
unchanged, and records the traffic for `mcpspy watch` and `mcpspy report`.

In a client's config:  "command": "mcpspy", "args": ["--", "node", "server.js"]
"""

EPILOG = """\
commands:
  mcpspy -- CMD ARGS...   run CMD as the server, through the proxy
  watch [SESSION]         follow the newest live session in the TUI
  view FILE               open a finished capture in the TUI
  sessions                list recorded sessions
  report [FILE]           findings and exchanges (text, --json, --markdown)
  rules [ID]              the findings catalogue, or one rule explained
  demo                    a planted-bug demo server, live in the TUI
  wrap NAME / unwrap NAME put a client's server entry through mcpspy and back

Run `mcpspy COMMAND --help` for a command's options.
"""


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("seconds must be 0 or more")
    return value


def _home_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--home",
        metavar="DIR",
        help="the sessions directory (default: $MCPSPY_HOME, else "
        "$XDG_STATE_HOME/mcpspy/sessions, else ~/.local/state/mcpspy/sessions)",
    )


def proxy_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mcpspy",
        usage="mcpspy [options] -- CMD [ARGS...]\n       mcpspy COMMAND [options]",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"mcpspy {__version__}")
    p.add_argument(
        "--capture", metavar="PATH", help="write the capture here instead of the sessions directory"
    )
    p.add_argument(
        "--capture-overwrite", action="store_true", help="let --capture replace an existing file of yours"
    )
    _home_option(p)
    p.add_argument("--name", help="the session's name (default: taken from CMD)")
    p.add_argument(
        "--redact",
        action="append",
        default=[],
        metavar="KEY",
        help="also redact the values of this JSON key in the capture (repeatable)",
    )
    p.add_argument("--no-redact", action="store_true", help="store credentials in the capture as they were")
    p.add_argument(
        "--retain",
        metavar="POLICY",
        help="prune the sessions directory at start: 14d, 500MiB, 30d,2GiB or forever "
        "(default: $MCPSPY_RETAIN, else 30d,2GiB)",
    )
    p.add_argument(
        "--exit-grace",
        type=_seconds,
        default=5.0,
        metavar="SECONDS",
        help="after the client closes stdin, wait this long for the server to exit "
        "before terminating it (default: 5)",
    )
    p.add_argument(
        "--log",
        nargs="?",
        const="-",
        metavar="FILE",
        help="one line per message as it passes, to FILE or (with no FILE, or -) to stderr",
    )
    p.add_argument(
        "-v", "--verbose", action="store_true", help="say what mcpspy does on stderr (off by default)"
    )
    return p


def subcommand_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mcpspy", formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"mcpspy {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    watch = sub.add_parser("watch", help="follow a live session in the TUI")
    watch.add_argument("session", nargs="?", help="session id, name or capture path (default: newest live)")
    _home_option(watch)

    view = sub.add_parser("view", help="open a capture in the TUI")
    view.add_argument("file", help="a capture file (.jsonl)")

    sessions = sub.add_parser("sessions", help="list recorded sessions")
    _home_option(sessions)
    sessions.add_argument("--json", action="store_true", help="machine-readable listing")
    sessions.add_argument("--prune", action="store_true", help="delete old captures (never a live one)")
    sessions.add_argument("--older-than", metavar="AGE", help="with --prune: captures older than AGE (30d)")
    sessions.add_argument("--keep", type=int, metavar="N", help="with --prune: all but the newest N")

    report = sub.add_parser("report", help="findings and exchanges of a capture")
    report.add_argument("file", nargs="?", help="a capture file, session id or name (default: newest)")
    fmt = report.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="the versioned JSON report")
    fmt.add_argument("--markdown", action="store_true", help="a paired transcript in Markdown")
    report.add_argument(
        "--fail-on",
        choices=("error", "warning", "never"),
        default="error",
        help="exit 1 when a finding this severe or worse exists (default: error)",
    )
    report.add_argument(
        "--slow",
        type=_seconds,
        default=30.0,
        metavar="SECONDS",
        help="a request pending longer than this is slow (default: 30)",
    )
    _home_option(report)

    rules = sub.add_parser("rules", help="the findings catalogue")
    rules.add_argument("rule", nargs="?", metavar="ID", help="explain one rule, with examples")

    demo = sub.add_parser("demo", help="a planted-bug demo server behind the proxy, live")
    demo.add_argument("--no-tui", action="store_true", help="print the report instead of opening the TUI")
    _home_option(demo)

    for name, verb in (("wrap", "run through mcpspy"), ("unwrap", "restore")):
        w = sub.add_parser(name, help=f"{verb} one server entry of a client's MCP config")
        w.add_argument("name", nargs="?", help="the server entry's name")
        w.add_argument("--config", metavar="PATH", help="the config file (default: found)")
        w.add_argument("--dry-run", action="store_true", help="show the change as a diff, change nothing")
        if name == "wrap":
            w.add_argument("--list", action="store_true", help="list the entries found and which are wrapped")
            w.add_argument("--codex", action="store_true", help="print the Codex config.toml snippet")
    return p


def _dispatch(target: str, args: argparse.Namespace) -> int:
    module_name, _, func_name = target.partition(":")
    func = getattr(importlib.import_module(module_name), func_name)
    result: int = func(args)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in COMMANDS:
            args = subcommand_parser().parse_args(argv)
            return _dispatch(COMMANDS[args.command], args)
        return run_proxy_cli(argv)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `mcpspy report | head`: the reader has gone, which is not an error worth a traceback.
        # Point stdout at /dev/null so that the interpreter's last flush cannot fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, as a shell reports a command killed by it


def run_proxy_cli(argv: list[str]) -> int:
    if "--" in argv:
        split = argv.index("--")
        options, command = argv[:split], argv[split + 1 :]
    else:
        options, command = argv, []
    parser = proxy_parser()
    args, rest = parser.parse_known_args(options)
    stray = [a for a in rest if a.startswith("-")]
    if stray:
        parser.error(f"unknown option {stray[0]} (the server's own options go after --)")
    command = rest + command
    if not command:
        parser.error("no server command: give it after --, as in `mcpspy -- node server.js`")
    from mcpspy.capture.redact import RedactionPolicy
    from mcpspy.capture.retention import policy_from
    from mcpspy.proxy.run import ProxyConfig, run

    try:
        retention = policy_from(args.retain)
    except ValueError as exc:
        parser.error(str(exc))
    return run(
        ProxyConfig(
            command=tuple(command),
            capture=args.capture,
            capture_overwrite=args.capture_overwrite,
            home=args.home,
            name=args.name,
            exit_grace=args.exit_grace,
            log=args.log,
            verbose=args.verbose,
            redaction=RedactionPolicy(not args.no_redact, tuple(args.redact)),
            retention=retention,
        )
    )
