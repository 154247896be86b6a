"""The HTML report: parsed with html.parser (escaping, no network, every finding), then opened in Chromium."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from mcpspy.model.report import report_object
from mcpspy.model.summary import Summary, build_summary
from mcpspy.render.html_assets import SCRIPT
from mcpspy.replay_policy import open_capture
from mcpspy.report.html import render_html
from tests.conftest import FIXTURES
from tests.export.browser import chromium, dump_dom
from tests.export.synthetic import CaptureBuilder, call, mixed_capture, request, result

HOSTILE_METHOD = "<script>alert(1)</script>"
HOSTILE_TOOL = "<img src=x onerror=alert(1)>"
HOSTILE_STRAY = "</pre><script>document.title='pwned'</script>"
HOSTILE_STDERR = '<iframe src="https://evil.example/"></iframe>'
HOSTILE_ID = '"><svg onload=alert(1)>'
URL_ATTRIBUTES = {"src", "href", "action", "formaction", "srcset", "poster", "data", "background", "ping"}
ALLOWED_TAGS = {
    "html",
    "b",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "header",
    "h1",
    "h2",
    "h3",
    "dl",
    "dt",
    "dd",
    "table",
    "tr",
    "th",
    "td",
    "div",
    "span",
    "code",
    "a",
    "p",
    "input",
    "label",
    "button",
    "output",
    "main",
    "details",
    "summary",
    "pre",
    "mark",
    "script",
}


class Page(HTMLParser):
    """Every tag with its attributes, the text, and each script's source."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self._in_script = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data
        else:
            self.text.append(data)

    @property
    def all_text(self) -> str:
        return "".join(self.text)

    def ids(self) -> set[str]:
        return {a["id"] for _, a in self.tags if a.get("id")}  # type: ignore[misc]


def summary_of(path: Path) -> Summary:
    opened = open_capture(path)
    capture, analyzer = opened.capture, opened.analyzer
    return build_summary(capture, path, analyzer)


def hostile_capture(path: Path) -> Path:
    b = CaptureBuilder("hostile", name="<b>evil</b>")
    b.line("s2c", HOSTILE_STRAY)
    b.line("err", HOSTILE_STDERR)
    b.line("c2s", request(1, HOSTILE_METHOD))
    b.line("s2c", result(1, content=[]))
    b.line("c2s", call(2, HOSTILE_TOOL))
    b.line("s2c", {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": HOSTILE_TOOL}})
    b.line(
        "c2s", {"jsonrpc": "2.0", "id": HOSTILE_ID, "method": "tools/call", "params": {"name": "\u202eevil"}}
    )
    deep = "[" * 300 + "]" * 300
    b.line("c2s", f'{{"jsonrpc":"2.0","method":"notifications/deep","params":{{"x":{deep}}}}}')
    b.event("proxy-stopped", code=0)
    return b.write(path)


def test_hostile_strings_are_text_and_nothing_loads(tmp_path: Path) -> None:
    html = render_html(summary_of(hostile_capture(tmp_path / "hostile.jsonl")))
    page = Page(html)
    assert {tag for tag, _ in page.tags} <= ALLOWED_TAGS  # no img, iframe, svg, link, object
    assert page.scripts == [SCRIPT]  # the one inline script, ours
    for tag, attrs in page.tags:
        assert "src" not in attrs, tag
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            if name == "href":
                assert value is not None and value.startswith("#"), value
            if name in URL_ATTRIBUTES:
                assert not re.search(r"(?i)(https?:)?//", value or ""), (tag, name, value)
    csp = [a["content"] for t, a in page.tags if a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and csp[0] is not None and csp[0].startswith("default-src 'none';")
    text = page.all_text
    for hostile in (HOSTILE_METHOD, HOSTILE_TOOL, HOSTILE_STRAY, HOSTILE_STDERR, "<b>evil</b>"):
        assert hostile in text, hostile
    assert "\u202e" not in html and "\\u202e" in text  # a bidi override is shown, not obeyed
    assert "nested too deep to re-indent" in text and "[" * 300 in text  # the raw line instead


def test_every_finding_is_listed_and_links_to_its_message(tmp_path: Path) -> None:
    captures = [
        mixed_capture(tmp_path / "mixed.jsonl"),
        FIXTURES / "lesson-ready-glued.jsonl",
        FIXTURES / "lesson-out-of-order.jsonl",
        FIXTURES / "pairing-unknown-id.jsonl",
    ]
    for path in captures:
        summary = summary_of(path)
        page = Page(render_html(summary))
        findings = report_object(summary)["findings"]
        assert findings, path
        text = page.all_text
        ids = page.ids()
        for finding in findings:
            assert finding["id"] in text and finding["message"] in text
            assert f"m{finding['seq']}" in ids or finding["seq"] not in {
                m.seq for m in summary.analyzer.messages
            }
        links = [a["href"] for t, a in page.tags if t == "a"]
        assert len(links) == len(findings)


def test_glued_and_stray_text_is_marked(tmp_path: Path) -> None:
    html = render_html(summary_of(FIXTURES / "lesson-ready-glued.jsonl"))
    assert '<mark class="stray">ready </mark>' in html
    html = render_html(summary_of(FIXTURES / "lesson-ready-line.jsonl"))
    assert re.search(r'<span class="stray">[^<]*ready', html)


needs_chromium = pytest.mark.skipif(chromium() is None, reason="chromium is not installed (CI installs it)")


@needs_chromium
def test_chromium_renders_the_exchanges_and_runs_only_our_script(tmp_path: Path) -> None:
    summary = summary_of(hostile_capture(tmp_path / "hostile.jsonl"))
    page_file = tmp_path / "hostile.html"
    page_file.write_text(render_html(summary), encoding="utf-8")
    dump = dump_dom(page_file)
    assert "<title>mcpspy report: &lt;b&gt;evil&lt;/b&gt;</title>" in dump  # the stray script never ran
    dom = Page(dump)
    html_attrs = dict(dom.tags[0][1])
    assert html_attrs.get("data-ready"), "the inline script did not run (blocked by the policy?)"
    assert [t for t, _ in dom.tags if t in ("img", "iframe", "svg")] == []
    assert len([t for t, _ in dom.tags if t == "script"]) == 1
    rows = [a for t, a in dom.tags if t == "details"]
    assert len(rows) == 6  # 3 exchanges, the stray line, the stderr line, the deep notification


@needs_chromium
def test_chromium_filters_from_the_link(tmp_path: Path) -> None:
    summary = summary_of(mixed_capture(tmp_path / "mixed.jsonl"))
    page_file = tmp_path / "mixed.html"
    page_file.write_text(render_html(summary), encoding="utf-8")
    dump = dump_dom(page_file, fragment="#q=tools/call")
    dom = Page(dump)
    rows = [a for t, a in dom.tags if t == "details"]
    shown = [a for a in rows if "hidden" not in a]
    tool_calls = [ex for ex in summary.analyzer.exchanges if ex.method == "tools/call"]
    assert len(shown) == len(tool_calls) == 5
    assert f"{len(shown)} of {len(rows)} shown" in dom.all_text


@needs_chromium
def test_the_policy_blocks_any_other_script(tmp_path: Path) -> None:
    """The signal the tests above rely on: a script the policy does not name never runs."""
    html = render_html(summary_of(FIXTURES / "clean-modern.jsonl"))
    tampered = tmp_path / "tampered.html"
    tampered.write_text(html.replace('"use strict";', '"use strict"; /* not ours */'), encoding="utf-8")
    assert "data-ready" not in Page(dump_dom(tampered)).tags[0][1]
