"""``wait_for_message``: follow live captures until a message matching a filter lands.

Each followed capture is read as the TUI reads it: ``CaptureReader.poll`` from
where it left off, every record through the replay policy (``Replay``), so a
filter sees the same message (its method, pairing and findings) that
``find_messages`` would. What the capture held when the wait began is replayed
first and never matched: only a message that arrives during the wait counts.
Without a session named, every live session is followed, and so is each new
one that appears in the sessions directory (a client restarting its server).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from mcpspy.agent.sessions import SessionStore
from mcpspy.agent.views import session_id
from mcpspy.analysis.model import Message, MessageSeen
from mcpspy.capture.format import CaptureFormatError
from mcpspy.capture.reader import CaptureReader
from mcpspy.capture.sessions import SessionInfo, read_session
from mcpspy.replay_policy import Replay

POLL = 0.05  # seconds between reads of the followed captures
SCAN = 0.25  # seconds between looks for new sessions
PROGRESS_EVERY = 1.0  # seconds between progress notifications (when the client asked for them)

Progress = Callable[[float, float | None, str | None], Awaitable[None]]


@dataclass(frozen=True)
class Seen:
    session: str | None
    message: Message | None
    waited: float


class Follow:
    """One capture, read on from where the last poll stopped."""

    def __init__(self, info: SessionInfo) -> None:
        self.session = session_id(info)
        self.reader = CaptureReader(info.path)
        self.replay = Replay()

    def poll(self) -> list[Message]:
        arrived: list[Message] = []
        try:
            records = self.reader.poll()
        except (OSError, CaptureFormatError):
            return arrived
        for record in records:
            for event in self.replay.feed(record):
                if isinstance(event, MessageSeen):
                    arrived.append(event.message)
        return arrived

    def close(self) -> None:
        self.reader.close()


def _open(info: SessionInfo, catch_up: bool) -> Follow | None:
    """Follow ``info``; with ``catch_up``, what it already holds is read (and not matched) first."""
    try:
        follow = Follow(info)
    except OSError:
        return None
    if catch_up:
        follow.poll()
    return follow


def _names(dirs: list[Path]) -> set[Path]:
    found: set[Path] = set()
    for d in dirs:
        try:
            found.update(d.glob("*.jsonl"))
        except OSError:
            continue
    return found


async def wait_for_message(
    store: SessionStore,
    info: SessionInfo | None,
    match: Callable[[Any], bool],
    timeout: float,
    progress: Progress,
) -> Seen:
    """The first message matching ``match`` to arrive within ``timeout`` seconds."""
    began = time.monotonic()
    dirs = store.dirs()
    known = await anyio.to_thread.run_sync(_names, dirs)
    chosen = [info] if info is not None else [i for i in await anyio.to_thread.run_sync(store.all) if i.live]
    follows = [f for i in chosen if (f := await anyio.to_thread.run_sync(_open, i, True)) is not None]
    next_scan = began + SCAN
    next_progress = began + PROGRESS_EVERY
    try:
        while True:
            for follow in follows:
                for message in follow.poll():
                    if match(message):
                        return Seen(follow.session, message, time.monotonic() - began)
            now = time.monotonic()
            if now - began >= timeout:
                return Seen(None, None, now - began)
            if info is None and now >= next_scan:
                next_scan = now + SCAN
                current = await anyio.to_thread.run_sync(_names, dirs)
                for path in sorted(current - known):
                    new = read_session(path)
                    if new is None:
                        continue  # its header is not written yet: looked at again next time
                    known.add(path)
                    if (opened := _open(new, False)) is not None:
                        follows.append(opened)
            if now >= next_progress:
                next_progress = now + PROGRESS_EVERY
                await progress(round(now - began, 1), timeout, "waiting for a matching message")
            await anyio.sleep(min(POLL, max(0.0, timeout - (now - began))))
    finally:
        for follow in follows:
            follow.close()
