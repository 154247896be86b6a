"""How real MCP clients take each server->client fault: runs them under --inject, writes docs/clients.md.

    python scripts/client_matrix.py [--clients py-sdk,ts-sdk,ts-sdk-v2,claude-code,codex]
                                    [--jobs N]
                                    [--faults ID,...] [--runs 3] [--out docs/clients.md] [--json FILE]

Each client the test suite drives (tests/clients/) is run against the
suite's Python SDK server (tests/clients/servers/py_server.py) through
``mcpspy --inject FAULT@tools/list``, once per server->client fault of the
catalogue, in a fresh sessions directory, with no network: the SDK clients
by the fault drivers (tests/clients/py_fault_client.py, ts_fault_client.mjs, with
``--v2`` for the SDK v2: a few tool calls and tool lists, each bounded at 3 s), Claude Code by
``claude mcp list`` (it connects, lists the tools, reports Connected or not),
Codex by ``codex exec`` stopped once it has listed the tools or after
``CLI_WAIT`` seconds. The reaction is the report's (``inject/reactions.py``),
read from the capture alone; the CLIs' own verdict is added beside it. Each
cell is run ``--runs`` times (3): the reaction most runs saw is the cell's,
and runs that differ are said beside it, so no cell is one run's luck. Needs
the npm clients (``bash .ci/clients/install.sh``).
"""

from __future__ import annotations

import argparse
import collections
import datetime
import importlib.metadata
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mcpspy.capture.reader import read_capture  # noqa: E402
from mcpspy.inject.catalogue import FAULT_LIST  # noqa: E402
from mcpspy.inject.reactions import reactions  # noqa: E402

CLIENTS_DIR = REPO / "tests" / "clients"
NODE_MODULES = REPO / ".ci" / "clients" / "node_modules"
BIN = NODE_MODULES / ".bin"
SERVER = [sys.executable, str(CLIENTS_DIR / "servers" / "py_server.py")]
TARGET = "@tools/list"  # every client lists the tools early; the CLIs do little else without a network
RUN_TIMEOUT = 90.0
CLI_WAIT = 20.0
SDK_CALLS = 6  # the third is the first tools/list
STOPPED = "stopped by the script"  # codex exec never ends by itself here: its closing stdin is ours

Outcome = tuple[str, str]  # (reaction, note)
Run = tuple[str, str, str]  # (reaction, note, the client's own verdict): one run of a cell
RUNS = 3


def spy(home: Path, spec: str) -> list[str]:
    return [sys.executable, "-m", "mcpspy", "--home", str(home), "--inject", spec, "--", *SERVER]


def wrapper_bin(scratch: Path) -> Path:
    """A `mcpspy` on PATH that runs this checkout, as a client's config names it."""
    bin_dir = scratch / "bin"
    bin_dir.mkdir(exist_ok=True)
    wrapper = bin_dir / "mcpspy"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m mcpspy "$@"\n')
    wrapper.chmod(0o755)
    return bin_dir


def cli_env(scratch: Path) -> dict[str, str]:
    home = scratch / "home"
    home.mkdir(exist_ok=True)
    path = f"{wrapper_bin(scratch)}:{BIN}:{Path(sys.executable).parent}:{os.environ['PATH']}"
    return {
        "HOME": str(home),
        "PATH": path,
        "CI": "true",
        "TERM": "dumb",
        "CODEX_HOME": str(scratch / "codex"),
    }


def run_sdk(driver: list[str]) -> Callable[[Path, str, Path], str]:
    def run(home: Path, spec: str, scratch: Path) -> str:
        command = [*driver, str(SDK_CALLS), "add", json.dumps({"a": 2, "b": 3}), "--", *spy(home, spec)]
        done = subprocess.run(command, capture_output=True, timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL)
        outcomes = [json.loads(line) for line in done.stdout.splitlines() if line.startswith(b"{")]
        ok = sum(1 for o in outcomes if o.get("outcome") == "ok")
        return f"{ok}/{SDK_CALLS} calls ok"

    return run


def run_claude(home: Path, spec: str, scratch: Path) -> str:
    env = cli_env(scratch)
    add_spied_server("claude", home, spec, env)
    listed = subprocess.run(
        ["claude", "mcp", "list"],
        capture_output=True,
        env=env,
        timeout=RUN_TIMEOUT,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    line = next((x for x in listed.stdout.splitlines() if x.startswith("spied")), "")
    return "Connected" if "Connected" in line else (line.split("-")[-1].strip() or "not listed")


def add_spied_server(cli: str, home: Path, spec: str, env: dict[str, str]) -> None:
    """`CLI mcp add spied -- mcpspy --inject SPEC -- SERVER`: the server under test, for either CLI."""
    subprocess.run(
        [cli, "mcp", "add", "spied", "--", "mcpspy", "--home", str(home), "--inject", spec, "--", *SERVER],
        capture_output=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=True,
    )


def run_codex(home: Path, spec: str, scratch: Path) -> str:
    env = cli_env(scratch)
    Path(env["CODEX_HOME"]).mkdir(exist_ok=True)
    add_spied_server("codex", home, spec, env)
    codex = subprocess.Popen(
        ["codex", "exec", "--skip-git-repo-check", "say hi"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=scratch,
        start_new_session=True,
    )
    listed = False
    try:
        deadline = time.monotonic() + CLI_WAIT
        while time.monotonic() < deadline and codex.poll() is None:
            if _tools_answered(home):
                listed = True
                time.sleep(3.0)  # let it react to what it got
                break
            time.sleep(0.2)
    finally:
        try:
            os.killpg(codex.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        codex.wait(timeout=10)
    return STOPPED + (": tools listed" if listed else f" after {CLI_WAIT:g} s, no tools listed")


def _tools_answered(home: Path) -> bool:
    """Whether a line the client received holds a tools list (not the initialize result's capability,
    nor an injected record's copy of one)."""
    for path in home.glob("*.jsonl"):
        try:
            lines = path.read_bytes().splitlines()
        except OSError:
            continue
        if any(b'"stream":"s2c"' in line and b'\\"tools\\":[' in line for line in lines):
            return True
    return False


def reaction_of(home: Path, fault: str) -> Outcome:
    """The reaction to ``fault`` in the first session it struck (a client may start several);
    quiet or gave up there, and a session after it: restarted."""
    paths = sorted(home.glob("*.jsonl"), key=lambda p: p.stat().st_mtime)
    for index, path in enumerate(paths):
        try:
            records = read_capture(path).records
        except (OSError, ValueError):
            continue
        found = [r.reaction for r in reactions(records) if r.injection.fault == fault]
        if found:
            note = f"{len(paths)} sessions" if len(paths) > 1 else ""
            if found[0] in ("quiet", "gave-up") and index + 1 < len(paths):
                return "restarted", note
            return found[0], note
    return "not struck", f"{len(paths)} session(s)"


def versions() -> dict[str, str]:
    def npm(package: str) -> str:
        try:
            return json.loads((NODE_MODULES / package / "package.json").read_text())["version"]
        except (OSError, KeyError, ValueError):
            return "not installed"

    return {
        "py-sdk": f"mcp {importlib.metadata.version('mcp')} (PyPI)",
        "ts-sdk": f"@modelcontextprotocol/sdk {npm('@modelcontextprotocol/sdk')}",
        "ts-sdk-v2": f"@modelcontextprotocol/client {npm('@modelcontextprotocol/client')} (SDK v2)",
        "claude-code": f"@anthropic-ai/claude-code {npm('@anthropic-ai/claude-code')}",
        "codex": f"@openai/codex {npm('@openai/codex')}",
    }


CLIENTS: dict[str, Callable[[Path, str, Path], str]] = {
    "py-sdk": run_sdk([sys.executable, str(CLIENTS_DIR / "py_fault_client.py")]),
    "ts-sdk": run_sdk(["node", str(CLIENTS_DIR / "ts_fault_client.mjs")]),
    "ts-sdk-v2": run_sdk(["node", str(CLIENTS_DIR / "ts_fault_client.mjs"), "--v2"]),
    "claude-code": run_claude,
    "codex": run_codex,
}


def render(results: dict[str, dict[str, list[Run]]], clients: list[str], faults: list[str], jobs: int) -> str:
    today = datetime.date.today().isoformat()
    v = versions()
    head = "| fault | " + " | ".join(clients) + " |"
    rule = "|---|" + "---|" * len(clients)
    rows = []
    for fault in faults:
        rows.append(f"| `{fault}` | " + " | ".join(cell(results[client][fault]) for client in clients) + " |")
    runs = max((len(r) for cells in results.values() for r in cells.values()), default=1)
    return f"""# How real MCP clients take each fault

Generated by `python scripts/client_matrix.py` on {today} ({platform.system()} {platform.machine()},
Python {platform.python_version()}, Node {_node_version()}). Do not edit by hand: run the script.

Clients:

{chr(10).join(f"- **{c}**: {v[c]}" for c in clients)}

Each cell is what the client did right after the fault, read from the wire
alone (`mcpspy report --json`'s `reaction`, the vocabulary of [inject.md](inject.md)):
**carried-on** (its next request), **cancelled** the
request, **retried** it before a whole reply reached it, **answered** or
**wrong-reply** to a request of the server's, **ignored** it, **quiet** (sent
nothing more), **gave-up** (closed stdin), **restarted** (a new session of the
same command followed). In brackets: the client's own verdict (SDK drivers:
calls that succeeded; Claude Code: `claude mcp list`'s status; Codex: whether
it listed the tools) and how many sessions it started. **not struck**: the
client never asked for what the fault strikes at (the SPEC never matched).

## Method

- The server is the suite's Python SDK server (`tests/clients/servers/py_server.py`, one tool, `add`),
  run as `mcpspy --home DIR --inject 'FAULT{TARGET}' -- python py_server.py`: each fault strikes at
  the server's first reply to `tools/list` (a fault that inserts goes just before it; a crash
  kills the server as that request reaches it), once.
- The SDK clients are the fault drivers in `tests/clients/`: initialize, then {SDK_CALLS} requests
  (`tools/call add` twice, `tools/list` once, in turn), each bounded at 3 s, going on after a failure.
  The Python SDK lists the tools itself inside its first `tools/call` (it checks the result against
  the tool's output schema), so in the py-sdk column the fault strikes that first call.
- Claude Code: `claude mcp add spied -- mcpspy ...`, then `claude mcp list` (connects, lists the tools).
{_codex_method(clients)}
- Every run gets a fresh HOME and sessions directory and no network. {runs} run(s) per cell: the
  reaction most runs saw is the cell's; when runs differ, the others follow with how many runs saw
  them (a timing fault, a delay or a drip, can land differently from run to run). Runs went
  {jobs} at a time on {os.cpu_count()} CPU(s).

## Server -> client faults

{head}
{rule}
{chr(10).join(rows)}
"""


def cell(runs: list[Run]) -> str:
    """The reaction most runs saw, in bold, with its verdicts; the other reactions and their counts."""
    counts = collections.Counter(reaction for reaction, _, _ in runs)
    first, _ = counts.most_common(1)[0]
    extras = list(
        dict.fromkeys(x for reaction, note, own in runs if reaction == first for x in (own, note) if x)
    )
    text = f"**{first}**" + (f" ({'; '.join(extras)})" if extras else "")
    if len(runs) > 1:
        text += f" {counts[first]}/{len(runs)}"
    others = [
        f"{reaction} {count}/{len(runs)}" for reaction, count in counts.most_common() if reaction != first
    ]
    return text + (f", {', '.join(others)}" if others else "")


def missing_packages(clients: list[str]) -> list[str]:
    """The npm packages the chosen clients need and node_modules lacks."""
    needs = {
        "ts-sdk": "@modelcontextprotocol/sdk",
        "ts-sdk-v2": "@modelcontextprotocol/client",
        "claude-code": "@anthropic-ai/claude-code",
        "codex": "@openai/codex",
    }
    return [
        needs[c] for c in clients if c in needs and not (NODE_MODULES / needs[c] / "package.json").exists()
    ]


def _codex_method(clients: list[str]) -> str:
    if "codex" not in clients:
        return "- Codex (`--clients codex`) was not run for this table."
    return (
        "- Codex: `codex mcp add spied -- mcpspy ...`, then `codex exec` (starts its MCP servers and\n"
        "  lists their tools before it reaches for the network), stopped 3 s after a tools list reached\n"
        f"  it (a line it received holds one, even cut or glued), or after {CLI_WAIT:g} s: its reaction\n"
        "  is what it did before it was stopped, so quiet is the common case."
    )


def _node_version() -> str:
    node = shutil.which("node")
    if node is None:
        return "none"
    return subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()


def run_once(client: str, fault: str) -> Run:
    """One run of a cell, in a fresh scratch directory."""
    scratch = Path(tempfile.mkdtemp(prefix="mcpspy-matrix-"))
    home = scratch / "sessions"
    home.mkdir(mode=0o700)
    try:
        own = CLIENTS[client](home, fault + TARGET, scratch)
    except subprocess.TimeoutExpired:
        own = f"timed out after {RUN_TIMEOUT:g} s"
    except subprocess.CalledProcessError as exc:
        own = f"could not be set up (exit {exc.returncode})"
    reaction, note = reaction_of(home, fault)
    if reaction == "gave-up" and own.startswith(STOPPED):
        reaction = "quiet"  # it was still waiting when the script stopped it
    print(f"{fault:<28} {client:<12} {reaction:<11} {own} {note}", file=sys.stderr, flush=True)
    shutil.rmtree(scratch, ignore_errors=True)
    return reaction, note, own


def earlier_runs(cell: list[object]) -> list[Run]:
    """A cell of an earlier --json: a list of runs, or (before --runs) one run."""
    if cell and isinstance(cell[0], str):
        cell = [cell]
    return [(str(r[0]), str(r[1]), str(r[2])) for r in cell if isinstance(r, list) and len(r) == 3]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--clients", default=",".join(CLIENTS), help="comma-separated, of: " + ", ".join(CLIENTS)
    )
    parser.add_argument(
        "--faults",
        help="comma-separated fault ids (default: every server->client fault; '' with --update: "
        "run nothing, only write the table again)",
    )
    parser.add_argument("--runs", type=int, default=RUNS, help=f"runs of each cell (default {RUNS})")
    parser.add_argument(
        "--jobs", type=int, default=1, help="runs at once (default 1; each run has its own HOME and sessions)"
    )
    parser.add_argument("--out", default=str(REPO / "docs" / "clients.md"))
    parser.add_argument("--json", metavar="FILE", help="also write the raw results here")
    parser.add_argument(
        "--update",
        metavar="FILE",
        help="start from an earlier run's --json results: only the cells asked for are run again",
    )
    args = parser.parse_args()
    clients = args.clients.split(",")
    unknown = [c for c in clients if c not in CLIENTS]
    if unknown:
        parser.error(f"unknown client {unknown[0]!r} (known: {', '.join(CLIENTS)})")
    if missing := missing_packages(clients):
        parser.error(f"{missing[0]} is not installed: run bash .ci/clients/install.sh")
    if args.faults is None:
        faults = [f.id for f in FAULT_LIST if f.direction == "s2c"]
    else:
        faults = [f for f in args.faults.split(",") if f]
        known = {f.id for f in FAULT_LIST if f.direction == "s2c"}
        if unknown_faults := [f for f in faults if f not in known]:
            parser.error(f"unknown server->client fault {unknown_faults[0]!r} (see: mcpspy faults)")
    results: dict[str, dict[str, list[Run]]] = {c: {} for c in clients}
    if args.update:
        earlier = json.loads(Path(args.update).read_text(encoding="utf-8"))
        results = {c: {f: earlier_runs(cell) for f, cell in cells.items()} for c, cells in earlier.items()}
        for client in clients:
            results.setdefault(client, {})
    cells = [(client, fault) for fault in faults for client in clients]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        runs = {cell: [pool.submit(run_once, *cell) for _ in range(args.runs)] for cell in cells}
        for (client, fault), futures in runs.items():
            results[client][fault] = [future.result() for future in futures]
    shown_clients = [c for c in CLIENTS if c in results]
    shown_faults = [f.id for f in FAULT_LIST if all(f.id in results[c] for c in shown_clients)]
    Path(args.out).write_text(
        render(results, shown_clients, shown_faults, max(1, args.jobs)), encoding="utf-8"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
