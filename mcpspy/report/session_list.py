"""`mcpspy sessions`: every recorded session, with its messages and findings by severity."""

from __future__ import annotations

import argparse
import re
import sys

import orjson

from mcpspy.capture.private import CaptureRefused
from mcpspy.capture.retention import ENV, RetentionPolicy, parse_age, policy_from, prune, pruned_text
from mcpspy.capture.sessions import list_sessions, search_dirs
from mcpspy.exit_codes import fail
from mcpspy.model.session_counts import count_sessions, session_json, session_line
from mcpspy.options import add_home_option
from mcpspy.terminal import visible_line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_home_option(parser)
    parser.add_argument("--json", action="store_true", help="machine-readable listing")
    parser.add_argument("--prune", action="store_true", help="delete old captures (never a live one)")
    parser.add_argument("--older-than", metavar="AGE", help="with --prune: captures older than AGE (30d)")
    parser.add_argument("--keep", type=int, metavar="N", help="with --prune: all but the newest N")
    parser.add_argument("--complete", action="store_true", help=argparse.SUPPRESS)  # for shell completion


#: What a completion word may hold: bash's compgen -W expands its words ($(...), `...`, ~), so a name
#: from a capture (anybody's file in the sessions dir) is offered only when it is plain.
COMPLETION_WORD = re.compile(r"[A-Za-z0-9._:@+-]+")


def complete_words(args: argparse.Namespace) -> int:
    """Session ids and names, one a line, for the shell's Tab (a name only when it is a plain word)."""
    words: dict[str, None] = {}
    for s in reversed(list_sessions(search_dirs(args.home))):
        for word in (s.session, s.header.name):
            if COMPLETION_WORD.fullmatch(word):
                words[word] = None
    sys.stdout.write("".join(f"{word}\n" for word in words))
    return 0


def run(args: argparse.Namespace) -> int:
    """Each session: started, live or ended, messages and findings by severity, name, command, path."""
    if args.prune:
        return prune_sessions(args)
    if args.complete:
        return complete_words(args)
    problems: list[str] = []
    dirs = search_dirs(args.home)
    counted = count_sessions(list_sessions(dirs, problems), dirs[0] if dirs else None)
    for problem in problems:  # a file that is not a capture: one line each, the others still listed
        print(f"mcpspy sessions: skipped {visible_line(problem)}", file=sys.stderr)
    if args.json:
        sys.stdout.write(
            orjson.dumps([session_json(s) for s in counted], option=orjson.OPT_INDENT_2).decode()
        )
        sys.stdout.write("\n")
        return 0
    if not counted:
        print(f"no sessions in {', '.join(visible_line(str(d)) for d in search_dirs(args.home))}")
        return 0
    for s in counted:
        print(f"{session_line(s)}  {visible_line(str(s.info.path))}")
    return 0


def prune_sessions(args: argparse.Namespace) -> int:
    """`mcpspy sessions --prune [--older-than AGE] [--keep N]`: without either, the retention policy."""
    try:
        if args.older_than is None and args.keep is None:
            policy = policy_from(None)
            if policy.forever:
                print(f"{ENV} keeps captures forever: nothing pruned (give --older-than or --keep)")
                return 0
        else:
            age = parse_age(args.older_than) if args.older_than is not None else None
            policy = RetentionPolicy(max_age=age, keep=args.keep)
    except ValueError as exc:
        return fail("mcpspy sessions", str(exc))
    status = 0
    for directory in search_dirs(args.home):
        try:
            result = prune(directory, policy)
        except (CaptureRefused, OSError) as exc:
            print(f"mcpspy sessions: not pruning: {exc}", file=sys.stderr)
            status = 2
            continue
        print(pruned_text(result))
        for problem in result.problems:
            print(f"mcpspy sessions: {visible_line(problem)}", file=sys.stderr)
    return status
