"""Where wrap keeps the config it changed: mcpspy's state dir, never beside a project's files.

One backup per config file (by its real path), made once: a later wrap never
overwrites it. Older mcpspy versions wrote ``FILE.mcpspy-backup`` beside the
config; unwrap still reads (and, once done, removes) one of those.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path

from mcpspy.state_dir import state_dir

LEGACY_SUFFIX = ".mcpspy-backup"


def backups_dir(env: Mapping[str, str] | None = None) -> Path:
    return state_dir(env) / "backups"


def backup_path(real: Path, env: Mapping[str, str] | None = None) -> Path:
    """``<dir>-<file>-<hash of the real path>.json``: readable, and one per config file."""
    digest = hashlib.sha256(str(real).encode("utf-8", "surrogateescape")).hexdigest()[:12]
    label = re.sub(r"[^\w.-]+", "-", f"{real.parent.name}-{real.name}").strip("-.")[:80]
    return backups_dir(env) / f"{label}-{digest}.json"


def legacy_backup_path(real: Path) -> Path:
    return real.with_name(real.name + LEGACY_SUFFIX)
