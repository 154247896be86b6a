"""What the views show, computed once from a capture and its analysis; no rendering, no Textual.

``summary`` (figures every report format prints), ``report`` (the versioned
JSON report object), ``exchanges`` (the questions every format asks of one
exchange), ``session_counts`` (what `sessions` and the picker say of each
session). Renderers (report/, check/) and the TUI read these.
"""
