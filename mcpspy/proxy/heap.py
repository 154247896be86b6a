"""The proxy's heap: what a big line freed is reused while it streams, and handed back after.

A line of many MiB goes through the proxy as 1 MiB reads, then parts and
their encodings, each allocated and freed in turn. glibc's malloc gives
blocks over ``M_MMAP_THRESHOLD`` (128 KiB at first) fresh ``mmap``s and
returns a heap's free top over ``M_TRIM_THRESHOLD`` to the kernel, so every
MiB was zero-filled and faulted in again: 38,000 page faults a 64 MiB line
echoed, 0.06 s of the proxy's 0.27 s of CPU for it (BENCHMARKS.md, issue 28).
With both thresholds raised the freed blocks are reused (18,000 faults, the
first use of the memory, most of it the 16 MiB each stream holds whole).
They are raised only once a big line comes (a pump's first full read with no
newline): raised from the start, a session of small messages kept its peak
heap (RSS 63 MiB over 1,000,000 messages, not 32). The capture
writer lets it go back once the streamed lines are written and nothing more
is queued (``release_freed``), so a proxy that saw one big line does not keep
its peak for the session.
Elsewhere than glibc both are nothing.
"""

from __future__ import annotations

from mcpspy.proxy.fdio import libc_function

M_TRIM_THRESHOLD = -1  # mallopt's parameters (malloc.h)
M_MMAP_THRESHOLD = -3
#: Blocks up to this size come from the heap (the most glibc allows: half of one of its heaps)...
MMAP_AT = 32 << 20
#: ...and a heap keeps this much free at its top before it gives any back by itself.
TRIM_AT = 256 << 20
GLIBC_TRIM_AT = 128 << 10  # glibc's own, as it starts


def keep_freed() -> None:
    """Raise glibc's thresholds (a pump calls it when a big line starts)."""
    mallopt = libc_function("mallopt")
    if mallopt is not None:
        mallopt(M_MMAP_THRESHOLD, MMAP_AT)
        mallopt(M_TRIM_THRESHOLD, TRIM_AT)


def release_freed() -> None:
    """Let glibc hand the free memory back: free blocks now, each heap's free top at its next free.

    ``malloc_trim`` never shrinks a thread's heap (the pumps'), only glibc's own trim threshold
    does, when a block of that heap is freed: so the threshold goes back down first.
    """
    mallopt, malloc_trim = libc_function("mallopt"), libc_function("malloc_trim")
    if mallopt is not None and malloc_trim is not None:
        mallopt(M_TRIM_THRESHOLD, GLIBC_TRIM_AT)
        malloc_trim(0)  # ctypes lets the GIL go meanwhile
