"""JUnit XML's skeleton: text any server sent made safe for XML, the counts, the document.

A failure at error level is ``<failure type="error">``, a warning ``<failure
type="warning">`` (as linters' JUnit reports do), a skip ``<skipped>``. Server
text is made visible (controls as escapes) and stripped of what XML 1.0 cannot
hold, so the document always parses. report/junit.py and check/junit.py say
what the testcases are.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from mcpspy.terminal import visible_line

QUOTE = 200  # characters of a raw line quoted
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """Untrusted text for an XML attribute or element: controls visible, nothing XML 1.0 forbids."""
    return _NOT_XML.sub("\ufffd", visible_line(text))


def xml_lines(lines: list[str]) -> str:
    """Lines for an element's body: each made safe as one line, joined by real line breaks (a CI
    page shows them as lines, not as a literal \\x0a)."""
    return "\n".join(xml_text(line) for line in lines)


def set_counts(element: ET.Element, counts: dict[str, int]) -> None:
    for key, value in counts.items():
        element.set(key, str(value))
    element.set("errors", "0")


def document(root: ET.Element) -> str:
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
