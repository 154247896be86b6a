"""``restarted``: the one reaction the wire alone cannot tell. A client that went quiet or gave up
after an injection, then started the same command again within ``RESTART_WITHIN`` seconds of the
session's end, restarted the server: the sessions directory beside the capture shows it."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from pathlib import Path

from mcpspy.capture.sessions import list_sessions
from mcpspy.inject.reactions import RESTART_WITHIN
from mcpspy.model.summary import Summary

GAVE_UP = ("quiet", "gave-up")


def mark_restarts(summary: Summary) -> None:
    """Turn the last quiet or gave-up reactions into ``restarted`` when a new session followed."""
    if not any(r.reaction in GAVE_UP for r in summary.injected) or summary.duration is None:
        return
    header = summary.capture.header
    try:
        started = _when(header.started)
    except ValueError:
        return
    ended = started + timedelta(seconds=summary.duration)
    for info in list_sessions([Path(summary.path).parent]):
        if info.path == Path(summary.path) or info.header.command != header.command:
            continue
        try:
            later = _when(info.header.started)
        except ValueError:
            continue
        if ended - timedelta(seconds=1) <= later <= ended + timedelta(seconds=RESTART_WITHIN):
            summary.injected = [
                dataclasses.replace(
                    r, reaction="restarted", detail=f"{r.detail}; then a new session {info.session}"
                )
                if r.reaction in GAVE_UP
                else r
                for r in summary.injected
            ]
            return


def _when(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))
