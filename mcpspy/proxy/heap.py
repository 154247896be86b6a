"""The proxy's heap: what a big line freed is reused while it streams, and handed back after.

A line of many MiB goes through the proxy as 1 MiB reads, then parts and
their encodings, each allocated and freed in turn. glibc's malloc gives
blocks over ``M_MMAP_THRESHOLD`` (128 KiB at first) fresh ``mmap``s and
returns a heap's free top over ``M_TRIM_THRESHOLD`` to the kernel, so every
MiB was zero-filled and faulted in again: 40,000 page faults a 64 MiB line
echoed, 0.06 s of the proxy's 0.25 s of CPU for it (BENCHMARKS.md, issue 28).
With both thresholds raised the freed blocks are reused (14,000 faults, the
first use of the memory). They are raised only once a big line comes (a
pump's first full read): raised from the start, a session of small messages
kept its peak heap (RSS 63 MiB over 1,000,000 messages, not 32). The capture
writer hands what is free back once a streamed line is written and nothing
more is queued (``release_freed``), so a proxy that saw one big line does not
keep its peak for the session.
Elsewhere than glibc both are nothing.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

M_TRIM_THRESHOLD = -1  # mallopt's parameters (malloc.h)
M_MMAP_THRESHOLD = -3
#: Blocks up to this size come from the heap (the most glibc allows: half of one of its heaps)...
MMAP_AT = 32 << 20
#: ...and a heap keeps this much free at its top before it gives any back by itself.
TRIM_AT = 256 << 20


def _libc_function(name: str) -> Callable[..., int] | None:
    try:
        function: Callable[..., int] | None = getattr(
            ctypes.CDLL(None),
            name,
            None,  # the process's own symbols: libc's
        )
    except OSError:
        return None
    return function


def keep_freed() -> None:
    """Raise glibc's thresholds (for the rest of the process: a pump calls it when a big line starts)."""
    mallopt = _libc_function("mallopt")
    if mallopt is not None:
        mallopt(M_MMAP_THRESHOLD, MMAP_AT)
        mallopt(M_TRIM_THRESHOLD, TRIM_AT)


def release_freed() -> None:
    """Hand the free memory back to the kernel (``malloc_trim``; ctypes lets the GIL go meanwhile)."""
    malloc_trim = _libc_function("malloc_trim")
    if malloc_trim is not None:
        malloc_trim(0)
