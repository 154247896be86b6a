"""`check --badge FILE`: a small SVG a server's README can show, "mcp check | passing" or "N failing".

The badge says only counts and fixed words: nothing a server wrote reaches the SVG. Widths come
from a fixed per-character estimate (Verdana 11px, as the shields badges use), so the file is the
same on every machine.
"""

from __future__ import annotations

from mcpspy.check.model import CheckRun, Status

LABEL = "mcp check"
PASSING = "#2e7d32"
WARNING = "#b26a00"
FAILING = "#c62828"
CHAR_WIDTH = 7  # px a character at 11px Verdana, rounded up
PADDING = 10


def badge_text(run: CheckRun) -> tuple[str, str]:
    """The right half's words and colour: failing checks first, then warnings, else passing."""
    failing = sum(v.status is Status.FAIL for v in run.verdicts)
    warning = sum(v.status is Status.WARN for v in run.verdicts)
    if failing:
        return f"{failing} failing", FAILING
    if warning:
        return f"passing, {warning} warning{'s' if warning != 1 else ''}", WARNING
    return "passing", PASSING


def render_check_badge(run: CheckRun) -> str:
    value, colour = badge_text(run)
    left = len(LABEL) * CHAR_WIDTH + PADDING
    right = len(value) * CHAR_WIDTH + PADDING
    width = left + right
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" '
        f'aria-label="{LABEL}: {value}">\n'
        f"<title>{LABEL}: {value}</title>\n"
        f'<rect width="{left}" height="20" fill="#555"/>\n'
        f'<rect x="{left}" width="{right}" height="20" fill="{colour}"/>\n'
        '<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">\n'
        f'<text x="{left / 2}" y="14">{LABEL}</text>\n'
        f'<text x="{left + right / 2}" y="14">{value}</text>\n'
        "</g>\n"
        "</svg>\n"
    )
