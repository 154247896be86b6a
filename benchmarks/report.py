"""Turn one run's results into the printed table and BENCHMARKS.md's section."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

START, END = "<!-- results:start -->", "<!-- results:end -->"


def _fmt(value: Any, spec: str) -> str:
    if isinstance(value, bool) or value is None:
        return "-" if value is None else ("yes" if value else "NO")
    if isinstance(value, (int, float)):
        return format(value, spec)
    return str(value)


NOTE_LIMIT = 300  # the full text stays in latest.json


def _note(figure: dict[str, Any]) -> str:
    for key in ("skipped", "error", "note"):
        if key in figure:
            text = f"{key}: {figure[key]}"
            return text if len(text) <= NOTE_LIMIT else text[: NOTE_LIMIT - 3] + "..."
    return ""


def rows(results: dict[str, Any]) -> list[list[str]]:
    """One row per shim: latency, throughput, the big line, and ratios against bare."""
    table = [["shim", "p50 us", "p99 us", "+p50 us", "+p99 us", "msg/s", "big line s", "p50/bare", "p99/bare",
              "added p50/bare", "added p99/bare", "msg/s /bare", "big line /cat",
              "big line /socat"]]  # fmt: skip
    shims = [*results["latency"], *("direct" if n == "cat" else n for n in results["big_line"])]
    for name in dict.fromkeys(shims):  # every shim measured, in order (a run may skip steps: --only)
        lat = results["latency"].get(name, {})
        thr = results["throughput"].get(name, {})
        big = results["big_line"].get("cat" if name == "direct" else name, {})
        r = results["ratios"].get(name, {})
        table.append([
            name, _fmt(lat.get("p50_us"), ".0f"), _fmt(lat.get("p99_us"), ".0f"),
            _fmt(r.get("added_p50_us"), ".0f"), _fmt(r.get("added_p99_us"), ".0f"),
            _fmt(thr.get("messages_per_s"), ",.0f"), _fmt(big.get("seconds"), ".3f"),
            _fmt(r.get("latency_p50"), ".2f"), _fmt(r.get("latency_p99"), ".2f"),
            _fmt(r.get("added_latency_p50"), ".2f"), _fmt(r.get("added_latency_p99"), ".2f"),
            _fmt(r.get("throughput"), ".2f"), _fmt(r.get("big_line_vs_cat"), ".2f"),
            _fmt(r.get("big_line_vs_socat"), ".2f"),
        ])  # fmt: skip
    return table


def notes(results: dict[str, Any]) -> list[str]:
    lines = []
    for key in ("latency", "throughput", "big_line"):
        for name, figure in results[key].items():
            if note := _note(figure):
                lines.append(f"{key} / {name}: {note}")
    return lines


def extras(results: dict[str, Any]) -> list[str]:
    mem, ana, tui = results["memory"], results["analysis"], results["tui"]
    lines = []
    if "rss_peak_mib" in mem:
        lines.append(
            f"mcpspy RSS over {mem['messages']:,} messages: start {mem['rss_start_mib']:.1f} MiB, "
            f"after 10% {mem['rss_at_10pct_mib']:.1f} MiB, peak {mem['rss_peak_mib']:.1f} MiB "
            f"({mem['rss_samples']} samples; flat: {_fmt(mem.get('flat'), '')}; "
            f"{mem['messages_per_s']:,.0f} msg/s); peak RSS by tenth of the run (MiB): "
            + " ".join("-" if v is None else f"{v:g}" for v in mem.get("rss_by_tenth_mib", []))
        )
    else:
        lines.append(f"mcpspy RSS: {_note(mem)}")
    if "messages_per_s" in ana:
        lines.append(
            f"analysis alone: {ana['messages']:,} messages fed in {ana['feed_seconds']:.2f} s = "
            f"{ana['messages_per_s']:,.0f} msg/s; open_capture (read + analyse) "
            f"{ana['replay_seconds']:.2f} s "
            f"= {ana['replay_messages_per_s']:,.0f} msg/s"
        )
    else:
        lines.append(f"analysis alone: {_note(ana)}")
    if "seconds" in tui:
        lines.append(
            f"TUI opens a {tui['messages']:,}-message capture: every message listed in "
            f"{tui['listed_seconds']:.2f} s, analysed in {tui['seconds']:.2f} s "
            f"(first rows after {tui['first_rows_seconds']:.2f} s)"
        )
    else:
        lines.append(f"TUI open time: {_note(tui)}")
    otlp = results.get("otlp", {})
    if "median" in otlp:
        median = otlp["median"]
        shown = [
            f"{what} {median[name]['p50_us']:.0f}/{median[name]['p99_us']:.0f} us"
            + (
                f" ({median[name]['x_none']['p50_us']:.2f}x/{median[name]['x_none']['p99_us']:.2f}x)"
                if "x_none" in median[name]
                else ""
            )
            for name, what in (("none", "no sink"), ("live", "live collector"), ("dead", "dead collector"))
        ]
        lines.append(
            f"live OTLP (`benchmarks/otlp_latency.py`, {otlp['requests']:,} sequential requests x "
            f"{otlp['rounds']} interleaved rounds), p50/p99 (the median of each round's ratio to no sink): "
            + "; ".join(shown)
        )
    elif "otlp" in results:
        lines.append(f"live OTLP: {_note(otlp)}")
    sinks = results.get("sinks", {})
    if "median" in sinks:
        runs = sinks["runs"]
        shown = [
            f"{what} {run['peak_total_mib']:.1f} MiB in all (PSS {run['peak_total_pss_mib']:.1f}; "
            + ", ".join(f"{role} {mib:g}" for role, mib in run["peak_by_process_mib"].items())
            + f"; {run['records_skipped']:,} records skipped by the sink)"
            for shape, what in (("log", "`--log`"), ("otlp", "live OTLP sink"))
            for run in runs.get(shape, [])[:1]
        ]
        lines.append(
            f"memory of mcpspy and every process it starts (`benchmarks/sink_load.py`, "
            f"{sinks['requests_each_way']:,} requests each way never answered, sampled every 20 ms): "
            + "; ".join(shown)
        )
    elif "sinks" in results:
        lines.append(f"sinks' memory: {_note(sinks)}")
    for target, ok in results["targets"].items():
        lines.append(f"target {target}: {_fmt(ok, '')}")
    return lines


def machine_line(results: dict[str, Any]) -> str:
    m = results["machine"]
    return (
        f"{results['mode']} run, {m['date_utc']}: {m['nproc']} CPUs ({m['cpu']}), Python {m['python']}, "
        f"{m['platform']}, load average {m['load_avg_at_start']:.2f} at start"
    )


def render_table(results: dict[str, Any]) -> str:
    table = rows(results)
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = [machine_line(results)]
    for row in table:
        lines.append(
            "  ".join(
                cell.rjust(w) if i else cell.ljust(w)
                for i, (cell, w) in enumerate(zip(row, widths, strict=True))
            )
        )
    return "\n".join([*lines, *extras(results), *notes(results)])


def render_markdown(results: dict[str, Any]) -> str:
    table = rows(results)
    sizes = results["sizes"]
    lines = [
        f"Machine: {machine_line(results)}.",
        "",
        f"Latency: {sizes['latency_requests']:,} sequential requests, median of {sizes['latency_rounds']} "
        f"interleaved rounds. Throughput: {sizes['throughput_messages']:,} requests pipelined, all answers "
        f"read back. Big line: one {sizes['big_line_bytes'] // 2**20} MiB line through `cat`.",
        "",
        "| " + " | ".join(table[0]) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(table[0]))) + "|",
        *("| " + " | ".join(row) + " |" for row in table[1:]),
        "",
        *(f"- {line}" for line in extras(results)),
        *(f"- {line}" for line in notes(results)),
    ]
    return "\n".join(lines)


def update_benchmarks_md(path: Path, section: str) -> None:
    """Replace the text between the results markers (or append them) with the new section."""
    block = f"{START}\n{section}\n{END}"
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    if START in text and END in text:
        text = re.sub(re.escape(START) + r".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text)
