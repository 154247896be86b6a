"""A format's function, imported when it is first called: a registry lists every format without
importing them all (``mcpspy --help`` and the proxy load none; each subcommand loads the one it prints)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def imported(module: str, name: str) -> Callable[[Any], str]:
    """``module.name``, a renderer taking its subject and giving the document's text."""

    def render(subject: Any) -> str:
        function: Callable[[Any], str] = getattr(importlib.import_module(module), name)
        return function(subject)

    render.__qualname__ = render.__name__ = name
    return render
