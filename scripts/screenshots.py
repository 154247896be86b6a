"""Render the README's screenshots from fixture captures: `python scripts/screenshots.py`.

Writes SVG into screenshots/, and PNG beside it when rsvg-convert is there
(`apt-get install librsvg2-bin`). Remake them after every UI change.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from mcpspy.tui.app import InspectorApp  # noqa: E402

SHOTS = [
    # (file name, fixture, keys to press first, terminal size)
    ("glued-ready", "lesson-ready-glued", ["G"], (120, 34)),
    ("out-of-order", "lesson-out-of-order", ["g", "p"], (120, 34)),
    ("findings", "meta-not-rejected", ["2", "tab"], (100, 30)),
    ("plain-80x24", "clean-modern", ["g"], (80, 24)),
    ("timeline-80x24", "lesson-out-of-order", ["5"], (80, 24)),
    ("whole-message", "lesson-ready-glued", ["G", "v"], (100, 24)),
    ("findings-120x35", "meta-not-rejected", ["2"], (120, 35)),
    ("follow-exchange", "lesson-cancelled", ["g", "x"], (100, 30)),
    ("search", "clean-progress", ["g", "ctrl+f", *"export", "enter", "n"], (120, 30)),
]


async def shoot(name: str, fixture: str, keys: list[str], size: tuple[int, int], out: Path) -> Path:
    app = InspectorApp(REPO / "fixtures" / f"{fixture}.jsonl", live=False)
    async with app.run_test(size=size) as pilot:
        for _ in range(100):
            if app.loaded:
                break
            await pilot.pause(0.05)
        await pilot.pause(0.2)
        for key in keys:
            await pilot.press(key)
        await pilot.pause(0.2)
        app.clear_notifications()
        await pilot.pause(0.1)
        return Path(app.save_screenshot(filename=f"{name}.svg", path=str(out)))


def html_shot(fixture: str, fragment: str, out: Path) -> Path | None:
    """The HTML report of a fixture as headless Chromium draws it (skipped without chromium)."""
    from mcpspy.model.summary import build_summary
    from mcpspy.replay_policy import open_capture
    from mcpspy.report.html import render_html
    from tests.export.browser import chromium, run_chromium

    if chromium() is None:
        return None
    path = REPO / "fixtures" / f"{fixture}.jsonl"
    page = out / "html-report.html"
    opened = open_capture(path)
    capture, analyzer = opened.capture, opened.analyzer
    page.write_text(render_html(build_summary(capture, path, analyzer)), encoding="utf-8")
    shot = out / "html-report.png"
    run_chromium(
        page, f"--screenshot={shot}", "--window-size=1100,1400", "--hide-scrollbars", fragment=fragment
    )
    page.unlink()
    return shot


def main() -> int:
    out = REPO / "screenshots"
    out.mkdir(exist_ok=True)
    for name, fixture, keys, size in SHOTS:
        svg = asyncio.run(shoot(name, fixture, keys, size, out))
        print(svg.relative_to(REPO))
        converter = shutil.which("rsvg-convert")
        if converter:
            subprocess.run([converter, str(svg), "-o", str(svg.with_suffix(".png"))], check=False)
    if (shot := html_shot("lesson-ready-glued", "", out)) is not None:
        print(shot.relative_to(REPO))
    return 0


if __name__ == "__main__":
    sys.exit(main())
