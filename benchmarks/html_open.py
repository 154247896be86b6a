"""How long the HTML report of a big capture takes to render and to open in Chromium.

    python benchmarks/html_open.py [--messages N] [--runs R]

Renders the report of an N-message capture (tools/call exchanges, some
failing), then opens it R times in headless Chromium. The page's script
stamps ``data-ready`` on <html> with ``performance.now()`` once the whole
page is parsed and the filter has run: that is the open time reported (the
median), beside the wall time of the Chromium run and the file's size.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mcpspy.model.summary import build_summary  # noqa: E402
from mcpspy.replay_policy import open_capture  # noqa: E402
from mcpspy.report.html import render_html  # noqa: E402
from tests.export.browser import chromium, dump_dom  # noqa: E402
from tests.export.synthetic import big_capture  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if chromium() is None:
        print(json.dumps({"skipped": "chromium is not installed"}))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        capture_path = big_capture(Path(tmp) / "big.jsonl", args.messages)
        start = time.perf_counter()
        opened = open_capture(capture_path)
        capture, analyzer = opened.capture, opened.analyzer
        html = render_html(build_summary(capture, capture_path, analyzer))
        render_s = time.perf_counter() - start
        page = Path(tmp) / "big.html"
        page.write_text(html, encoding="utf-8")
        ready, wall = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            dom = dump_dom(page)
            wall.append(time.perf_counter() - start)
            stamp = re.search(r'data-ready="(\d+)"', dom)
            ready.append(int(stamp.group(1)) if stamp else -1)
    print(
        json.dumps(
            {
                "messages": args.messages,
                "html_bytes": len(html.encode()),
                "render_s": round(render_s, 3),
                "open_ms_median": statistics.median(ready),
                "open_ms_all": ready,
                "chromium_wall_s_median": round(statistics.median(wall), 2),
                "load_average": os.getloadavg()[0],
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
