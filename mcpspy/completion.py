"""`mcpspy completion SHELL`: a completion script for bash, zsh or fish, made from the argument parser.

bash and zsh come from shtab (the parser walked, nothing written by hand); shtab knows no fish, so
fish's ``complete`` lines are made here from the same parser. Every argument that names a session
(``report``, ``view``, ``watch``, ``replay``, ...) completes to the ids and names of the recorded
sessions, asked of ``mcpspy sessions --complete`` as the user presses Tab.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Protocol

SHELLS = ("bash", "zsh", "fish")

#: The positionals that take a session id, name or capture path, by subcommand.
SESSION_ARGUMENTS = {
    "view": ("file",),
    "watch": ("session",),
    "report": ("file",),
    "replay": ("capture",),
    "mock": ("capture",),
    "diff": ("sessions",),
    "stats": ("captures",),
}

SESSIONS_COMMAND = "mcpspy sessions --complete 2>/dev/null"
PREAMBLE = {
    "bash": f'_mcpspy_sessions() {{ compgen -W "$({SESSIONS_COMMAND})" -- "$1"; compgen -f -- "$1"; }}',
    "zsh": (
        "_mcpspy_sessions() {\n"
        f'  local -a sessions; sessions=(${{(f)"$({SESSIONS_COMMAND})"}})\n'
        "  compadd -a sessions; _files\n"
        "}"
    ),
}


class Command(Protocol):
    """What this module needs of cli.py's ``Subcommand``."""

    @property
    def help(self) -> str: ...

    @property
    def add_arguments(self) -> Callable[[argparse.ArgumentParser], None]: ...


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete for")
    parser.epilog = (
        "bash: source <(mcpspy completion bash)\n"
        "zsh:  mcpspy completion zsh > ~/.zfunc/_mcpspy  (with ~/.zfunc in fpath, before compinit)\n"
        "fish: mcpspy completion fish > ~/.config/fish/completions/mcpspy.fish"
    )
    parser.formatter_class = argparse.RawDescriptionHelpFormatter


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Print the script for ``parser`` (cli.py's whole parser: this module does not import cli)."""
    sys.stdout.write(script(args.shell, parser))
    return 0


def full_parser(
    parser: argparse.ArgumentParser, subcommands: Mapping[str, Command]
) -> argparse.ArgumentParser:
    """The proxy's options (``parser``) and every subcommand in one parser: the shape a user types."""
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, command in subcommands.items():
        child = sub.add_parser(name, help=command.help)
        command.add_arguments(child)
        for action in child._actions:
            if action.dest in SESSION_ARGUMENTS.get(name, ()):
                action.complete = {"bash": "_mcpspy_sessions", "zsh": "_mcpspy_sessions"}  # type: ignore[attr-defined]
    return parser


def script(shell: str, parser: argparse.ArgumentParser) -> str:
    if shell == "fish":
        return "\n".join(fish_lines(parser)) + "\n"
    import shtab

    # shtab takes a dict of shell to preamble (its docs say so), though its annotation says str
    return shtab.complete(parser, shell=shell, root_prefix="_mcpspy", preamble=PREAMBLE)  # type: ignore[arg-type]


def fish_lines(parser: argparse.ArgumentParser) -> Iterator[str]:
    """fish's ``complete`` commands for the top-level options, the subcommands and their options."""
    yield "# mcpspy completion for fish, made by `mcpspy completion fish`"
    yield "complete -c mcpspy -f"
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    names = " ".join(subparsers.choices)
    top = f"not __fish_seen_subcommand_from {names}; and not __fish_seen_argument -l ''"
    for action in parser._actions:
        yield from fish_option(action, "__fish_use_subcommand")
    helps = {choice.dest: choice.help for choice in subparsers._choices_actions}
    for name in subparsers.choices:
        yield f"complete -c mcpspy -n {shlex.quote(top)} -a {name} -d {shlex.quote(helps.get(name) or '')}"
    for name, child in subparsers.choices.items():
        seen = f"__fish_seen_subcommand_from {name}"
        for action in child._actions:
            yield from fish_option(action, seen)
            if action.dest in SESSION_ARGUMENTS.get(name, ()):
                sessions = shlex.quote(f"({SESSIONS_COMMAND})")
                yield f"complete -c mcpspy -n {shlex.quote(seen)} -F -a {sessions}"
            elif not action.option_strings and action.choices:
                values = shlex.quote(" ".join(str(c) for c in action.choices))
                yield f"complete -c mcpspy -n {shlex.quote(seen)} -a {values}"


def fish_option(action: argparse.Action, condition: str) -> Iterator[str]:
    if not action.option_strings or action.help == argparse.SUPPRESS:
        return
    parts = ["complete", "-c", "mcpspy", "-n", shlex.quote(condition)]
    for option in action.option_strings:
        if option.startswith("--"):
            parts += ["-l", option[2:]]
        elif len(option) == 2:
            parts += ["-s", option[1]]
    if action.nargs != 0:
        parts.append("-r")
        if action.choices:
            parts += ["-a", shlex.quote(" ".join(str(c) for c in action.choices))]
        else:
            parts.append("-F")
    if action.help:
        parts += ["-d", shlex.quote(action.help.split(";")[0].split(" (")[0])]
    yield " ".join(parts)
