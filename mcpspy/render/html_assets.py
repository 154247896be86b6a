"""The HTML report's inline style and script, and the Content-Security-Policy that allows exactly them.

The page loads nothing: the policy is ``default-src 'none'`` and admits only
this style and this script, by hash, so a string from the capture that got
past the escaping still could not run or fetch anything.

The script never builds HTML from text: it filters rows by the ``data-k``
words rendered with them, opens and closes ``<details>``, and opens the
row a link points into. A query in the URL's hash (``#q=tools/call``) sets
the filter, so a filtered view can be shared as a link.
"""

from __future__ import annotations

import base64
import hashlib

STYLE = """
:root { color-scheme: light dark; --muted: #777; --err: #c62828; --warn: #b26a00; --info: #1565c0; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 0 16px 40px; }
h1 { font-size: 20px; margin: 16px 0 4px; } h2 { font-size: 17px; margin: 24px 0 8px; }
h3 { font-size: 15px; margin: 12px 0 4px; }
table { border-collapse: collapse; }
td, th { padding: 2px 10px 2px 0; text-align: left; vertical-align: top; }
td.n, th.n { text-align: right; } dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; }
dt { color: var(--muted); } dd { margin: 0; word-break: break-all; }
code, pre, .mono { font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { margin: 4px 0 8px; padding: 6px 8px; background: rgba(127,127,127,.1); overflow: auto; max-height: 60vh;
      white-space: pre-wrap; word-break: break-all; }
.sev-error { color: var(--err); } .sev-warning { color: var(--warn); } .sev-info { color: var(--info); }
.findings li { margin: 3px 0; } .fix { color: var(--muted); }
#bar { position: sticky; top: 0; padding: 8px 0; background: Canvas; display: flex; gap: 10px;
       align-items: center; border-bottom: 1px solid rgba(127,127,127,.3); z-index: 1; }
#q { flex: 1; font-size: 14px; padding: 4px 6px; }
details.row { border-bottom: 1px solid rgba(127,127,127,.2);
              content-visibility: auto; contain-intrinsic-size: auto 26px; }
details.row > summary { cursor: pointer; padding: 2px 0; white-space: nowrap; overflow: hidden;
                        text-overflow: ellipsis; }
details.row > summary code { white-space: pre; color: var(--muted); }
details.row > summary b { font: 600 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
                          margin-right: 8px; }
.flags { font-size: 12px; color: var(--err); margin-left: 6px; }
.state-error, .state-unanswered, .state-cancelled, .state-lost { color: var(--err); }
.state-unknown { color: var(--muted); }
.state-out-of-order, .state-pending { color: var(--warn); }
.stray { background: rgba(255,196,0,.35); outline: 1px dashed var(--warn); }
.label { color: var(--muted); font-size: 12px; margin-top: 6px; }
.body { padding: 2px 0 8px 24px; }
[id^="m"] { scroll-margin-top: 64px; } :target { outline: 2px solid var(--info); }
"""

SCRIPT = """
(function () {
  "use strict";
  var box = document.getElementById("q");
  var flagged = document.getElementById("flagged");
  var shown = document.getElementById("shown");
  var rows = Array.prototype.slice.call(document.querySelectorAll("details.row"));
  var keys = rows.map(function (row) { return row.getAttribute("data-k"); });
  function apply() {
    var words = box.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var onlyFlagged = flagged.checked, count = 0;
    for (var i = 0; i < rows.length; i++) {
      var k = keys[i], ok = !onlyFlagged || rows[i].hasAttribute("data-sev");
      for (var j = 0; ok && j < words.length; j++) { ok = k.indexOf(words[j]) !== -1; }
      if (rows[i].hidden === ok) { rows[i].hidden = !ok; }
      if (ok) { count++; }
    }
    shown.textContent = count + " of " + rows.length + " shown";
  }
  var timer = 0;
  box.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(apply, 80); });
  flagged.addEventListener("change", apply);
  function setAll(open) { rows.forEach(function (row) { if (!row.hidden) { row.open = open; } }); }
  document.getElementById("expand").addEventListener("click", function () { setAll(true); });
  document.getElementById("collapse").addEventListener("click", function () { setAll(false); });
  function follow() {
    var hash = location.hash.slice(1);
    try { hash = decodeURIComponent(hash); } catch (malformed) { /* "#%E0%A4%A": the hash as written */ }
    if (hash.indexOf("q=") === 0) { box.value = hash.slice(2); return; }
    var target = hash && document.getElementById(hash);
    for (var node = target; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") { node.open = true; node.hidden = false; }
    }
    if (target) { target.scrollIntoView(); }
  }
  window.addEventListener("hashchange", function () { follow(); apply(); });
  follow();
  apply();
  document.documentElement.setAttribute("data-ready", String(Math.round(performance.now())));
})();
"""


def _hash(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode() + "'"


def content_security_policy(style: str, script: str | None) -> str:
    """A policy that admits exactly this inline style and script (by hash), and nothing else."""
    scripts = _hash(script) if script is not None else "'none'"
    return (
        f"default-src 'none'; style-src {_hash(style)}; script-src {scripts}; "
        "img-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'"
    )


CONTENT_SECURITY_POLICY = content_security_policy(STYLE, SCRIPT)
