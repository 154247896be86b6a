"""Command line: parse and dispatch, nothing else.

    mcpspy [options] -- CMD ARGS...     the proxy
    mcpspy watch|view|sessions|report|rules|demo|wrap|unwrap ...

Each subcommand's arguments and handler live in its own module (``subcommands()``
names them); those modules are imported only when a subcommand runs, so the
proxy starts without loading the analysis or Textual.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcpspy import __version__, early_signals
from mcpspy.clients import add_clients_option, choose_from
from mcpspy.exit_codes import EXIT_BROKEN_PIPE, EXIT_BUG, EXIT_INTERRUPTED, fail
from mcpspy.options import add_home_option, seconds

if TYPE_CHECKING:
    from mcpspy.inject.spec import Spec


@dataclass(frozen=True, slots=True)
class Subcommand:
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


def subcommands() -> dict[str, Subcommand]:
    """Every subcommand, imported here rather than at the top: the proxy needs none of them."""
    from mcpspy import completion
    from mcpspy.agent import command as agent
    from mcpspy.check import command as check
    from mcpspy.clients import command as clients
    from mcpspy.config import command as config
    from mcpspy.demo import command as demo
    from mcpspy.drift import command as drift
    from mcpspy.playback import mock_command, replay_command
    from mcpspy.report import command as report
    from mcpspy.report import faults, rules, session_list
    from mcpspy.stats import command as stats
    from mcpspy.tui import command as tui

    return {
        "watch": Subcommand("follow a live session in the TUI", tui.add_watch_arguments, tui.run_watch),
        "view": Subcommand("open a capture in the TUI", tui.add_view_arguments, tui.run_view),
        "sessions": Subcommand("list recorded sessions", session_list.add_arguments, session_list.run),
        "report": Subcommand("findings and exchanges of a capture", report.add_arguments, report.run),
        "rules": Subcommand("the findings catalogue", rules.add_arguments, rules.run),
        "faults": Subcommand(
            "the faults --inject can make, to test a client", faults.add_arguments, faults.run
        ),
        "stats": Subcommand("calls, errors and latency across sessions", stats.add_arguments, stats.run),
        "demo": Subcommand("a planted-bug demo server behind the proxy, live", demo.add_arguments, demo.run),
        "wrap": Subcommand(
            "run one server entry of a client's MCP config through mcpspy",
            config.add_wrap_arguments,
            config.run_wrap,
        ),
        "unwrap": Subcommand(
            "restore one server entry of a client's MCP config",
            config.add_unwrap_arguments,
            config.run_unwrap,
        ),
        "mock": Subcommand(
            "a stdio MCP server that answers as a capture's server did",
            mock_command.add_arguments,
            mock_command.run,
        ),
        "replay": Subcommand(
            "play a capture's client side against a server and compare the replies",
            replay_command.add_arguments,
            replay_command.run,
        ),
        "diff": Subcommand(
            "what two sessions say about the server, compared (tools, schemas, capabilities)",
            drift.add_arguments,
            drift.run,
        ),
        "check": Subcommand(
            "test a server with a scripted client in both eras, for CI", check.add_arguments, check.run
        ),
        "mcp": Subcommand(
            "an MCP server (stdio) that hands the sessions and checks to an agent; needs mcpspy[mcp]",
            agent.add_arguments,
            agent.run,
        ),
        "completion": Subcommand(
            "a shell completion script: bash, zsh or fish",
            completion.add_arguments,
            lambda args: completion.run(args, completion.full_parser(proxy_parser(), subcommands())),
        ),
        "clients": Subcommand(
            "the client profiles: what each real client drops, with sources",
            clients.add_arguments,
            clients.run,
        ),
    }


#: The subcommands that judge a server, and so take --clients (the proxy takes it too).
JUDGING = frozenset({"report", "check", "view", "watch"})


#: The first words that name a subcommand rather than a server (tests keep it equal to subcommands()).
COMMAND_NAMES = frozenset(
    {
        "watch",
        "view",
        "sessions",
        "report",
        "rules",
        "faults",
        "demo",
        "wrap",
        "unwrap",
        "mock",
        "replay",
        "diff",
        "check",
        "stats",
        "mcp",
        "completion",
        "clients",
    }
)

DESCRIPTION = """\
mcpspy sits between an MCP client and a stdio server, forwards every byte
unchanged, and records the traffic for `mcpspy watch` and `mcpspy report`.

In a client's config:  "command": "mcpspy", "args": ["--", "node", "server.js"]
"""

EPILOG = """\
commands:
  mcpspy -- CMD ARGS...   run CMD as the server, through the proxy
  watch [SESSION]         follow the newest live session in the TUI
  view [SESSION]          open a finished capture in the TUI
  sessions                list recorded sessions
  report [FILE]           findings and exchanges (text, --json, --markdown)
  rules [ID]              the findings catalogue, or one rule explained
  faults [ID]             the faults --inject makes on purpose, to test a client
  stats [SESSION...]      calls, errors and latency per server, method and tool
  demo                    a planted-bug demo server, live in the TUI
  wrap NAME / unwrap NAME put a client's server entry through mcpspy and back
  mock CAPTURE            a server that answers as the recorded one did
  replay CAPTURE -- CMD   the recorded client against CMD; the replies compared
  diff A B                tools, prompts, resources, capabilities: what drifted
  check -- CMD ARGS...    test a server with a scripted client in both eras (for CI)
  mcp                     an MCP server for agents: sessions, findings, checks (mcpspy[mcp])
  completion SHELL        a completion script for bash, zsh or fish
  clients [NAME]          the client profiles: what each client drops, and the sources

Run `mcpspy COMMAND --help` for a command's options.
"""


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
    add_home_option(p)
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
        type=seconds,
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
        help="one line per message as it passes, to FILE or (with no FILE, or -) to stderr; "
        "never holds up forwarding: while nobody reads it, messages are skipped and counted",
    )
    p.add_argument(
        "--otlp-endpoint",
        nargs="?",
        const="",
        metavar="URL",
        help="send each exchange to an OTLP/HTTP collector as it completes "
        "(no URL: $OTEL_EXPORTER_OTLP_ENDPOINT; needs mcpspy[otel])",
    )
    p.add_argument(
        "--otlp-join",
        action="store_true",
        help="with --otlp-endpoint: a request whose _meta names its caller's span (traceparent) gets no "
        "span of mcpspy's; what mcpspy knows of it goes to that span as events (docs/export.md)",
    )
    add_clients_option(p)
    p.add_argument(
        "--inject",
        action="append",
        default=[],
        metavar="SPEC",
        help="make this fault on purpose, to test the client (repeatable): "
        "ID[@METHOD|@id=N][#N|#every|~P][:KEY=VALUE,...]; `mcpspy faults` lists them",
    )
    p.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="FILE|NAME",
        help="a list of --inject SPECs: a TOML file, or a built-in (`mcpspy faults --scenarios`)",
    )
    p.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="what --inject ID~P draws from (default: the scenario's, else 0)",
    )
    p.add_argument(
        "-v", "--verbose", action="store_true", help="say what mcpspy does on stderr (off by default)"
    )
    return p


def subcommand_parser(
    commands: dict[str, Subcommand],
) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser, and each subcommand's own (which reports that subcommand's bad options)."""
    p = argparse.ArgumentParser(prog="mcpspy", formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"mcpspy {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    parsers = {}
    for name, command in commands.items():
        parsers[name] = sub.add_parser(name, help=command.help)
        command.add_arguments(parsers[name])
        if name in JUDGING:
            add_clients_option(parsers[name])
    return p, parsers


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in COMMAND_NAMES:
            early_signals.release()
            return early_signals.pending_exit() or run_subcommand(argv)
        return run_proxy_cli(argv)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # `mcpspy report | head`: the reader has gone, which is not an error worth a traceback.
        # Point stdout at /dev/null so that the interpreter's last flush cannot fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def run_subcommand(argv: list[str]) -> int:
    """A subcommand; a crash is a bug (exit 70, with its traceback on stderr), never a finding (1)."""
    commands = subcommands()
    parser, parsers = subcommand_parser(commands)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        parsers[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    choose_from(args)
    try:
        return commands[args.command].run(args)
    except (KeyboardInterrupt, BrokenPipeError):
        raise
    except Exception:
        traceback.print_exc()
        print(f"mcpspy {args.command}: internal error (a bug in mcpspy; please report it)", file=sys.stderr)
        return EXIT_BUG


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance, cut short past ``limit``."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


#: Words people type for a subcommand they do not remember the name of (``test`` is also /usr/bin/test).
SYNONYMS = {
    "test": "check",
    "lint": "check",
    "validate": "check",
    "ls": "sessions",
    "list": "sessions",
    "show": "view",
    "open": "view",
    "tail": "watch",
    "follow": "watch",
    "explain": "rules",
}


def misspelt_subcommand(word: str) -> str | None:
    """The subcommand ``word`` was meant to be: a synonym, or within two edits of a command's name.

    A program on PATH is no excuse (``stat`` and ``test`` are programs, and running them records a
    junk session): a server whose name is near a command's is run after ``--``, as help says.
    """
    if "/" in word:
        return None
    if word in SYNONYMS:
        return SYNONYMS[word]
    distance, name = min((edit_distance(word, name, 2), name) for name in sorted(COMMAND_NAMES))
    return name if distance <= 2 else None


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
    if rest and not command and (meant := misspelt_subcommand(rest[0])) is not None:
        parser.error(
            f"{rest[0]!r} is not a command; did you mean `mcpspy {meant}`? "
            f"(to run a server by that name: mcpspy -- {rest[0]} ...)"
        )
    command = rest + command
    if not command:
        parser.error("no server command: give it after --, as in `mcpspy -- node server.js`")
    choose_from(args)
    from mcpspy.capture.redact import RedactionPolicy
    from mcpspy.capture.retention import policy_from

    try:
        retention = policy_from(args.retain)
    except ValueError as exc:
        parser.error(str(exc))
    inject: tuple[Spec, ...] = ()
    if args.inject or args.scenario:
        from mcpspy.inject.scenarios import ScenarioError, scenario_seed, specs_from
        from mcpspy.inject.spec import SpecError

        try:
            inject = specs_from(args.scenario, args.inject)
            if args.seed is None:
                args.seed = scenario_seed(args.scenario)
        except (SpecError, ScenarioError) as exc:
            return fail("mcpspy", str(exc))
    if (status := early_signals.pending_exit()) is not None:
        return status  # told to stop before the server was started
    from mcpspy.proxy.reaper import early_watchdog

    watchdog = early_watchdog()  # before the proxy's imports: it holds what mcpspy holds now
    from mcpspy.proxy.run import ProxyConfig, run

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
            otlp_endpoint=args.otlp_endpoint,
            otlp_join=args.otlp_join,
            retention=retention,
            inject=inject,
            seed=args.seed or 0,
        ),
        watchdog,
    )
