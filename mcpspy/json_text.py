"""JSON as the views show it: indented, or None when it cannot be re-encoded.

orjson reads JSON nested 1,024 deep but writes only 254 levels: a message
that is valid JSON may still be too deep to pretty-print. Every view then
shows the line as it travelled instead, and says why; none may crash on it.
"""

from __future__ import annotations

import orjson

TOO_DEEP = "nested too deep to pretty-print (over 254 levels): the line is shown as it travelled"


def pretty_json(payload: object) -> str | None:
    """``payload`` indented by two spaces, or None when it is too deep to re-encode."""
    try:
        return orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode()
    except orjson.JSONEncodeError:
        return None
