"""A format's function, imported when it is first called: a registry lists every format without
importing them all (``mcpspy --help`` and the proxy load none; each subcommand loads the one it prints)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def imported(module: str, name: str) -> Callable[[Any], Any]:
    """``module.name``, a renderer taking its subject and giving the document: its text, or its pieces."""

    def render(subject: Any) -> Any:
        function: Callable[[Any], Any] = getattr(importlib.import_module(module), name)
        return function(subject)

    render.__qualname__ = render.__name__ = name
    return render
