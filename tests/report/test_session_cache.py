"""`mcpspy sessions` counts a finished session once, and again only when its file changes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import MCPSPY


def sessions(home: Path) -> list[dict[str, object]]:
    done = subprocess.run(
        [*MCPSPY, "sessions", "--json", "--home", str(home)], capture_output=True, check=True, timeout=60
    )
    listing: list[dict[str, object]] = json.loads(done.stdout)
    return listing


def test_counts_are_cached_and_invalidated_by_a_change(tmp_path: Path) -> None:
    home = tmp_path / "home"
    subprocess.run([*MCPSPY, "--home", str(home), "--", "cat"], input=b"hello\n", check=True, timeout=30)
    first = sessions(home)
    cache = home / ".cache" / "sessions.json"
    assert cache.stat().st_mode & 0o777 == 0o600
    assert sessions(home) == first
    entry = next(iter(json.loads(cache.read_text())["entries"].values()))
    entry["value"]["messages"] = 999  # a stale entry for the same stamp is believed: proves the cache is read
    cache.write_text(
        json.dumps(
            {
                **json.loads(cache.read_text()),
                "entries": {next(iter(json.loads(cache.read_text())["entries"])): entry},
            }
        )
    )
    assert sessions(home)[0]["messages"] == 999
    capture = next(home.glob("*.jsonl"))
    with capture.open("ab") as f:  # the file changed: counted again
        f.write(b'{"seq":99,"t":9.0,"stream":"err","text":"late"}\n')
    assert sessions(home)[0]["messages"] == first[0]["messages"] + 1  # type: ignore[operator]
