"""An exclusive ``flock`` on a file that records who holds it: the crawl lock and the ship lock.

The lock file holds one JSON object, the *holder record* (pid, host, start time, and whatever
the owner adds), written when the lock is taken. A process that finds the lock taken reads that
record, so its refusal can name the holder. The OS drops an ``flock`` when its process dies (even
on ``kill -9``): a lock file left behind never blocks anyone, there is nothing stale to clean.

Imports nothing of the project but :mod:`harvest.base.workspace` (a base module: see
``[tool.importlinter]`` in pyproject.toml); ``ship.py`` uses it too.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harvest.base.workspace import open_private

__all__ = ["HolderLock", "LockHeld"]

#: A holder record is small; a longer file is read only this far.
_MAX_RECORD = 65536


class LockHeld(Exception):
    """The lock is held by another process; ``holder`` is its record (``{}`` if unreadable)."""

    def __init__(self, path: Path, holder: dict[str, Any]) -> None:
        super().__init__(f"{str(path)!r} is locked by {holder or 'an unknown holder'}")
        self.path = path
        self.holder = holder


class HolderLock:
    """``flock(LOCK_EX | LOCK_NB)`` on ``path`` (created ``0600``), with a holder record."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        return self._fd is not None

    def acquire(self, holder: Mapping[str, Any]) -> None:
        """Take the lock and write ``holder`` into the file.

        Raises :class:`LockHeld` (with the current holder's record) when another process holds
        it, and :class:`OSError` when the file cannot be opened.
        """
        fd = open_private(self.path, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                record = json.loads(os.pread(fd, _MAX_RECORD, 0) or b"{}")
            except ValueError:
                record = {}
            os.close(fd)
            raise LockHeld(self.path, record if isinstance(record, dict) else {}) from None
        self._fd = fd
        self.update(holder)

    def update(self, holder: Mapping[str, Any]) -> None:
        """Replace the holder record (no-op unless held)."""
        if self._fd is None:
            return
        data = json.dumps(dict(holder), separators=(",", ":")).encode()
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, data, 0)

    def release(self) -> None:
        """Drop the lock (the file stays; its record is stale but harmless)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
