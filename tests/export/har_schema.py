"""A JSON Schema for HAR 1.2, written from the spec (W3C Web Performance draft, "HTTP Archive (HAR) format").

Required fields, their types, and the spec's ranges: timings' send, wait and
receive are never -1, the optional ones are >= -1, sizes are integers
(-1 when unknown). Fields the spec does not name must start with "_".
"""

from __future__ import annotations

from typing import Any

CUSTOM_ONLY = {"^_": {}}
DATE_TIME = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$"


def strict(required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": required,
        "properties": {**properties, "comment": {"type": "string"}},
        "patternProperties": CUSTOM_ONLY,
        "additionalProperties": False,
    }


NAME_VALUE = strict(["name", "value"], {"name": {"type": "string"}, "value": {"type": "string"}})
COOKIE = strict(
    ["name", "value"],
    {
        "name": {"type": "string"},
        "value": {"type": "string"},
        "path": {"type": "string"},
        "domain": {"type": "string"},
        "expires": {"type": ["string", "null"]},
        "httpOnly": {"type": "boolean"},
        "secure": {"type": "boolean"},
    },
)
SIZE = {"type": "integer", "minimum": -1}
OPTIONAL_TIMING = {"type": "number", "minimum": -1}
TIMING = {"type": "number", "minimum": 0}

HAR_1_2: dict[str, Any] = strict(
    ["log"],
    {
        "log": strict(
            ["version", "creator", "entries"],
            {
                "version": {"const": "1.2"},
                "creator": strict(
                    ["name", "version"], {"name": {"type": "string"}, "version": {"type": "string"}}
                ),
                "browser": strict(
                    ["name", "version"], {"name": {"type": "string"}, "version": {"type": "string"}}
                ),
                "pages": {
                    "type": "array",
                    "items": strict(
                        ["startedDateTime", "id", "title", "pageTimings"],
                        {
                            "startedDateTime": {"type": "string", "pattern": DATE_TIME},
                            "id": {"type": "string"},
                            "title": {"type": "string"},
                            "pageTimings": strict(
                                [], {"onContentLoad": OPTIONAL_TIMING, "onLoad": OPTIONAL_TIMING}
                            ),
                        },
                    ),
                },
                "entries": {
                    "type": "array",
                    "items": strict(
                        ["startedDateTime", "time", "request", "response", "cache", "timings"],
                        {
                            "pageref": {"type": "string"},
                            "startedDateTime": {"type": "string", "pattern": DATE_TIME},
                            "time": {"type": "number", "minimum": 0},
                            "request": strict(
                                [
                                    "method",
                                    "url",
                                    "httpVersion",
                                    "cookies",
                                    "headers",
                                    "queryString",
                                    "headersSize",
                                    "bodySize",
                                ],
                                {
                                    "method": {"type": "string"},
                                    "url": {"type": "string", "format": "uri"},
                                    "httpVersion": {"type": "string"},
                                    "cookies": {"type": "array", "items": COOKIE},
                                    "headers": {"type": "array", "items": NAME_VALUE},
                                    "queryString": {"type": "array", "items": NAME_VALUE},
                                    "postData": strict(
                                        ["mimeType"],
                                        {
                                            "mimeType": {"type": "string"},
                                            "text": {"type": "string"},
                                            "params": {"type": "array"},
                                        },
                                    ),
                                    "headersSize": SIZE,
                                    "bodySize": SIZE,
                                },
                            ),
                            "response": strict(
                                [
                                    "status",
                                    "statusText",
                                    "httpVersion",
                                    "cookies",
                                    "headers",
                                    "content",
                                    "redirectURL",
                                    "headersSize",
                                    "bodySize",
                                ],
                                {
                                    "status": {"type": "integer"},
                                    "statusText": {"type": "string"},
                                    "httpVersion": {"type": "string"},
                                    "cookies": {"type": "array", "items": COOKIE},
                                    "headers": {"type": "array", "items": NAME_VALUE},
                                    "content": strict(
                                        ["size", "mimeType"],
                                        {
                                            "size": {"type": "integer", "minimum": 0},
                                            "compression": {"type": "integer"},
                                            "mimeType": {"type": "string"},
                                            "text": {"type": "string"},
                                            "encoding": {"type": "string"},
                                        },
                                    ),
                                    "redirectURL": {"type": "string"},
                                    "headersSize": SIZE,
                                    "bodySize": SIZE,
                                },
                            ),
                            "cache": strict(
                                [],
                                {
                                    "beforeRequest": {"type": ["object", "null"]},
                                    "afterRequest": {"type": ["object", "null"]},
                                },
                            ),
                            "timings": strict(
                                ["send", "wait", "receive"],
                                {
                                    "blocked": OPTIONAL_TIMING,
                                    "dns": OPTIONAL_TIMING,
                                    "connect": OPTIONAL_TIMING,
                                    "send": TIMING,
                                    "wait": TIMING,
                                    "receive": TIMING,
                                    "ssl": OPTIONAL_TIMING,
                                },
                            ),
                            "serverIPAddress": {"type": "string"},
                            "connection": {"type": "string"},
                        },
                    ),
                },
            },
        )
    },
)
